// The fast scanner must agree with the full parser (hlo::Parse) on module,
// computation and instruction names, positions, opcodes and shapes.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "index/scanner.h"

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
    if (c.name.empty()) continue;
    auto [line, col] = at(c.name);
    defs.push_back({c.name.begin,
                    {SymbolKind::kComputation, std::string(file.Text(c.name)),
                     line, col, "", ""}});
  }
  for (const Instruction& i : file.instructions) {
    if (i.is_nested || i.name.empty()) continue;
    auto [line, col] = at(i.name);
    std::string shape = i.shape == kNone
                            ? ""
                            : std::string(file.Text(file.shapes[i.shape].span));
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
  auto file =
      Parse("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
  return !file->modules.empty() && !file->instructions.empty();
}

void CheckAgreement(const ParsedFile& parsed_file, std::string_view text,
                    const std::string& label);

// The scanner's contract covers text where each instruction starts its own
// line (as every printer writes it); hand-written tests sometimes put two on
// one line.
bool OneInstructionPerLine(const ParsedFile& file) {
  auto starts_line = [&](Span name) {
    Offset line_start = file.lines().LineStart(file.lines().LineOf(name.begin));
    std::string_view before =
        file.text().substr(line_start, name.begin - line_start);
    size_t keyword = before.find_first_not_of(" \t");
    if (keyword == std::string_view::npos) return true;
    before.remove_prefix(keyword);
    for (std::string_view k : {"ROOT ", "ENTRY "}) {
      if (before.substr(0, k.size()) == k) before.remove_prefix(k.size());
    }
    return before.find_first_not_of(" \t%") == std::string_view::npos;
  };
  for (const Instruction& i : file.instructions) {
    if (!i.is_nested && !i.name.empty() && !starts_line(i.name)) return false;
  }
  for (const Computation& c : file.computations) {
    if (!c.name.empty() && !starts_line(c.name)) return false;
  }
  return true;
}

// Returns false when the file is outside the scanner's contract.
bool ExpectAgreement(std::string_view text, const std::string& label) {
  auto parsed = Parse(text);
  if (parsed->HasErrors()) return false;  // agreement is defined on valid text
  if (!OneInstructionPerLine(*parsed)) return false;
  CheckAgreement(*parsed, text, label);
  return true;
}

void CheckAgreement(const ParsedFile& parsed_file, std::string_view text,
                    const std::string& label) {
  const ParsedFile* parsed = &parsed_file;
  std::vector<Def> expected = FromParser(*parsed);
  std::vector<Def> actual = FromScanner(text);
  for (size_t i = 0; i < std::min(actual.size(), expected.size()); ++i) {
    ASSERT_EQ(actual[i], expected[i]) << label << " symbol " << i;
  }
  ASSERT_EQ(actual.size(), expected.size())
      << label << (actual.size() > expected.size() ? " extra: " : " missing: ")
      << (actual.size() > expected.size()
              ? actual
              : expected)[std::min(actual.size(), expected.size())];
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
  EXPECT_TRUE(ExpectAgreement(kFixture, "fixture"));
}

TEST(ScannerAgreementTest, CorpusSample) {
  if (!ParserIsReal()) GTEST_SKIP() << "hlo::Parse is still a stub";
  const char* source = std::getenv("HLO_LSP_SOURCE_DIR");
  fs::path corpus = fs::path(source ? source : HLO_LSP_SOURCE_DIR) / ".." /
                    "shared" / "corpus";
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
  size_t checked = 0, sampled = 0;
  // HLO_INDEX_AGREEMENT_STRIDE=1 checks every file (a one-off, not CI).
  const char* stride_env = std::getenv("HLO_INDEX_AGREEMENT_STRIDE");
  size_t stride = stride_env ? std::max(1, std::atoi(stride_env)) : 25;
  for (size_t i = 0; i < files.size(); i += stride) {
    std::ifstream in(files[i], std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string text = buffer.str();
    if (text.size() > (8 << 20)) continue;
    bool in_contract = ExpectAgreement(text, files[i].string());
    if (HasFatalFailure()) return;
    checked += in_contract ? 1 : 0;
    sampled += 1;
  }
  std::printf("scanner/parser agreement on %zu of %zu sampled files\n", checked,
              sampled);
  EXPECT_GT(checked, sampled / 2);
}

}  // namespace
}  // namespace hlo::index
