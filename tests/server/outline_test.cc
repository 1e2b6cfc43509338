// textDocument/documentSymbol: module -> computations -> instructions, with
// exact names, kinds, details, ranges and selection ranges.
#include <string>

#include "gtest/gtest.h"
#include "server/features/features.h"
#include "tests/server/annotations.h"
#include "tests/server/feature_fixture.h"

namespace hlo_lsp {
namespace {

// One line per symbol, indented by depth:
// "name kind 'detail' range selection".
void Dump(const std::vector<DocumentSymbol>& symbols, int depth,
          std::string* out) {
  for (const DocumentSymbol& s : symbols) {
    *out += std::string(depth * 2, ' ') + s.name + " " +
            std::to_string(static_cast<int>(s.kind)) + " '" + s.detail + "' " +
            Show(s.range) + " " + Show(s.selection_range) + "\n";
    Dump(s.children, depth + 1, out);
  }
}

std::string Outline(const Snapshot& snap) {
  std::string out;
  Dump(DocumentSymbols(snap), 0, &out);
  return out;
}

std::string Line(int depth, const std::string& name, SymbolKind kind,
                 const std::string& detail, Range range, Range selection) {
  return std::string(depth * 2, ' ') + name + " " +
         std::to_string(static_cast<int>(kind)) + " '" + detail + "' " +
         Show(range) + " " + Show(selection) + "\n";
}

TEST(OutlineTest, ModuleComputationsAndInstructions) {
  Annotations a(
      R"($mod[[HloModule $mod_name[[m]], entry_computation_layout={(f32[2]{0})->f32[2]{0}}

$fused[[%$fused_name[[fused]] (p0: f32[2]) -> f32[2] {
  $p0[[%$p0_name[[p0]] = f32[2]{0} parameter(0)]]
  $n[[ROOT %$n_name[[n]] = f32[2]{0} add(f32[2]{0} multiply(%p0, %p0), %p0)]]
}]]

$main[[ENTRY %$main_name[[main]] (a: f32[2]) -> f32[2] {
  $a[[%$a_name[[a]] = f32[2]{0} parameter(0)]]
  $c[[%$c_name[[c]] = f32[] constant(1)]]
  $f[[ROOT %$f_name[[f]] = f32[2]{0} fusion(%a), kind=kLoop, calls=%fused]]
}]]]]
)");
  auto snap = Snap(a);
  auto line = [&](int depth, const std::string& name, SymbolKind kind,
                  const std::string& detail, const std::string& mark) {
    return Line(depth, name, kind, detail, a.range(mark),
                a.range(mark + "_name"));
  };
  // The nested multiply is no symbol of its own.
  EXPECT_EQ(
      Outline(*snap),
      line(0, "m", SymbolKind::kModule, "2 computations", "mod") +
          line(1, "fused", SymbolKind::kFunction, "fusion kLoop", "fused") +
          line(2, "p0", SymbolKind::kField, "parameter f32[2]{0}", "p0") +
          line(2, "n", SymbolKind::kVariable, "ROOT add f32[2]{0}", "n") +
          line(1, "main", SymbolKind::kFunction, "ENTRY", "main") +
          line(2, "a", SymbolKind::kField, "parameter f32[2]{0}", "a") +
          line(2, "c", SymbolKind::kConstant, "constant f32[]", "c") +
          line(2, "f", SymbolKind::kVariable, "ROOT fusion f32[2]{0}", "f"));
}

TEST(OutlineTest, AShapeNotWrittenShowsTheInferredOne) {
  Annotations a(
      R"($mod[[HloModule $mod_name[[m]]

$main[[ENTRY %$main_name[[main]] {
  $x[[%$x_name[[x]] = f32[2] parameter(0)]]
  $r[[ROOT %$r_name[[r]] = compare(%x, %x), direction=GT]]
}]]]]
)");
  auto snap = Snap(a);
  auto line = [&](int depth, const std::string& name, SymbolKind kind,
                  const std::string& detail, const std::string& mark) {
    return Line(depth, name, kind, detail, a.range(mark),
                a.range(mark + "_name"));
  };
  EXPECT_EQ(
      Outline(*snap),
      line(0, "m", SymbolKind::kModule, "1 computations", "mod") +
          line(1, "main", SymbolKind::kFunction, "ENTRY", "main") +
          line(2, "x", SymbolKind::kField, "parameter f32[2]", "x") +
          line(2, "r", SymbolKind::kVariable, "ROOT compare pred[2]", "r"));
}

TEST(OutlineTest, HeaderlessTextGetsAnUnnamedModule) {
  // The parser makes a module without a name; it is listed as "module",
  // selecting the empty text at its start.
  Annotations a(
      R"($mod[[$main[[$mod_name[[]]ENTRY %$main_name[[main]] () -> f32[] {
  $r[[ROOT %$r_name[[r]] = f32[] constant(0)]]
}]]]]
)");
  auto snap = Snap(a);
  EXPECT_EQ(Outline(*snap),
            Line(0, "module", SymbolKind::kModule, "1 computations",
                 a.range("mod"), a.range("mod_name")) +
                Line(1, "main", SymbolKind::kFunction, "ENTRY", a.range("main"),
                     a.range("main_name")) +
                Line(2, "r", SymbolKind::kConstant, "ROOT constant f32[]",
                     a.range("r"), a.range("r_name")));
}

TEST(OutlineTest, BasicE2eFixture) {
  // Moved from features_test: basic.hlo's five computations and main's
  // nine instructions, by name.
  auto snap = Snap(ReadFixture("basic.hlo"));
  std::vector<DocumentSymbol> syms = DocumentSymbols(*snap);
  ASSERT_EQ(syms.size(), 1u);
  EXPECT_EQ(syms[0].name, "basic_module");
  std::string names;
  for (const DocumentSymbol& c : syms[0].children)
    names += c.name + "(" + c.detail + ") ";
  EXPECT_EQ(
      names,
      "add_f32() fused_computation(fusion kLoop) body() cond() main(ENTRY) ");
  names.clear();
  for (const DocumentSymbol& i : syms[0].children.back().children)
    names += i.name + " ";
  EXPECT_EQ(names, "input n fusion zero sum init loop result out ");
}

TEST(OutlineTest, InstructionsAreLeftOutOfHugeModules) {
  // Moved from features_test: past kMaxOutlineSymbols only computations,
  // with their instruction count in the detail.
  std::string text = "HloModule huge\n\nENTRY %main () -> f32[] {\n";
  for (int i = 0; i < 100001; ++i) {
    text += "  %c" + std::to_string(i) + " = f32[] constant(1)\n";
  }
  text += "  ROOT %r = f32[] constant(0)\n}\n";
  auto snap = Snap(std::move(text));
  std::vector<DocumentSymbol> syms = DocumentSymbols(*snap);
  ASSERT_EQ(syms.size(), 1u);
  ASSERT_EQ(syms[0].children.size(), 1u);
  EXPECT_TRUE(syms[0].children[0].children.empty());
  EXPECT_EQ(syms[0].children[0].detail, "ENTRY, 100002 instructions");
}

}  // namespace
}  // namespace hlo_lsp
