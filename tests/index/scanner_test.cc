#include "index/scanner.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace hlo::index {
namespace {

constexpr std::string_view kModule =
    "HloModule jit_f, is_scheduled=true, "
    "entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n"
    "\n"
    "%add_f32 (x: f32[], y: f32[]) -> f32[] {\n"
    "  %x = f32[] parameter(0)\n"
    "  %y = f32[] parameter(1)\n"
    "  ROOT %add = f32[] add(f32[] %x, f32[] %y)\n"
    "}\n"
    "\n"
    "ENTRY %main.5 (Arg_0.1: f32[4]) -> f32[4] {\n"
    "  %Arg_0.1 = f32[4]{0} parameter(0), metadata={op_name=\"x\"}\n"
    "  %c = f32[] constant(0)\n"
    "  %t = (f32[], s32[2]{0}) tuple(f32[] %c, s32[2]{0} %z), "
    "metadata={op_type=\"t\" op_name=\"jit(f)/tuple\" "
    "source_file=\"/a/b.py\" source_line=12}\n"
    "  %r = f32[] reduce(f32[4]{0} %Arg_0.1, f32[] %c), dimensions={0}, "
    "to_apply=%add_f32\n"
    "  %l = f32[8,128]{1,0:T(8,128)} copy(%q)\n"
    "  short = add(a, b)\n"
    "  ROOT %b = f32[4]{0} broadcast(f32[] %r), dimensions={}, "
    "metadata={op_name=\"x\"}\n"
    "}\n";

struct Flat {
  SymbolKind kind;
  std::string name;
  uint32_t line, column;
  std::string opcode, shape, module;
};

std::vector<Flat> ScannerFlatten(const FileSymbols& f) {
  std::vector<Flat> out;
  for (const Symbol& s : f.symbols) {
    out.push_back({s.kind, std::string(f.Name(s)), s.line, s.column,
                   std::string(f.String(s.opcode)),
                   std::string(f.String(s.shape)),
                   std::string(f.ModuleName(s))});
  }
  return out;
}

TEST(ScannerTest, FindsEverySymbolWithPositions) {
  FileSymbols f = ScanSymbols(kModule);
  std::vector<Flat> s = ScannerFlatten(f);
  ASSERT_EQ(s.size(), 16u);
  EXPECT_EQ(s[0].kind, SymbolKind::kModule);
  EXPECT_EQ(s[0].name, "jit_f");
  EXPECT_EQ(s[0].line, 1u);
  EXPECT_EQ(s[0].column, 11u);
  EXPECT_EQ(s[1].kind, SymbolKind::kComputation);
  EXPECT_EQ(s[1].name, "add_f32");
  EXPECT_EQ(s[1].line, 3u);
  EXPECT_EQ(s[1].column, 2u);
  EXPECT_EQ(s[2].name, "x");
  EXPECT_EQ(s[2].opcode, "parameter");
  EXPECT_EQ(s[2].shape, "f32[]");
  EXPECT_EQ(s[2].column, 4u);
  EXPECT_EQ(s[4].name, "add");
  EXPECT_EQ(f.symbols[4].flags & kFlagRoot, kFlagRoot);
  EXPECT_EQ(s[4].column, 9u);
  EXPECT_EQ(s[5].name, "main.5");
  EXPECT_EQ(s[5].kind, SymbolKind::kComputation);
  EXPECT_EQ(f.symbols[5].flags & kFlagEntry, kFlagEntry);
  EXPECT_EQ(s[6].name, "Arg_0.1");
  EXPECT_EQ(s[6].shape, "f32[4]{0}");
  EXPECT_EQ(s[7].kind, SymbolKind::kMetadata);
  EXPECT_EQ(s[7].name, "x");
  EXPECT_EQ(s[7].line, 10u);
  EXPECT_EQ(s[8].name, "c");
  EXPECT_EQ(s[8].opcode, "constant");
  EXPECT_EQ(s[9].name, "t");
  EXPECT_EQ(s[9].shape, "(f32[], s32[2]{0})");
  EXPECT_EQ(s[9].opcode, "tuple");
  EXPECT_EQ(s[10].kind, SymbolKind::kMetadata);
  EXPECT_EQ(s[10].name, "jit(f)/tuple");
  EXPECT_EQ(s[11].kind, SymbolKind::kMetadata);
  EXPECT_EQ(s[11].name, "/a/b.py:12");
  EXPECT_EQ(s[12].name, "r");
  EXPECT_EQ(s[12].opcode, "reduce");
  EXPECT_EQ(s[13].name, "l");
  EXPECT_EQ(s[13].shape, "f32[8,128]{1,0:T(8,128)}");
  EXPECT_EQ(s[13].opcode, "copy");
  EXPECT_EQ(s[14].name, "short");
  EXPECT_EQ(s[14].shape, "");
  EXPECT_EQ(s[14].opcode, "add");
  EXPECT_EQ(s[14].column, 3u);
  EXPECT_EQ(s[15].name, "b");  // its op_name "x" was seen already
  for (const Flat& x : s) EXPECT_EQ(x.module, "jit_f") << x.name;
}

TEST(ScannerTest, MetadataCanBeTurnedOff) {
  FileSymbols f = ScanSymbols(kModule, ScanOptions{.metadata = false});
  for (const Symbol& s : f.symbols) EXPECT_NE(s.kind, SymbolKind::kMetadata);
  EXPECT_EQ(f.symbols.size(), 13u);
}

TEST(ScannerTest, CrlfAndHeaderless) {
  FileSymbols f =
      ScanSymbols("ENTRY e {\r\n  ROOT p = f32[] parameter(0)\r\n}\r\n");
  ASSERT_EQ(f.symbols.size(), 2u);
  EXPECT_EQ(f.Name(f.symbols[0]), "e");
  EXPECT_EQ(f.symbols[0].module, kNoRef);
  EXPECT_EQ(f.Name(f.symbols[1]), "p");
  EXPECT_EQ(f.String(f.symbols[1].opcode), "parameter");
}

TEST(ScannerTest, EscapedQuotesInMetadata) {
  FileSymbols f = ScanSymbols(
      "ENTRY e {\n"
      "  ROOT p = f32[] parameter(0), metadata={op_name=\"a\\\"b\\\\\" "
      "source_file=\"x.py\" source_line=3}\n"
      "}\n");
  ASSERT_EQ(f.symbols.size(), 4u);
  EXPECT_EQ(f.Name(f.symbols[2]), "a\\\"b\\\\");  // raw, as written
  EXPECT_EQ(f.Name(f.symbols[3]), "x.py:3");
}

// One metadata symbol per name, whichever kind wrote it first: the index
// keeps one per file and name, and a chunked scan must agree with this one
// (the index fuzzer found an op_name that read like a later location).
TEST(ScannerTest, MetadataNamesAreKeptOnceWhateverTheirKind) {
  FileSymbols f = ScanSymbols(
      "ENTRY e {\n"
      "  a = f32[] parameter(0), metadata={op_name=\"m.py:7\"}\n"
      "  b = f32[] parameter(1), metadata={source_file=\"m.py\" "
      "source_line=7}\n"
      "  c = f32[] parameter(2), metadata={op_name=\"n.py\" "
      "source_file=\"n.py\"}\n"
      "  ROOT d = f32[] add(a, b), metadata={source_file=\"m.py\" "
      "source_line=8}\n"
      "}\n");
  std::vector<std::pair<std::string, uint32_t>> metadata;
  for (const Symbol& s : f.symbols) {
    if (s.kind == SymbolKind::kMetadata) {
      metadata.emplace_back(std::string(f.Name(s)), s.line);
    }
  }
  std::vector<std::pair<std::string, uint32_t>> expected = {
      {"m.py:7", 2}, {"n.py", 4}, {"m.py:8", 5}};
  EXPECT_EQ(metadata, expected);
}

TEST(ScannerTest, GarbageNeverCrashes) {
  std::string junk;
  uint32_t state = 12345;
  const std::string alphabet =
      "%= ()[]{}\"\\\nROOT ENTRY HloModule metadata={,";
  for (int i = 0; i < 200000; ++i) {
    state = state * 1103515245 + 12345;
    junk.push_back(alphabet[(state >> 16) % alphabet.size()]);
  }
  FileSymbols f = ScanSymbols(junk);
  for (const Symbol& s : f.symbols) {
    EXPECT_LE(s.name.offset + s.name.size, f.pool.size());
  }
  // Truncated lines at every point of a real module.
  for (size_t cut = 0; cut < kModule.size(); cut += 7) {
    ScanSymbols(kModule.substr(0, cut));
  }
}

TEST(ScannerTest, FlagsANonAsciiPrefix) {
  FileSymbols f = ScanSymbols(
      "HloModule m\n\nENTRY %main () -> f32[] {\n"
      "/*\xc3\xa9*/ %a = f32[] constant(0), metadata={op_name=\"x\"}\n"
      "  ROOT %b = f32[] negate(%a), metadata={op_name=\"\xc3\xa9/y\" "
      "source_file=\"s.py\" source_line=3}\n}\n");
  std::vector<std::pair<std::string, bool>> flags;
  for (const Symbol& s : f.symbols) {
    flags.push_back(
        {std::string(f.Name(s)), (s.flags & kFlagNonAsciiPrefix) != 0});
  }
  std::vector<std::pair<std::string, bool>> expected = {
      {"m", false}, {"main", false},       {"a", true},     {"x", true},
      {"b", false}, {"\xc3\xa9/y", false}, {"s.py:3", true}};
  EXPECT_EQ(flags, expected);
}

}  // namespace
}  // namespace hlo::index
