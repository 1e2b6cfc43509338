// The hlo/query.h questions the features are built on, on annotated
// fixtures (moved here from features_test.cc with exact expectations).
#include "gtest/gtest.h"
#include "hlo/query.h"
#include "tests/server/annotations.h"
#include "tests/server/feature_fixture.h"

namespace hlo_lsp {
namespace {

constexpr char kModelQueryModule[] = R"(HloModule $module[[$on_module^m]]

%$add[[$on_add^add]] ($sig_x[[$on_sig_x^x]]: f32[], y: f32[]) -> f32[] {
  %$x[[x]] = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

ENTRY %main (p: f32[4]) -> f32[] {
  %$p[[p]] = f32[4]{0} $opcode[[par$on_opcode^ameter]](0), metadata={op_name="jit(f)/p" source_file="$file[[/tmp/m.py]]" source_line=7}
  %$zero[[zero]] = f32[] constant(0)
  %r = f32[] reduce(f32[4]{0} %$use[[$on_use^p]], zero), dimensions={0}, to_apply=%$ref[[a$on_ref^dd]]
  ROOT %out = f32[] negate(%r), control-predecessors={%$ctrl[[ze$on_ctrl^ro]]}
} $on_space^
)";

struct ModelQueryFixture {
  Annotations a{kModelQueryModule};
  std::shared_ptr<const Snapshot> snap = Snap(a);
  const hlo::ParsedFile& f = *snap->file;
  hlo::NodeAt At(const std::string& point) const {
    return hlo::FindNodeAt(f, static_cast<hlo::Offset>(a.PointOffset(point)));
  }
  hlo::Span Mark(const std::string& name) const {
    Annotations::Offsets r = a.RangeOffsets(name);
    return hlo::Span{static_cast<hlo::Offset>(r.begin),
                     static_cast<hlo::Offset>(r.end)};
  }
};

TEST(ModelQueryTest, NodeAtAndItsDefinition) {
  ModelQueryFixture x;
  struct Case {
    const char* point;
    hlo::NodeKind kind;
    const char* span;
    hlo::NodeKind def_kind;
    const char* def_span;
  };
  using K = hlo::NodeKind;
  for (const Case& c : {
           Case{"on_module", K::kModuleName, "module", K::kNone, nullptr},
           Case{"on_add", K::kComputationName, "add", K::kComputationName,
                "add"},
           Case{"on_sig_x", K::kSignatureParameter, "sig_x",
                K::kInstructionName, "x"},
           Case{"on_opcode", K::kOpcode, "opcode", K::kInstructionName, "p"},
           Case{"on_use", K::kOperand, "use", K::kInstructionName, "p"},
           Case{"on_ref", K::kComputationRef, "ref", K::kComputationName,
                "add"},
           Case{"on_ctrl", K::kControlPredecessor, "ctrl", K::kInstructionName,
                "zero"},
       }) {
    hlo::NodeAt node = x.At(c.point);
    EXPECT_EQ(node.kind, c.kind) << c.point;
    EXPECT_EQ(node.span, x.Mark(c.span)) << c.point;
    hlo::NodeAt def = hlo::DefinitionOf(x.f, node);
    EXPECT_EQ(def.kind, c.def_kind) << c.point;
    if (c.def_span != nullptr)
      EXPECT_EQ(def.span, x.Mark(c.def_span)) << c.point;
  }
  EXPECT_EQ(x.At("on_space").kind, K::kNone);
  EXPECT_EQ(hlo::FindNodeAt(x.f, 0xffffffffu).kind, K::kNone);
}

TEST(ModelQueryTest, UsersCountsAndCallers) {
  ModelQueryFixture x;
  hlo::Id main = hlo::FindComputation(x.f, "main");
  hlo::Id add = hlo::FindComputation(x.f, "add");
  ASSERT_NE(main, hlo::kNone);
  ASSERT_NE(add, hlo::kNone);
  hlo::Id zero = hlo::FindInstruction(x.f, main, "zero");
  ASSERT_NE(zero, hlo::kNone);
  // The bare operand and the control edge are uses; only the operand counts
  // as a user.
  std::vector<hlo::Use> uses = hlo::UsersOf(x.f, zero);
  ASSERT_EQ(uses.size(), 2u);
  EXPECT_EQ(uses[1].span, x.Mark("ctrl"));
  EXPECT_NE(uses[1].name_ref, hlo::kNone);
  EXPECT_EQ(hlo::UserCount(x.f, zero), 1u);
  std::vector<hlo::Id> callers = hlo::CallersOf(x.f, add);
  ASSERT_EQ(callers.size(), 1u);
  EXPECT_EQ(x.f.computation_refs[callers[0]].name, x.Mark("ref"));
  EXPECT_EQ(hlo::CalleesOf(x.f, main), callers);
  EXPECT_TRUE(hlo::CalleesOf(x.f, add).empty());
  EXPECT_EQ(hlo::ParameterNumber(x.f, hlo::FindInstruction(x.f, add, "y")), 1);
  EXPECT_EQ(hlo::ParameterNumber(x.f, zero), std::nullopt);
}

TEST(ModelQueryTest, MetadataFields) {
  ModelQueryFixture x;
  hlo::Id p = hlo::FindInstruction(x.f, hlo::FindComputation(x.f, "main"), "p");
  hlo::Span where;
  EXPECT_EQ(hlo::MetadataField(x.f, p, "op_name"), "jit(f)/p");
  EXPECT_EQ(hlo::MetadataField(x.f, p, "source_file", &where), "/tmp/m.py");
  EXPECT_EQ(where, x.Mark("file"));
  EXPECT_EQ(hlo::MetadataField(x.f, p, "source_line"), "7");
  EXPECT_EQ(hlo::MetadataField(x.f, p, "name"), "");  // op_name is not name
}

TEST(ModelQueryTest, BasicE2eFixtureCounts) {
  // Moved from features_test: users and callers in basic.hlo.
  auto snap = Snap(ReadFixture("basic.hlo"));
  const hlo::ParsedFile& f = *snap->file;
  ASSERT_FALSE(f.HasErrors());
  ASSERT_EQ(f.computations.size(), 5u);
  hlo::Id main = hlo::FindComputation(f, "main");
  EXPECT_EQ(hlo::UserCount(f, hlo::FindInstruction(f, main, "fusion")), 3u);
  hlo::Id sum = hlo::FindInstruction(f, main, "sum");
  EXPECT_EQ(hlo::UsersOf(f, sum).size(), 1u);  // the control edge
  EXPECT_EQ(hlo::UserCount(f, sum), 0u);
  EXPECT_EQ(hlo::CallersOf(f, hlo::FindComputation(f, "add_f32")).size(), 1u);
  EXPECT_EQ(hlo::CalleesOf(f, main).size(), 4u);
}

}  // namespace
}  // namespace hlo_lsp
