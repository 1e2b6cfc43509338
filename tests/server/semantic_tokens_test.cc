// semanticTokens/full and /range: every token decoded back to its range,
// type and modifiers, against the marked ranges. A mark's name is the token
// type, with "_decl" for the declaration modifier.
#include <algorithm>
#include <map>

#include "gtest/gtest.h"
#include "server/features/features.h"
#include "tests/server/annotations.h"
#include "tests/server/feature_fixture.h"

namespace hlo_lsp {
namespace {

// One line per token: "line:col-line:col type[ declaration]".
std::string Decode(const SemanticTokens& tokens) {
  EXPECT_EQ(tokens.data.size() % 5, 0u);
  std::string out;
  uint32_t line = 0, ch = 0;
  for (size_t i = 0; i + 4 < tokens.data.size(); i += 5) {
    line += tokens.data[i];
    ch = tokens.data[i] > 0 ? tokens.data[i + 1] : ch + tokens.data[i + 1];
    uint32_t type = tokens.data[i + 3], mods = tokens.data[i + 4];
    out += Show(Range{{line, ch}, {line, ch + tokens.data[i + 2]}}) + " " +
           (type < SemanticTokenTypes().size() ? SemanticTokenTypes()[type]
                                               : "?") +
           (mods == 1   ? " declaration"
            : mods == 0 ? ""
                        : " ?") +
           "\n";
  }
  return out;
}

// The marked tokens in text order, optionally only those on `lines`.
std::string SemanticTokensExpected(const Annotations& a,
                                   uint32_t first_line = 0,
                                   uint32_t last_line = 1000) {
  std::vector<std::pair<Range, std::string>> all;
  for (const char* type : SemanticTokenTypes()) {
    for (Range r : a.ranges(type)) all.push_back({r, type});
    for (Range r : a.ranges(std::string(type) + "_decl")) {
      all.push_back({r, std::string(type) + " declaration"});
    }
  }
  std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) {
    return std::make_pair(x.first.start.line, x.first.start.character) <
           std::make_pair(y.first.start.line, y.first.start.character);
  });
  std::string out;
  for (const auto& [r, what] : all) {
    if (r.start.line >= first_line && r.start.line <= last_line) {
      out += Show(r) + " " + what + "\n";
    }
  }
  return out;
}

constexpr char kSemanticTokensModule[] = R"(HloModule $namespace_decl[[m]]

%$function_decl[[add]] ($parameter_decl[[x]]: $type[[f32[]]], $parameter_decl[[y]]: $type[[f32[1]]]) -> $type[[f32[2]]] {
  %$variable_decl[[x]] = $type[[f32[3]]] $keyword[[parameter]](0)
  %$variable_decl[[y]] = $type[[f32[4]]] $keyword[[parameter]](1)
  ROOT %$variable_decl[[s]] = $type[[f32[5]]] $keyword[[add]]($type[[f32[6]]] %$variable[[x]], $variable[[y]])
}

ENTRY %$function_decl[[main]] ($parameter_decl[[p]]: $type[[s32[4]]]) -> $type[[s32[]]] {
  %$variable_decl[[p]] = $type[[s32[4]{0}]] $keyword[[parameter]](0)
  %$variable_decl[[z]] = $type[[s32[1]]] $keyword[[constant]](0)
  ROOT %$variable_decl[[r]] = $type[[s32[2]]] $keyword[[reduce]](%$variable[[p]], %$variable[[z]]), $property[[dimensions]]={0}, $property[[to_apply]]=%$function[[add]]
}
)";

TEST(SemanticTokensTest, FullDocument) {
  Annotations a(kSemanticTokensModule);
  auto snap = Snap(a);
  EXPECT_EQ(Decode(SemanticTokensFull(*snap)), SemanticTokensExpected(a));
}

TEST(SemanticTokensTest, RangeKeepsOnlyTokensInside) {
  Annotations a(kSemanticTokensModule);
  auto snap = Snap(a);
  uint32_t r_line = a.range("function").start.line;  // the %r line
  EXPECT_EQ(
      Decode(SemanticTokensRange(*snap, Range{{r_line, 0}, {r_line + 1, 0}})),
      SemanticTokensExpected(a, r_line, r_line));
}

TEST(SemanticTokensTest, ControlPredecessorsAndNestedOps) {
  Annotations a(R"(HloModule $namespace_decl[[m]]

ENTRY %$function_decl[[main]] () -> $type[[f32[]]] {
  %$variable_decl[[a]] = $type[[f32[1]]] $keyword[[constant]](1)
  ROOT %$variable_decl[[b]] = $type[[f32[2]]] $keyword[[add]]($type[[f32[3]]] $keyword[[negate]]($variable[[a]]), $variable[[a]]), $property[[control-predecessors]]={%$variable[[a]]}
}
)");
  auto snap = Snap(a);
  EXPECT_EQ(Decode(SemanticTokensFull(*snap)), SemanticTokensExpected(a));
}

// The parser interns shapes by their text, so file.shapes[id].span is the
// first place that text was written: each later `f32[]` (result, operand,
// parameter, signature) is found where the syntax puts it.
TEST(SemanticTokensTest, RepeatedShapesEachGetAToken) {
  Annotations a(R"(HloModule $namespace_decl[[m]]

%$function_decl[[f]] ($parameter_decl[[x]]: $type[[f32[]]], $parameter_decl[[y]] :  $type[[f32[]]]) -> $type[[f32[]]] {
  %$variable_decl[[x]] = $type[[f32[]]] $keyword[[parameter]](0)
  %$variable_decl[[y]] = $type[[f32[]]] $keyword[[parameter]](1)
  ROOT %$variable_decl[[s]] = $type[[f32[]]] $keyword[[add]]($type[[f32[]]] %$variable[[x]], $variable[[y]])
}

ENTRY %$function_decl[[main]] () -> $type[[f32[]]] {
  %$variable_decl[[a]] = $type[[f32[]]] $keyword[[constant]](1)
  ROOT %$variable_decl[[b]] = $type[[f32[]]] $keyword[[negate]]($type[[f32[]]] %$variable[[a]])
}
)");
  auto snap = Snap(a);
  EXPECT_EQ(Decode(SemanticTokensFull(*snap)), SemanticTokensExpected(a));
}

TEST(SemanticTokensTest, BasicE2eFixtureTokensAreOrderedAndDisjoint) {
  // Moved from features_test.
  auto snap = Snap(ReadFixture("basic.hlo"));
  SemanticTokens tokens = SemanticTokensFull(*snap);
  ASSERT_EQ(tokens.data.size() % 5, 0u);
  ASSERT_FALSE(tokens.data.empty());
  uint32_t line = 0, ch = 0, prev_end = 0;
  for (size_t i = 0; i < tokens.data.size(); i += 5) {
    if (tokens.data[i] > 0) {
      line += tokens.data[i];
      ch = tokens.data[i + 1];
      prev_end = 0;
    } else {
      ch += tokens.data[i + 1];
      EXPECT_GE(ch, prev_end) << "overlap at line " << line;
    }
    prev_end = ch + tokens.data[i + 2];
  }
}

TEST(SemanticTokensTest, Legend) {
  std::vector<std::string> types(SemanticTokenTypes().begin(),
                                 SemanticTokenTypes().end());
  EXPECT_EQ(types, (std::vector<std::string>{"namespace", "function",
                                             "variable", "parameter", "type",
                                             "keyword", "property"}));
  ASSERT_EQ(SemanticTokenModifiers().size(), 1u);
  EXPECT_STREQ(SemanticTokenModifiers()[0], "declaration");
}

}  // namespace
}  // namespace hlo_lsp
