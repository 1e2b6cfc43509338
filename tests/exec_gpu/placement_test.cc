// Which ops the GPU backend runs on the device and which go to the CPU
// evaluator (host logic; runs without a GPU in CUDA builds).
#ifdef HLO_LSP_WITH_CUDA

#include "exec/gpu/placement.h"

#include <map>

#include "exec/evaluator_internal.h"
#include "gpu_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec::gpu {
namespace {

constexpr char kModule[] = R"(HloModule m

add_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

weird {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  t = f32[] multiply(x, x)
  ROOT s = f32[] add(t, y)
}

less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}

ENTRY e {
  a = f32[4,8] parameter(0)
  i = s32[4,8] parameter(1)
  c = c64[4] parameter(2)
  w = f32[8,3] parameter(3)
  add = f32[4,8] add(a, a)
  exp = f32[4,8] exponential(a)
  iexp = s32[4,8] not(i)
  ishift = s32[4,8] shift-left(i, i)
  fshift = f32[4,8] cosine(a)
  cneg = c64[4] negate(c)
  cmp = pred[4,8] compare(a, a), direction=GT
  sel = f32[4,8] select(cmp, a, add)
  zero = f32[] constant(0)
  sum = f32[4] reduce(a, zero), dimensions={1}, to_apply=add_f32
  odd = f32[4] reduce(a, zero), dimensions={1}, to_apply=weird
  srt = f32[4,8] sort(a), dimensions={1}, to_apply=less
  dot = f32[4,3] dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  idot = s32[4,4] dot(i, i), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  tr = f32[8,4] transpose(a), dimensions={1,0}
  bc = f32[2,4,8] broadcast(a), dimensions={1,2}
  sl = f32[2,4] slice(a), slice={[0:4:2], [2:6]}
  cv = bf16[4,8] convert(a)
  io = s32[4,8] iota(), iota_dimension=1
  lay = f32[4,8]{0,1} copy(a)
  bit = f32[8,4]{0,1} bitcast(lay)
  ROOT t = (f32[4,8], f32[4,8], s32[4,8], s32[4,8], f32[4,8], c64[4], f32[4,8],
            f32[4], f32[4], f32[4,8], f32[4,3], s32[4,4], f32[8,4], f32[2,4,8],
            f32[2,4], bf16[4,8], s32[4,8], f32[8,4]{0,1})
      tuple(add, exp, iexp, ishift, fshift, cneg, sel, sum, odd, srt, dot, idot,
            tr, bc, sl, cv, io, bit)
}
)";

class PlacementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    parsed_ = testing::ParseModule(kModule);
    ASSERT_FALSE(parsed_.file->HasErrors());
    auto plan = BuildPlan(*parsed_.file, parsed_.file->modules[0].entry);
    ASSERT_TRUE(plan.ok()) << plan.status();
    plan_ = *std::move(plan);
    for (Id c = 0; c < parsed_.file->computations.size(); ++c) {
      auto p = BuildPlan(*parsed_.file, c);
      ASSERT_TRUE(p.ok());
      plans_[std::string(parsed_.file->Name(parsed_.file->computations[c]))] =
          *std::move(p);
    }
  }
  // HostReason of the entry instruction `name`.
  std::string Reason(std::string_view name) {
    for (const Node& node : plan_->nodes) {
      if (parsed_.file->Name(parsed_.file->instructions[node.id]) != name)
        continue;
      std::vector<const LiteralShape*> operands;
      for (int o : node.operands) operands.push_back(&plan_->nodes[o].shape);
      const Plan* reducer = nullptr;
      if (node.Call("to_apply") != kNone) {
        std::string callee(parsed_.file->Name(
            parsed_.file->computations[node.Call("to_apply")]));
        reducer = plans_[callee].get();
      }
      return HostReason(node, operands, reducer);
    }
    ADD_FAILURE() << "no instruction " << name;
    return "?";
  }
  testing::Parsed parsed_;
  std::unique_ptr<Plan> plan_;
  std::map<std::string, std::unique_ptr<Plan>> plans_;
};

TEST_F(PlacementTest, DeviceOps) {
  for (const char* name :
       {"add", "exp", "iexp", "ishift", "fshift", "cmp", "sel", "sum", "dot",
        "tr", "bc", "sl", "cv", "io", "lay", "t", "zero"})
    EXPECT_EQ(Reason(name), "") << name;
}

TEST_F(PlacementTest, HostOpsSayWhy) {
  EXPECT_EQ(Reason("srt"), "no device kernel for sort");
  EXPECT_EQ(Reason("cneg"), "negate on c64");
  EXPECT_EQ(Reason("odd"),
            "reduce with a reducer other than add/multiply/max/min/and/or");
  EXPECT_EQ(Reason("idot"), "dot of s32 to s32");
  EXPECT_EQ(Reason("bit"), "bitcast that changes the layout or the type");
}

TEST(PlacementTypesTest, Maps) {
  EXPECT_EQ(DeviceType(PrimitiveType::kBF16), DType::kBF16);
  EXPECT_FALSE(DeviceType(PrimitiveType::kC64).has_value());
  EXPECT_FALSE(DeviceType(PrimitiveType::kS4).has_value());
  EXPECT_EQ(ElementwiseOp(Opcode::kShiftRightArithmetic), EwOp::kShrArithmetic);
  EXPECT_FALSE(ElementwiseOp(Opcode::kSort).has_value());
  EXPECT_EQ(DTypeBytes(DType::kF64), 8);
  EXPECT_EQ(DTypeBytes(DType::kPred), 1);
}

}  // namespace
}  // namespace hlo::exec::gpu

#endif  // HLO_LSP_WITH_CUDA
