// exec/vector_math.h against the std:: functions evaluated in double and
// rounded to f32, on every ISA this CPU runs: a sweep over bit patterns of
// the whole float line (both signs, subnormals included) with the largest
// error in ulp asserted per function, and the IEEE edge cases exactly.
// Also: the evaluator's exponential on f32, bf16 and f16 arrays uses them.
#include "exec/vector_math.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "exec_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kMinNormal = std::numeric_limits<float>::min();
constexpr float kMinSub = std::numeric_limits<float>::denorm_min();

double Reference(VecFn f, double x) {
  switch (f) {
    case VecFn::kExp:
      return std::exp(x);
    case VecFn::kExpm1:
      return std::expm1(x);
    case VecFn::kLog:
      return std::log(x);
    case VecFn::kLog1p:
      return std::log1p(x);
    case VecFn::kTanh:
      return std::tanh(x);
    case VecFn::kLogistic:
      return 1.0 / (1.0 + std::exp(-x));
    case VecFn::kSqrt:
      return std::sqrt(x);
    case VecFn::kRsqrt:
      return 1.0 / std::sqrt(x);
  }
  return 0;
}

const char* Name(VecFn f) {
  switch (f) {
    case VecFn::kExp:
      return "exp";
    case VecFn::kExpm1:
      return "expm1";
    case VecFn::kLog:
      return "log";
    case VecFn::kLog1p:
      return "log1p";
    case VecFn::kTanh:
      return "tanh";
    case VecFn::kLogistic:
      return "logistic";
    case VecFn::kSqrt:
      return "sqrt";
    case VecFn::kRsqrt:
      return "rsqrt";
  }
  return "?";
}

// Distance in representable floats (0 when equal, also +0 vs -0).
int64_t UlpDistance(float a, float b) {
  auto key = [](float v) {
    const int32_t i = std::bit_cast<int32_t>(v);
    return i < 0 ? -static_cast<int64_t>(i & 0x7fffffff) : int64_t{i};
  };
  const int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}

struct Bound {
  VecFn f;
  int64_t max_ulp;
};
// Cephes-style accuracy: the reduced-range polynomials are within 1 ulp;
// the composed functions add a rounding or two.
const Bound kBounds[] = {
    {VecFn::kExp, 2},   {VecFn::kExpm1, 3}, {VecFn::kLog, 2},
    {VecFn::kLog1p, 3}, {VecFn::kTanh, 3},  {VecFn::kLogistic, 3},
    {VecFn::kSqrt, 0},  {VecFn::kRsqrt, 1},
};

std::vector<float> SweepInputs() {
  std::vector<float> xs;
  // Every 2^32 / ~1.3M bit pattern (an odd stride visits varied mantissas),
  // skipping NaNs; plus a dense sweep of [-2, 2] where the polynomials
  // and the cancellations live.
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 3229) {
    const float v = std::bit_cast<float>(static_cast<uint32_t>(b));
    if (!std::isnan(v)) xs.push_back(v);
  }
  for (int i = -200000; i <= 200000; ++i) xs.push_back(i * 1e-5f);
  return xs;
}

TEST(VecMath, WithinUlpBoundOfStdOnEveryIsa) {
  const std::vector<float> xs = SweepInputs();
  std::vector<float> ys(xs.size());
  for (const Bound& bound : kBounds) {
    std::vector<float> ref(xs.size());
    for (size_t i = 0; i < xs.size(); ++i)
      ref[i] = static_cast<float>(Reference(bound.f, xs[i]));
    for (int isa = 0; isa <= 2; ++isa) {
      if (!VecMathF32OnIsa(isa, bound.f, xs.data(), ys.data(),
                           static_cast<int64_t>(xs.size())))
        continue;
      int64_t worst = 0;
      float worst_x = 0;
      for (size_t i = 0; i < xs.size(); ++i) {
        if (std::isnan(ref[i])) {
          ASSERT_TRUE(std::isnan(ys[i]))
              << Name(bound.f) << "(" << xs[i] << ") isa " << isa << " gave "
              << ys[i];
          continue;
        }
        const int64_t d = UlpDistance(ys[i], ref[i]);
        if (d > worst) {
          worst = d;
          worst_x = xs[i];
        }
      }
      EXPECT_LE(worst, bound.max_ulp)
          << Name(bound.f) << " isa " << isa << ": worst at x = " << worst_x;
    }
  }
}

struct Edge {
  VecFn f;
  float x, want;
};

