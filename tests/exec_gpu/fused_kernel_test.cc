// Fused elementwise kernels (exec/gpu/fused_codegen.h, exec/gpu/nvrtc.h).
// Without a GPU: the generated source of every supported op on every
// element type compiles with NVRTC (skipped only when libnvrtc cannot be
// opened), and fusions the generator cannot take are declined naming the
// op. On a GPU (skipped without): fused results equal the CPU evaluator's
// on inputs full of edge values (NaN, inf, -0, subnormals, integer
// extremes, zero divisors, shifts past the width): bit for bit, except the
// transcendental float ops, which agree within a few units in the last place.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "exec/element.h"
#include "exec/evaluator_internal.h"
#include "exec/gpu/fused_codegen.h"
#include "exec/gpu/nvrtc.h"
#include "exec/platform.h"
#include "exec/strings.h"
#include "gpu_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec::gpu {
namespace {

using P = PrimitiveType;

const P kTypes[] = {P::kPred, P::kS8,  P::kS16,  P::kS32, P::kS64,
                    P::kU8,   P::kU16, P::kU32,  P::kU64, P::kF16,
                    P::kBF16, P::kF32, P::kF64};

bool IsFloatType(P t) {
  return t == P::kF16 || t == P::kBF16 || t == P::kF32 || t == P::kF64;
}
bool IsSignedType(P t) {
  return t == P::kS8 || t == P::kS16 || t == P::kS32 || t == P::kS64;
}

// Ops whose f32/f64 results may differ in the last places between the
// CPU's libm and vector_math and CUDA's math library.
const std::set<std::string> kApproximate = {
    "exponential", "exponential-minus-one", "log",   "log-plus-one", "cbrt",
    "sine",        "cosine",                "tan",   "tanh",         "atan",
    "acos",        "asin",                  "acosh", "asinh",        "atanh",
    "cosh",        "sinh",                  "erf",   "logistic",     "power",
    "atan2"};

struct TypeModule {
  std::string text;
  std::vector<std::string> labels;  // per tuple element: the op it holds
};

// A module whose fusion `fused` applies every op the generator takes for
// `t` (each on parameters a, b, c of n elements, pred p and scalar s) and
// returns all results as one tuple.
TypeModule MakeTypeModule(P t, int64_t n) {
  const std::string ty(PrimitiveTypeName(t));
  const std::string arr = Cat(ty, "[", n, "]");
  const std::string pred = Cat("pred[", n, "]");
  std::vector<std::string> lines, names, shapes;
  TypeModule m;
  int next = 0;
  auto add = [&](const std::string& label, const std::string& shape,
                 const std::string& rhs) {
    const std::string name = Cat("r", next++);
    lines.push_back(Cat("  ", name, " = ", shape, " ", rhs));
    names.push_back(name);
    shapes.push_back(shape);
    m.labels.push_back(label);
  };
  std::vector<std::string> unary, binary;
  if (IsFloatType(t)) {
    unary = {"abs", "negate", "exponential", "exponential-minus-one", "log",
             "log-plus-one", "sqrt", "rsqrt", "cbrt", "sine", "cosine", "tan",
             "tanh", "atan", "acos", "asin", "acosh", "asinh", "atanh", "cosh",
             "sinh", "erf", "logistic", "floor", "ceil", "round-nearest-afz",
             "round-nearest-even", "sign", "real", "imag"};
    binary = {"add", "subtract", "multiply", "divide", "remainder", "maximum",
              "minimum", "power", "atan2"};
  } else if (t == P::kPred) {
    unary = {"not"};
    binary = {"and", "or", "xor", "maximum", "minimum", "multiply", "add"};
  } else {
    unary = {"abs", "negate", "sign", "not", "popcnt", "count-leading-zeros"};
    binary = {"add", "subtract", "multiply", "divide", "remainder", "maximum",
              "minimum", "power", "and", "or", "xor", "shift-left",
              "shift-right-logical", "shift-right-arithmetic"};
  }
  for (const std::string& op : unary) add(op, arr, Cat(op, "(a)"));
  for (const std::string& op : binary) add(op, arr, Cat(op, "(a, b)"));
  for (const char* dir : {"EQ", "NE", "GE", "GT", "LE", "LT"}) {
    add("compare", pred, Cat("compare(a, b), direction=", dir));
    if (IsFloatType(t))
      add("compare", pred,
          Cat("compare(a, b), direction=", dir, ", type=TOTALORDER"));
  }
  add("select", arr, "select(p, a, b)");
  add("clamp", arr, "clamp(a, b, c)");
  if (IsFloatType(t)) add("is-finite", pred, "is-finite(a)");
  for (P to : kTypes)
    add("convert", Cat(PrimitiveTypeName(to), "[", n, "]"), "convert(a)");
  // Scalars: a parameter of one element, a constant, broadcasts of both;
  // reshape and copy.
  const char* k = IsFloatType(t)    ? "-2.5"
                  : t == P::kPred   ? "true"
                  : IsSignedType(t) ? "-3"
                                    : "7";
  lines.push_back(Cat("  k = ", ty, "[] constant(", k, ")"));
  lines.push_back(Cat("  kb = ", arr, " broadcast(k), dimensions={}"));
  lines.push_back(Cat("  sb = ", arr, " broadcast(s), dimensions={}"));
  add("select", arr, "select(p, kb, sb)");
  lines.push_back(Cat("  rs = ", ty, "[2,", n / 2, "] reshape(c)"));
  lines.push_back(Cat("  cp = ", ty, "[2,", n / 2, "] copy(rs)"));
  add("reshape", arr, "reshape(cp)");
  std::string text = Cat("HloModule m_", ty, "\n\nfused {\n  a = ", arr,
                         " parameter(0)\n  b = ", arr, " parameter(1)\n  c = ",
                         arr, " parameter(2)\n  p = ", pred,
                         " parameter(3)\n  s = ", ty, "[] parameter(4)\n");
  for (const std::string& l : lines) text += l + "\n";
  std::string tuple_shape = "(", tuple_args;
  for (size_t i = 0; i < names.size(); ++i) {
    tuple_shape += Cat(i ? ", " : "", shapes[i]);
    tuple_args += Cat(i ? ", " : "", names[i]);
  }
  tuple_shape += ")";
  text += Cat("  ROOT t = ", tuple_shape, " tuple(", tuple_args, ")\n}\n\n",
              "ENTRY e {\n  a = ", arr, " parameter(0)\n  b = ", arr,
              " parameter(1)\n  c = ", arr, " parameter(2)\n  p = ", pred,
              " parameter(3)\n  s = ", ty, "[] parameter(4)\n  ROOT f = ",
              tuple_shape,
              " fusion(a, b, c, p, s), kind=kLoop, calls=fused\n}\n");
  m.text = std::move(text);
  return m;
}

// The plan of computation `name` of `text`.
struct Planned {
  testing::Parsed parsed;
  std::unique_ptr<Plan> plan;
};
Planned PlanOf(std::string text, std::string_view name = "fused") {
  Planned p{testing::ParseModule(std::move(text)), nullptr};
  EXPECT_FALSE(p.parsed.file->HasErrors()) << p.parsed.text;
  const ParsedFile& f = *p.parsed.file;
  for (Id c = 0; c < f.computations.size(); ++c) {
    if (f.Name(f.computations[c]) != name) continue;
    auto plan = BuildPlan(f, c);
    EXPECT_TRUE(plan.ok()) << plan.status();
    if (plan.ok()) p.plan = *std::move(plan);
  }
  EXPECT_NE(p.plan, nullptr) << "no computation " << name;
  return p;
}

TEST(FusedCodegenTest, EveryOpOnEveryTypeCompilesWithNvrtc) {
  auto version = NvrtcVersion();
  if (!version.ok()) GTEST_SKIP() << version.status().message();
  for (P t : kTypes) {
    const TypeModule m = MakeTypeModule(t, 64);
    Planned p = PlanOf(m.text);
    ASSERT_NE(p.plan, nullptr);
    auto src = GenerateFusedKernel(*p.plan);
    ASSERT_TRUE(src.ok()) << PrimitiveTypeName(t) << ": " << src.status();
    EXPECT_EQ(src->elements, 64);
    EXPECT_EQ(src->parameters, 5);
    EXPECT_EQ(src->results, static_cast<int>(m.labels.size()));
    auto ptx = CompileToPtx(src->source);
    ASSERT_TRUE(ptx.ok()) << PrimitiveTypeName(t) << ": " << ptx.status();
    EXPECT_TRUE(absl::StrContains(*ptx, Cat(".entry ", kFusedKernelName)))
        << PrimitiveTypeName(t);
  }
}

TEST(FusedCodegenTest, CompileErrorsCarryNvrtcsLog) {
  auto version = NvrtcVersion();
  if (!version.ok()) GTEST_SKIP() << version.status().message();
  auto ptx = CompileToPtx("extern \"C\" __global__ void k() { undeclared(); }");
  ASSERT_FALSE(ptx.ok());
  EXPECT_EQ(ptx.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(ptx.status().message(), "undeclared"))
      << ptx.status();
}

TEST(FusedCodegenTest, DeclinesWhatItCannotFuseNamingTheOp) {
  struct Case {
    const char* body;
    const char* want;  // in the message
  };
  const Case cases[] = {
      {"  a = f32[4,8] parameter(0)\n"
       "  ROOT t = f32[8,4] transpose(a), dimensions={1,0}",
       "no fused kernel for transpose"},
      {"  a = f32[8] parameter(0)\n"
       "  b = f32[4,8] broadcast(a), dimensions={1}\n"
       "  ROOT n = f32[4,8] negate(b)",
       "no fused kernel for broadcast"},
      {"  a = c64[8] parameter(0)\n  ROOT n = c64[8] negate(a)",
       "no fused kernel for parameter: c64 values"},
      {"  a = f32[3] parameter(0)\n"
       "  k = f32[3] constant({1, 2, 3})\n  ROOT s = f32[3] add(a, k)",
       "no fused kernel for constant"},
      {"  a = s32[8] parameter(0)\n  ROOT e = s32[8] exponential(a)",
       "no fused kernel for exponential: not defined for s32"},
      {"  a = f32[8] parameter(0)\n  ROOT c = f32[8] popcnt(a)",
       "no fused kernel for popcnt: not defined for f32"},
      {"  a = f32[8] parameter(0)\n  b = f32[4] parameter(1)\n"
       "  ROOT t = (f32[8], f32[4]) tuple(a, b)",
       "results of different sizes"},
      {"  a = f32[8] parameter(0)\n  ROOT s = f32[4] slice(a), slice={[0:4]}",
       "no fused kernel for slice: an operand of f32[8]"},
  };
  for (const Case& c : cases) {
    Planned p = PlanOf(Cat("HloModule d\n\nfused {\n", c.body, "\n}\n"));
    ASSERT_NE(p.plan, nullptr) << c.body;
    auto src = GenerateFusedKernel(*p.plan);
    ASSERT_FALSE(src.ok()) << c.body;
    EXPECT_EQ(src.status().code(), absl::StatusCode::kUnimplemented);
    EXPECT_TRUE(absl::StrContains(src.status().message(), c.want))
        << src.status() << " (want: " << c.want << ")";
  }
}

TEST(FusedCodegenTest, MissingNvrtcIsAClearError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("HLO_LSP_NVRTC", "/nonexistent/libnvrtc.so.0", 1);
        auto v = NvrtcVersion();
        std::exit(!v.ok() &&
                          absl::StartsWith(v.status().message(),
                                           "NVRTC not found: ") &&
                          absl::StrContains(v.status().message(),
                                            "/nonexistent/libnvrtc.so.0")
                      ? 0
                      : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(FusedCodegenTest, NvrtcIsNotMappedAtStart) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::ifstream maps("/proc/self/maps");
        std::string text((std::istreambuf_iterator<char>(maps)),
                         std::istreambuf_iterator<char>());
        std::exit(text.find("libnvrtc") == std::string::npos ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace hlo::exec::gpu
