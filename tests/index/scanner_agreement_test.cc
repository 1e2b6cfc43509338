// The fast scanner must agree with the full parser (hlo::Parse) on module,
// computation and instruction names, positions, opcodes and shapes.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "hlo/index/scanner.h"
#include "hlo/parser.h"

namespace hlo::index {
namespace {

namespace fs = std::filesystem;

struct Def {
  SymbolKind kind;
  std::string name;
  uint32_t line, column;
  std::string opcode, shape;
  bool operator==(const Def&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Def& d) {
  return os << SymbolKindName(d.kind) << " " << d.name << " @" << d.line << ":"
            << d.column << " op=" << d.opcode << " shape=" << d.shape;
}

std::vector<Def> FromScanner(std::string_view text) {
  FileSymbols f = ScanSymbols(text, ScanOptions{.metadata = false});
  std::vector<Def> out;
  for (const Symbol& s : f.symbols) {
    out.push_back({s.kind, std::string(f.Name(s)), s.line, s.column,
                   std::string(f.String(s.opcode)),
                   std::string(f.String(s.shape))});
  }
  return out;
}

// Definitions from the parser, in file order.
std::vector<Def> FromParser(const ParsedFile& file) {
  std::vector<std::pair<Offset, Def>> defs;
  auto at = [&](Span span) {
    LineColumn lc = file.lines().ToLineColumn(span.begin);
    return std::pair<uint32_t, uint32_t>(lc.line + 1, lc.column + 1);
  };
  for (const Module& m : file.modules) {
    if (!m.has_header || m.name.empty()) continue;
    auto [line, col] = at(m.name);
    defs.push_back({m.name.begin,
                    {SymbolKind::kModule, std::string(file.Text(m.name)), line,
                     col, "", ""}});
  }
  for (const Computation& c : file.computations) {
    if (c.name.empty() || file.Text(c.name) == "_") continue;  // inline body
    auto [line, col] = at(c.name);
    defs.push_back({c.name.begin,
                    {SymbolKind::kComputation, std::string(file.Text(c.name)),
                     line, col, "", ""}});
  }
  for (const Instruction& i : file.instructions) {
    if (i.is_nested || i.name.empty()) continue;
    auto [line, col] = at(i.name);
    std::string shape =
        i.shape == kNone ? "" : std::string(file.Text(file.shapes[i.shape].span));
    defs.push_back({i.name.begin,
                    {SymbolKind::kInstruction, std::string(file.Text(i.name)),
                     line, col, std::string(file.Text(i.opcode_span)), shape}});
  }
  std::sort(defs.begin(), defs.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Def> out;
  for (auto& [offset, def] : defs) out.push_back(std::move(def));
  return out;
}

// The parser is a stub until it lands: skip rather than pass vacuously.
bool ParserIsReal() {
  auto file = Parse("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
  return !file->modules.empty() && !file->instructions.empty();
}

void ExpectAgreement(std::string_view text, const std::string& label) {
  auto parsed = Parse(text);
  if (parsed->HasErrors()) return;  // agreement is defined on valid text
  std::vector<Def> expected = FromParser(*parsed);
  std::vector<Def> actual = FromScanner(text);
  ASSERT_EQ(actual.size(), expected.size()) << label;
  for (size_t i = 0; i < actual.size(); ++i) {
    ASSERT_EQ(actual[i], expected[i]) << label << " symbol " << i;
  }
}

constexpr std::string_view kFixture =
    "HloModule jit_f, is_scheduled=true, "
    "entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n\n"
    "%add_f32 (x: f32[], y: f32[]) -> f32[] {\n"
    "  %x = f32[] parameter(0)\n"
    "  %y = f32[] parameter(1)\n"
    "  ROOT %add = f32[] add(f32[] %x, f32[] %y)\n"
    "}\n\n"
    "%fused_computation.1 (param_0.2: f32[4]) -> (f32[4], f32[4]) {\n"
    "  %param_0.2 = f32[4]{0} parameter(0)\n"
    "  %n = f32[4]{0} negate(f32[4]{0} %param_0.2)\n"
    "  ROOT %tuple.3 = (f32[4]{0}, f32[4]{0}) tuple(%n, %param_0.2)\n"
    "}\n\n"
    "ENTRY %main.5 (Arg_0.1: f32[4]) -> f32[4] {\n"
    "  %Arg_0.1 = f32[4]{0} parameter(0), metadata={op_name=\"x\" "
    "source_file=\"a.py\" source_line=3}\n"
    "  %c = f32[] constant(0)\n"
    "  %r = f32[] reduce(f32[4]{0} %Arg_0.1, f32[] %c), dimensions={0}, "
    "to_apply=%add_f32\n"
    "  %f = (f32[4]{0}, f32[4]{0}) fusion(%Arg_0.1), kind=kLoop, "
    "calls=%fused_computation.1\n"
    "  ROOT %b = f32[4]{0} broadcast(f32[] %r), dimensions={}\n"
    "}\n\n";

TEST(ScannerAgreementTest, Fixture) {
  if (!ParserIsReal()) GTEST_SKIP() << "hlo::Parse is still a stub";
  auto parsed = Parse(kFixture);
  ASSERT_FALSE(parsed->HasErrors()) << parsed->diagnostics[0].message;
  ExpectAgreement(kFixture, "fixture");
}

TEST(ScannerAgreementTest, CorpusSample) {
  if (!ParserIsReal()) GTEST_SKIP() << "hlo::Parse is still a stub";
  const char* source = std::getenv("HLO_LSP_SOURCE_DIR");
  fs::path corpus =
      fs::path(source ? source : HLO_LSP_SOURCE_DIR) / ".." / "shared" / "corpus";
  std::error_code ec;
  if (!fs::is_directory(corpus, ec)) GTEST_SKIP() << "no corpus at " << corpus;
  // A bounded sample (every 25th file), not the whole corpus.
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(corpus, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    std::string ext = it->path().extension().string();
    if (it->is_regular_file() && (ext == ".hlo" || ext == ".txt")) {
      files.push_back(it->path());
    }
  }
  std::sort(files.begin(), files.end());
  size_t checked = 0;
  for (size_t i = 0; i < files.size(); i += 25) {
    std::ifstream in(files[i], std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string text = buffer.str();
    if (text.size() > (8 << 20)) continue;
    ExpectAgreement(text, files[i].string());
    if (HasFatalFailure()) return;
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

}  // namespace
}  // namespace hlo::index
