// XLA's own expected results (issue 22): every case under
// tests/exec/xla_cases/ (made by scripts/extract-xla-cases.py from XLA's
// test sources) runs through our evaluator and is compared with XLA's
// ErrorSpec rule: a value is wrong only when it is off by more than `abs`
// AND by more than `rel` of the expected. Cases that still fail are listed in
// known_failures.txt with their reason; a listed case that passes fails the
// test too, so the list stays true.
#include <cmath>
#include <complex>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "exec/evaluator.h"
#include "exec/literal.h"
#include "exec_test_util.h"
#include "gtest/gtest.h"
#include "hlo/literal_text.h"

namespace hlo::exec {
namespace {

namespace fs = std::filesystem;

fs::path CaseDir() {
  return fs::path(HLO_LSP_SOURCE_DIR) / "tests" / "exec" / "xla_cases";
}

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(CaseDir(), ec)) {
    if (e.path().extension() == ".case") names.push_back(e.path().stem());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// known_failures.txt: "NAME reason..." per line, '#' comments.
std::map<std::string, std::string> KnownFailures() {
  std::map<std::string, std::string> known;
  std::istringstream in(ReadAll(CaseDir() / "known_failures.txt"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t space = line.find(' ');
    known[line.substr(0, space)] =
        space == std::string::npos ? "" : line.substr(space + 1);
  }
  return known;
}

struct Case {
  std::string source;
  bool exact = true;
  double abs = 0, rel = 0;
  std::vector<std::string> args;
  // By participant (EXPECT is participant 0, EXPECT@N participant N).
  std::vector<std::pair<int, std::string>> expected;
};

Case ReadCase(const std::string& name) {
  Case c;
  std::istringstream in(ReadAll(CaseDir() / (name + ".case")));
  std::string line;
  while (std::getline(in, line)) {
    std::string key = line.substr(0, line.find(' '));
    std::string rest = line.substr(std::min(line.size(), key.size() + 1));
    if (key == "SOURCE") c.source = rest;
    if (key == "ARG") c.args.push_back(rest);
    if (key == "EXPECT") c.expected.push_back({0, rest});
    if (key.rfind("EXPECT@", 0) == 0)
      c.expected.push_back({std::atoi(key.c_str() + 7), rest});
    if (key == "ERROR" && rest != "exact") {
      c.exact = false;
      std::sscanf(rest.c_str(), "abs=%lf rel=%lf", &c.abs, &c.rel);
    }
  }
  return c;
}

LiteralShape ShapeOf(const LiteralValue& v) {
  if (!v.is_tuple()) return LiteralShape::Array(v.type, v.dims);
  std::vector<LiteralShape> elements;
  for (const LiteralValue& e : v.tuple_elements) elements.push_back(ShapeOf(e));
  return LiteralShape::Tuple(std::move(elements));
}

absl::StatusOr<Value> MakeLiteral(const std::string& text) {
  auto value = DecodeShapedLiteral(text);
  if (!value.ok()) return value.status();
  bool elided = false;
  auto lit = LiteralFromValue(*value, ShapeOf(*value), &elided);
  if (!lit.ok()) return lit.status();
  return std::make_shared<const Literal>(*std::move(lit));
}

std::complex<double> At(const Literal& lit, int64_t i) {
  if (lit.type() == PrimitiveType::kC64)
    return std::complex<double>(lit.data<std::complex<float>>()[i]);
  if (lit.type() == PrimitiveType::kC128)
    return lit.data<std::complex<double>>()[i];
  return lit.GetDouble(i);
}

// XLA's ErrorSpec: off only when beyond abs AND beyond rel; NaN matches NaN.
bool Near(double want, double got, const Case& c) {
  if (std::isnan(want) || std::isnan(got))
    return std::isnan(want) && std::isnan(got);
  if (want == got) return true;
  if (c.exact || std::isinf(want) || std::isinf(got)) return false;
  double diff = std::fabs(want - got);
  return diff <= c.abs || diff <= c.rel * std::fabs(want);
}

// Empty when equal, else what differs first.
std::string Mismatch(const Literal& want, const Literal& got, const Case& c) {
  if (ShapeString(want.shape()) != ShapeString(got.shape()))
    return "shape " + ShapeString(got.shape()) + ", expected " +
           ShapeString(want.shape());
  if (want.is_tuple()) {
    for (size_t i = 0; i < want.elements().size(); ++i) {
      std::string m = Mismatch(*want.elements()[i], *got.elements()[i], c);
      if (!m.empty()) return "tuple element " + std::to_string(i) + ": " + m;
    }
    return "";
  }
  for (int64_t i = 0; i < want.count(); ++i) {
    std::complex<double> w = At(want, i), g = At(got, i);
    if (!Near(w.real(), g.real(), c) || !Near(w.imag(), g.imag(), c))
      return "element " + std::to_string(i) + ": got " + got.ToString() +
             ", expected " + want.ToString();
  }
  return "";
}

// Runs one case; empty when XLA's expected result comes out.
std::string RunCase(const std::string& name) {
  Case c = ReadCase(name);
  std::vector<Value> args;
  for (const std::string& a : c.args) {
    auto v = MakeLiteral(a);
    if (!v.ok()) return "bad ARG: " + std::string(v.status().message());
    args.push_back(*v);
  }
  // Every participant (REPLICAS: the module's replica_count) gets the args.
  testing::Parsed p =
      testing::ParseModule(ReadAll(CaseDir() / (name + ".hlo")));
  if (p.file->modules.empty() || p.file->HasErrors())
    return "does not parse: " + (p.file->diagnostics.empty()
                                     ? std::string("no module")
                                     : p.file->diagnostics[0].message);
  if (absl::Status s = CheckSupported(*p.file, 0); !s.ok())
    return std::string(s.message());
  auto got = Evaluate(*p.file, 0, {args});
  if (!got.ok()) return std::string(got.status().message());
  if (c.expected.empty()) return "no EXPECT";
  for (const auto& [participant, text] : c.expected) {
    auto want = MakeLiteral(text);
    if (!want.ok())
      return "bad EXPECT: " + std::string(want.status().message());
    if (participant >= static_cast<int>(got->results.size()))
      return "no participant " + std::to_string(participant);
    std::string m = Mismatch(**want, *got->results[participant], c);
    if (!m.empty()) {
      if (c.expected.size() == 1) return m;
      return "participant " + std::to_string(participant) + ": " + m;
    }
  }
  return "";
}

class XlaCaseTest : public ::testing::TestWithParam<std::string> {};

TEST_P(XlaCaseTest, AgreesWithXla) {
  const std::string& name = GetParam();
  static const std::map<std::string, std::string> known = KnownFailures();
  std::string failure = RunCase(name);
  auto listed = known.find(name);
  if (listed == known.end()) {
    EXPECT_EQ(failure, "") << name << " (" << ReadCase(name).source << ")";
  } else {
    EXPECT_NE(failure, "") << name << " passes now: take it off "
                           << "known_failures.txt (" << listed->second << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(Xla, XlaCaseTest, ::testing::ValuesIn(CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch)))
                               ch = '_';
                           return n;
                         });

TEST(XlaCasesTest, EveryListedFailureIsACaseWithAReason) {
  std::vector<std::string> names = CaseNames();
  EXPECT_GE(names.size(), 100u);
  for (const auto& [name, reason] : KnownFailures()) {
    EXPECT_TRUE(std::binary_search(names.begin(), names.end(), name)) << name;
    EXPECT_FALSE(reason.empty()) << name;
  }
}

}  // namespace
}  // namespace hlo::exec
