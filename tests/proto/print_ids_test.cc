// The printer resolves instruction ids per computation: dense ids (ours,
// XLA's), sparse ones (a dense table would be too large) and ids repeated
// across computations (each computation sees its own) all give the same
// text.
#include <functional>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/proto/encode.h"
#include "hlo/proto/print.h"

namespace hlo::proto {
namespace {

const char kText[] =
    "HloModule m, is_scheduled=true\n"
    "%add (a: f32[], b: f32[]) -> f32[] {\n"
    "  %a = f32[] parameter(0)\n"
    "  %b = f32[] parameter(1)\n"
    "  ROOT %s = f32[] add(%a, %b)\n}\n"
    "ENTRY %e (p: f32[4], q: f32[4]) -> (f32[], f32[4]) {\n"
    "  %p = f32[4]{0} parameter(0)\n"
    "  %q = f32[4]{0} parameter(1)\n"
    "  %m = f32[4]{0} multiply(%p, %q)\n"
    "  %z = f32[] constant(0)\n"
    "  %r = f32[] reduce(%m, %z), dimensions={0}, to_apply=%add, "
    "control-predecessors={%q}\n"
    "  ROOT %t = (f32[], f32[4]{0}) tuple(%r, %m)\n}\n";

xla::HloModuleProto Encoded() {
  std::unique_ptr<ParsedFile> file = Parse(kText);
  EXPECT_FALSE(file->HasErrors());
  absl::StatusOr<xla::HloModuleProto> module = EncodeModule(*file);
  EXPECT_TRUE(module.ok()) << module.status();
  return *module;
}

// Rewrites every instruction id (and reference to one) of computation `c`.
void RenumberComputation(xla::HloModuleProto* module, int c,
                         const std::function<int64_t(int64_t)>& f) {
  auto* computation = module->mutable_computations(c);
  const int64_t old_root = computation->root_id();
  for (auto& i : *computation->mutable_instructions()) {
    i.set_id(f(i.id()));
    for (auto& o : *i.mutable_operand_ids()) o = f(o);
    for (auto& p : *i.mutable_control_predecessor_ids()) p = f(p);
  }
  computation->set_root_id(f(old_root));
  auto& sequences = *module->mutable_schedule()->mutable_sequences();
  auto it = sequences.find(computation->id());
  if (it != sequences.end()) {
    for (auto& id : *it->second.mutable_instruction_ids()) id = f(id);
  }
}

std::string PrintIdsPrint(const xla::HloModuleProto& module) {
  std::string out;
  AppendModuleText(module, PrintOptions(), &out);
  return out;
}

TEST(PrintIds, SparseAndRepeatedIdsPrintTheSame) {
  const xla::HloModuleProto module = Encoded();
  const std::string expected = PrintIdsPrint(module);
  ASSERT_NE(expected.find("to_apply=%add"), std::string::npos) << expected;
  ASSERT_NE(expected.find("control-predecessors={%q}"), std::string::npos);
  ASSERT_NE(expected.find("reduce(f32[4]{0} %m, f32[] %z)"), std::string::npos)
      << expected;

  // Sparse: ids far apart, as (computation << 32 | local) ids can be.
  xla::HloModuleProto sparse = module;
  for (int c = 0; c < sparse.computations_size(); ++c) {
    RenumberComputation(&sparse, c, [c](int64_t id) {
      return (int64_t{c + 1} << 40) + id * 1000003;
    });
  }
  EXPECT_EQ(PrintIdsPrint(sparse), expected);

  // Repeated: every computation numbers its instructions from 0, so the
  // same ids appear in both.
  xla::HloModuleProto repeated = module;
  for (int c = 0; c < repeated.computations_size(); ++c) {
    int64_t first = repeated.computations(c).instructions(0).id();
    RenumberComputation(&repeated, c,
                        [first](int64_t id) { return id - first; });
  }
  EXPECT_EQ(PrintIdsPrint(repeated), expected);
}

TEST(PrintIds, UnknownOperandIsNamedNotFatal) {
  xla::HloModuleProto module = Encoded();
  auto* entry = module.mutable_computations(module.computations_size() - 1);
  entry->mutable_instructions(2)->set_operand_ids(1, 987654321);
  const std::string text = PrintIdsPrint(module);
  EXPECT_NE(text.find("%unknown.operand.987654321"), std::string::npos) << text;
}

}  // namespace
}  // namespace hlo::proto