TEST(VecMath, EdgeCasesExactly) {
  const Edge edges[] = {
      {VecFn::kExp, 0.0f, 1.0f},
      {VecFn::kExp, -0.0f, 1.0f},
      {VecFn::kExp, kInf, kInf},
      {VecFn::kExp, -kInf, 0.0f},
      {VecFn::kExp, 89.0f, kInf},  // overflow
      {VecFn::kExp, 1e30f, kInf},
      {VecFn::kExp, -104.0f, 0.0f},  // underflow
      {VecFn::kExp, -1e30f, 0.0f},
      {VecFn::kExp, kMinSub, 1.0f},
      {VecFn::kExpm1, 0.0f, 0.0f},
      {VecFn::kExpm1, -0.0f, -0.0f},
      {VecFn::kExpm1, kInf, kInf},
      {VecFn::kExpm1, -kInf, -1.0f},
      {VecFn::kExpm1, 89.0f, kInf},
      {VecFn::kExpm1, -50.0f, -1.0f},
      {VecFn::kExpm1, kMinSub, kMinSub},
      {VecFn::kExpm1, -kMinNormal, -kMinNormal},
      {VecFn::kLog, 1.0f, 0.0f},
      {VecFn::kLog, 0.0f, -kInf},
      {VecFn::kLog, -0.0f, -kInf},
      {VecFn::kLog, kInf, kInf},
      {VecFn::kLog1p, 0.0f, 0.0f},
      {VecFn::kLog1p, -0.0f, -0.0f},
      {VecFn::kLog1p, -1.0f, -kInf},
      {VecFn::kLog1p, kInf, kInf},
      {VecFn::kLog1p, kMinSub, kMinSub},
      {VecFn::kTanh, 0.0f, 0.0f},
      {VecFn::kTanh, -0.0f, -0.0f},
      {VecFn::kTanh, kInf, 1.0f},
      {VecFn::kTanh, -kInf, -1.0f},
      {VecFn::kTanh, 20.0f, 1.0f},
      {VecFn::kTanh, kMinSub, kMinSub},
      {VecFn::kTanh, -kMinSub, -kMinSub},
      {VecFn::kLogistic, 0.0f, 0.5f},
      {VecFn::kLogistic, kInf, 1.0f},
      {VecFn::kLogistic, -kInf, 0.0f},
      {VecFn::kSqrt, -0.0f, -0.0f},
      {VecFn::kSqrt, kInf, kInf},
      {VecFn::kRsqrt, 0.0f, kInf},
      {VecFn::kRsqrt, kInf, 0.0f},
  };
  for (int isa = 0; isa <= 2; ++isa) {
    for (const Edge& e : edges) {
      float y = 12345.0f;
      if (!VecMathF32OnIsa(isa, e.f, &e.x, &y, 1)) continue;
      EXPECT_EQ(std::bit_cast<uint32_t>(y), std::bit_cast<uint32_t>(e.want))
          << Name(e.f) << "(" << e.x << ") isa " << isa << " = " << y
          << ", want " << e.want;
    }
  }
}

TEST(VecMath, NanInNanOut) {
  const VecFn all[] = {VecFn::kExp,   VecFn::kExpm1, VecFn::kLog,
                       VecFn::kLog1p, VecFn::kTanh,  VecFn::kLogistic,
                       VecFn::kSqrt,  VecFn::kRsqrt};
  const float nans[] = {kNaN, -kNaN, std::bit_cast<float>(0x7f800001u),
                        std::bit_cast<float>(0xffc12345u)};
  for (int isa = 0; isa <= 2; ++isa) {
    for (VecFn f : all) {
      for (float x : nans) {
        float y = 0;
        if (!VecMathF32OnIsa(isa, f, &x, &y, 1)) continue;
        EXPECT_TRUE(std::isnan(y)) << Name(f) << " isa " << isa;
      }
    }
    // Out of domain.
    const float neg = -1.5f;
    float y = 0;
    if (!VecMathF32OnIsa(isa, VecFn::kLog, &neg, &y, 1)) continue;
    EXPECT_TRUE(std::isnan(y));
    VecMathF32OnIsa(isa, VecFn::kLog1p, &neg, &y, 1);
    EXPECT_TRUE(std::isnan(y));
    VecMathF32OnIsa(isa, VecFn::kSqrt, &neg, &y, 1);
    EXPECT_TRUE(std::isnan(y));
  }
}

TEST(VecMath, ArraysOfOddLengthsMatchElementByElement) {
  // Vector bodies and scalar tails agree.
  for (int64_t n : {0, 1, 7, 15, 16, 17, 33, 1000}) {
    std::vector<float> x(n), y(n), one(1);
    for (int64_t i = 0; i < n; ++i) x[i] = -20.0f + 0.37f * i;
    VecMathF32(VecFn::kExp, x.data(), y.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      VecMathF32(VecFn::kExp, &x[i], one.data(), 1);
      EXPECT_EQ(y[i], one[0]) << "n = " << n << ", i = " << i;
    }
  }
}

// The evaluator routes f32, bf16 and f16 exponential (and friends)
// through these functions; narrow types compute in f32 and round once.
TEST(VecMath, EvaluatorUsesThemForNarrowFloats) {
  for (const char* type : {"f32", "bf16", "f16"}) {
    for (const char* op :
         {"exponential", "log", "tanh", "logistic", "exponential-minus-one",
          "log-plus-one", "rsqrt", "sqrt"}) {
      const std::string t = type;
      const std::string text = "HloModule m\nENTRY e {\n  p = " + t +
                               "[5] parameter(0)\n  ROOT r = " + t + "[5] " +
                               op + "(p)\n}\n";
      const std::vector<double> in = {0.5, 1.0, 2.0, 3.0, 0.25};
      auto out = testing::RunHlo(
          text, {testing::Array(t == "f32"    ? PrimitiveType::kF32
                                : t == "bf16" ? PrimitiveType::kBF16
                                              : PrimitiveType::kF16,
                                {5}, in)});
      ASSERT_TRUE(out.ok()) << out.status();
      const std::vector<double> got = testing::Values(**out);
      const double tol = t == "f32" ? 1e-6 : t == "bf16" ? 1e-2 : 2e-3;
      for (size_t i = 0; i < in.size(); ++i) {
        const std::string o = op;
        const double x = in[i];
        const double want = o == "exponential" ? std::exp(x)
                            : o == "log"       ? std::log(x)
                            : o == "tanh"      ? std::tanh(x)
                            : o == "logistic"  ? 1 / (1 + std::exp(-x))
                            : o == "exponential-minus-one" ? std::expm1(x)
                            : o == "log-plus-one"          ? std::log1p(x)
                            : o == "rsqrt"                 ? 1 / std::sqrt(x)
                                                           : std::sqrt(x);
        EXPECT_NEAR(got[i], want, tol * std::max(1.0, std::fabs(want)))
            << type << " " << op << "(" << x << ")";
      }
    }
  }
}

}  // namespace
}  // namespace hlo::exec
