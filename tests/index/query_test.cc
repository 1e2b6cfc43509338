#include "index/query.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "index/fuzzy.h"
#include "index/scanner.h"

namespace hlo::index {
namespace {

// Names ranked for `pattern`, best first (non-matches dropped).
std::vector<std::string> Rank(std::string_view pattern,
                              std::vector<std::string> words) {
  FuzzyMatcher matcher(pattern);
  std::vector<std::pair<double, std::string>> scored;
  for (std::string& w : words) {
    if (auto s = matcher.Match(w)) scored.push_back({*s, w});
  }
  std::stable_sort(
      scored.begin(), scored.end(),
      [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  for (auto& [score, w] : scored) out.push_back(w);
  return out;
}

TEST(FuzzyTest, ExactBeatsCaseInsensitiveBeatsPrefixBeatsFuzzy) {
  std::vector<std::string> ranked =
      Rank("fusion.1", {"multiply_fusion.12", "fusion.12", "Fusion.1",
                        "fusion.1", "f_usion.1x"});
  ASSERT_EQ(ranked.size(), 5u);
  EXPECT_EQ(ranked[0], "fusion.1");
  EXPECT_EQ(ranked[1], "Fusion.1");
  EXPECT_EQ(ranked[2], "fusion.12");
}

TEST(FuzzyTest, SegmentStartsBeatMidWordMatches) {
  // "ar" at the start of `all-reduce` segments beats "ar" inside a word.
  std::vector<std::string> ranked = Rank("ar", {"parameter.3", "all-reduce.7"});
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0], "all-reduce.7");
  ranked = Rank("fc", {"fixed_cost", "fused_computation"});
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0], "fixed_cost");  // shorter, both at segment starts
  ranked = Rank("fuco", {"fuzzy_echo", "fused_computation"});
  EXPECT_EQ(ranked[0], "fused_computation");
}

TEST(FuzzyTest, NonSubsequencesDoNotMatch) {
  FuzzyMatcher m("dot");
  EXPECT_FALSE(m.Match("tod"));
  EXPECT_FALSE(m.Match("do"));
  EXPECT_TRUE(m.Match("DOT"));
  EXPECT_TRUE(m.Match("d_o_t"));
  std::string long_name(1000, 'x');
  long_name += "dot";
  EXPECT_TRUE(m.Match(long_name));  // past the scored window: still found
  EXPECT_LT(*m.Match(long_name), *m.Match("xdot"));
  EXPECT_EQ(*FuzzyMatcher("").Match("anything"), 0.0);
}

constexpr std::string_view kText =
    "HloModule jit_f\n"
    "%fused_computation (p: f32[]) -> f32[] {\n"
    "  ROOT %p = f32[] parameter(0)\n"
    "}\n"
    "ENTRY %main {\n"
    "  %dot.1 = f32[2,2]{1,0} dot(%a, %b), metadata={op_name=\"jit(f)/dot\" "
    "source_file=\"m.py\" source_line=7}\n"
    "  %fusion = f32[] fusion(%dot.1), kind=kLoop, calls=%fused_computation\n"
    "  ROOT %add.2 = f32[] add(%fusion, %fusion)\n"
    "}\n";

std::vector<std::string> Names(std::string_view query_text) {
  FileSymbols file = ScanSymbols(kText);
  absl::StatusOr<SymbolQuery> query = SymbolQuery::Parse(query_text);
  EXPECT_TRUE(query.ok()) << query.status();
  std::vector<std::string> out;
  if (!query.ok()) return out;
  for (const Symbol& s : file.symbols) {
    if (query->Score(file, s)) out.emplace_back(file.Name(s));
  }
  return out;
}

TEST(QueryTest, Filters) {
  EXPECT_EQ(Names("kind:computation"),
            (std::vector<std::string>{"fused_computation", "main"}));
  EXPECT_EQ(Names("op:dot"), (std::vector<std::string>{"dot.1"}));
  EXPECT_EQ(Names("op:fusion fu"), (std::vector<std::string>{"fusion"}));
  EXPECT_EQ(Names("kind:metadata"),
            (std::vector<std::string>{"jit(f)/dot", "m.py:7"}));
  EXPECT_EQ(Names("kind:module"), (std::vector<std::string>{"jit_f"}));
  EXPECT_EQ(Names("module:jit_f kind:module").size(), 1u);
  EXPECT_TRUE(Names("module:other").empty());
  EXPECT_EQ(Names("module:jit_* kind:module").size(), 1u);
  EXPECT_EQ(Names("kind:instruction kind:module").size(), 5u);
  EXPECT_EQ(Names("m.py:7"), (std::vector<std::string>{"m.py:7"}));
}

TEST(QueryTest, Regex) {
  EXPECT_EQ(Names("/^(dot|add)\\.[0-9]+$/"),
            (std::vector<std::string>{"dot.1", "add.2"}));
  EXPECT_EQ(Names("/jit\\(f\\)\\/dot/"),
            (std::vector<std::string>{"jit(f)/dot"}));
  EXPECT_EQ(Names("kind:instruction /u/"),
            (std::vector<std::string>{"fusion"}));
  EXPECT_FALSE(SymbolQuery::Parse("/(unclosed/").ok());
  EXPECT_FALSE(SymbolQuery::Parse("/abc").ok());
  EXPECT_FALSE(SymbolQuery::Parse("kind:bogus").ok());
  // Backreferences are not RE2: rejected, never sent to another engine.
  EXPECT_FALSE(SymbolQuery::Parse("/(a)\\1/").ok());
}

TEST(QueryTest, PathologicalRegexIsLinear) {
  // Catastrophic for a backtracking engine; instant with RE2.
  FileSymbolsBuilder builder;
  std::string name(5000, 'a');
  builder.pool = name;
  builder.symbols.push_back(
      Symbol{PoolRef{0, static_cast<uint32_t>(name.size())}});
  FileSymbols file = std::move(builder).Finish();
  absl::StatusOr<SymbolQuery> q = SymbolQuery::Parse("/(a+)+$b/");
  ASSERT_TRUE(q.ok());
  EXPECT_FALSE(q->Score(file, file.symbols[0]));
}

TEST(QueryTest, FileGlob) {
  absl::StatusOr<SymbolQuery> q =
      SymbolQuery::Parse("file:*.after_optimizations.txt x");
  ASSERT_TRUE(q.ok());
  EXPECT_FALSE(q->RejectsFile("/d/module_0001.f.after_optimizations.txt"));
  EXPECT_TRUE(q->RejectsFile("/d/module_0001.f.before_optimizations.txt"));
  absl::StatusOr<SymbolQuery> sub = SymbolQuery::Parse("file:module_0001");
  ASSERT_TRUE(sub.ok());
  EXPECT_FALSE(sub->RejectsFile("/d/module_0001.f.txt"));
  EXPECT_TRUE(sub->RejectsFile("/d/module_0002.f.txt"));
  absl::StatusOr<SymbolQuery> none = SymbolQuery::Parse("x");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->RejectsFile("/anything"));
}

}  // namespace
}  // namespace hlo::index
