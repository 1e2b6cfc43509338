// callHierarchy: prepare on a computation name, a reference or a body, and
// the incoming/outgoing calls grouped by computation with the exact ranges
// of the references.
#include "gtest/gtest.h"
#include "server/features/features.h"
#include "tests/server/annotations.h"
#include "tests/server/feature_fixture.h"

namespace hlo_lsp {
namespace {

std::string Item(const CallHierarchyItem& i) {
  return i.name + " " + std::to_string(static_cast<int>(i.kind)) + " '" +
         i.detail + "' " + i.uri + " " + Show(i.range) + " " +
         Show(i.selection_range);
}

std::string Items(const std::vector<CallHierarchyItem>& items) {
  std::string out;
  for (const CallHierarchyItem& i : items) out += Item(i) + "\n";
  return out;
}

std::string Calls(const std::vector<CallHierarchyCall>& calls) {
  std::string out;
  for (const CallHierarchyCall& c : calls)
    out += Item(c.item) + " from " + Show(c.from_ranges) + "\n";
  return out;
}

constexpr char kCallHierarchyModule[] = R"(HloModule m

$add[[%$add_name[[a$on_name^dd]] (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}]]
^
$neg[[%$neg_name[[neg]] (v: f32[]) -> f32[] {
  %v = f32[] parameter(0)
  %z = f32[] constant(0)
  ROOT %n = f32[] reduce(%v, %z), dimensions={}, to_apply=%$neg_calls_add[[add]]
}]]

$main[[ENTRY %$main_name[[main]] (p: f32[4]) -> f32[] {
  %p = f32[4]{0} parameter(0)
  %zero = f32[] $in_body^constant(0)
  %r = f32[] reduce(%p, %zero), dimensions={0}, to_apply=%$main_calls_add[[a$on_ref^dd]]
  %c1 = f32[] call(%r), to_apply=$main_calls_neg[[neg]]
  ROOT %c2 = f32[] call(%c1), to_apply=%$main_calls_neg[[neg]]
}]]
)";

struct Fixture {
  Annotations a{kCallHierarchyModule};
  std::shared_ptr<const Snapshot> snap = Snap(a);
  std::string ItemFor(const std::string& mark,
                      const std::string& detail = "") const {
    return mark + " 12 '" + detail + "' " + kFixtureUri + " " +
           Show(a.range(mark)) + " " + Show(a.range(mark + "_name"));
  }
};

TEST(CallHierarchyTest, PrepareOnNameReferenceOrBody) {
  Fixture f;
  EXPECT_EQ(Items(PrepareCallHierarchy(*f.snap, f.a.point("on_name"))),
            f.ItemFor("add") + "\n");
  EXPECT_EQ(Items(PrepareCallHierarchy(*f.snap, f.a.point("on_ref"))),
            f.ItemFor("add") + "\n");
  EXPECT_EQ(Items(PrepareCallHierarchy(*f.snap, f.a.point("in_body"))),
            f.ItemFor("main", "ENTRY") + "\n");
  // Between computations: nothing.
  EXPECT_EQ(Items(PrepareCallHierarchy(*f.snap, f.a.point())), "");
}

TEST(CallHierarchyTest, IncomingCallsGroupedByCaller) {
  Fixture f;
  std::vector<CallHierarchyItem> add =
      PrepareCallHierarchy(*f.snap, f.a.point("on_name"));
  ASSERT_EQ(add.size(), 1u);
  EXPECT_EQ(Calls(IncomingCalls(*f.snap, add[0])),
            f.ItemFor("neg") + " from " + Show(f.a.ranges("neg_calls_add")) +
                "\n" + f.ItemFor("main", "ENTRY") + " from " +
                Show(f.a.ranges("main_calls_add")) + "\n");
  std::vector<CallHierarchyItem> main =
      PrepareCallHierarchy(*f.snap, f.a.point("in_body"));
  ASSERT_EQ(main.size(), 1u);
  EXPECT_EQ(Calls(IncomingCalls(*f.snap, main[0])), "");
}

TEST(CallHierarchyTest, OutgoingCallsGroupedByCallee) {
  Fixture f;
  std::vector<CallHierarchyItem> main =
      PrepareCallHierarchy(*f.snap, f.a.point("in_body"));
  ASSERT_EQ(main.size(), 1u);
  EXPECT_EQ(Calls(OutgoingCalls(*f.snap, main[0])),
            f.ItemFor("add") + " from " + Show(f.a.ranges("main_calls_add")) +
                "\n" + f.ItemFor("neg") + " from " +
                Show(f.a.ranges("main_calls_neg")) + "\n");
  std::vector<CallHierarchyItem> add =
      PrepareCallHierarchy(*f.snap, f.a.point("on_name"));
  ASSERT_EQ(add.size(), 1u);
  EXPECT_EQ(Calls(OutgoingCalls(*f.snap, add[0])), "");
}

TEST(CallHierarchyTest, StaleItemIsFoundByName) {
  // An item from an older version of the text: its position no longer
  // points at a computation of that name.
  Fixture f;
  CallHierarchyItem item;
  item.name = "neg";
  item.selection_range = f.a.range("add_name");
  EXPECT_EQ(Calls(IncomingCalls(*f.snap, item)),
            f.ItemFor("main", "ENTRY") + " from " +
                Show(f.a.ranges("main_calls_neg")) + "\n");
  item.name = "gone";
  EXPECT_EQ(Calls(IncomingCalls(*f.snap, item)), "");
  EXPECT_EQ(Calls(OutgoingCalls(*f.snap, item)), "");
}

TEST(CallHierarchyTest, BasicE2eFixtureWhileCondition) {
  // Moved from features_test: %cond is called by main's while.
  auto snap = Snap(ReadFixture("basic.hlo"));
  size_t at = snap->text->find("%cond,");
  ASSERT_NE(at, std::string::npos);
  std::vector<CallHierarchyItem> items = PrepareCallHierarchy(
      *snap, snap->ToPosition(static_cast<hlo::Offset>(at + 1)));
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].name, "cond");
  std::vector<CallHierarchyCall> in = IncomingCalls(*snap, items[0]);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].item.name, "main");
  ASSERT_EQ(in[0].from_ranges.size(), 1u);
  EXPECT_EQ(TextAt(*snap, in[0].from_ranges[0]), "cond");
}

}  // namespace
}  // namespace hlo_lsp
