// Modules and inputs shared by the NaN-origin tests of the CPU evaluator
// (tests/exec/nonfinite_origin_test.cc) and of the GPU backend
// (tests/exec_gpu/nonfinite_origin_gpu_test.cc), so that both hold their
// backend to the same cases. Shapes are written f32[N]; Sized() sets N.
#ifndef HLO_LSP_TESTS_EXEC_NONFINITE_MODULES_H_
#define HLO_LSP_TESTS_EXEC_NONFINITE_MODULES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "exec/literal.h"

namespace hlo::exec::testing {

inline std::string Sized(std::string text, int64_t n) {
  const std::string dims = "[" + std::to_string(n) + "]";
  for (size_t at = text.find("[N]"); at != std::string::npos;
       at = text.find("[N]", at))
    text.replace(at, 3, dims);
  return text;
}

// n f32 values in [lo, hi), every one different, in a scrambled order.
inline Value Ramp(int64_t n, double lo, double hi) {
  auto lit = Literal::CreateArray(PrimitiveType::kF32, {n});
  for (int64_t i = 0; i < n; ++i)
    lit->SetDouble(i, lo + (hi - lo) * static_cast<double>((i * 7919) % n) / n);
  return std::make_shared<const Literal>(*std::move(lit));
}

// log(a - b) in the middle of a fusion, carried to its result by multiply
// and add: a NaN made there reaches the fusion's result.
inline constexpr std::string_view kNanReachingTheResult =
    "HloModule m\n\n"
    "fused {\n  x = f32[N] parameter(0)\n  y = f32[N] parameter(1)\n"
    "  d = f32[N] subtract(x, y)\n  l = f32[N] log(d)\n"
    "  m = f32[N] multiply(l, x)\n  ROOT r = f32[N] add(m, y)\n}\n\n"
    "ENTRY e {\n  a = f32[N] parameter(0)\n  b = f32[N] parameter(1)\n"
    "  s = f32[N] add(a, b)\n"
    "  f = f32[N] fusion(s, b), kind=kLoop, calls=fused\n"
    "  ROOT t = f32[N] tanh(f)\n}\n";

// 0/0 (named q) whose NaN a compare and select drop: the result is finite.
inline constexpr std::string_view kNanThatTheResultDrops =
    "HloModule m\n\n"
    "fused {\n  x = f32[N] parameter(0)\n  y = f32[N] parameter(1)\n"
    "  z = f32[] constant(0)\n  zb = f32[N] broadcast(z), dimensions={}\n"
    "  m = f32[N] multiply(x, zb)\n  q = f32[N] divide(m, m)\n"
    "  c = pred[N] compare(q, y), direction=LT\n"
    "  ROOT r = f32[N] select(c, x, y)\n}\n\n"
    "ENTRY e {\n  a = f32[N] parameter(0)\n  b = f32[N] parameter(1)\n"
    "  ROOT f = f32[N] fusion(a, b), kind=kLoop, calls=fused\n}\n";

// A while loop of three iterations over a fusion of x - 0.4 and `root_line`
// (which takes the log of d): for x in [1, 2) the first iteration is finite
// and the second makes the first NaN.
inline std::string NanInALoopsSecondIteration(std::string_view root_line) {
  return "HloModule m\n\n"
         "fused {\n  x = f32[N] parameter(0)\n  k = f32[] constant(0.4)\n"
         "  kb = f32[N] broadcast(k), dimensions={}\n"
         "  d = f32[N] subtract(x, kb)\n  " +
         std::string(root_line) +
         "\n}\n\n"
         "cond {\n  s = (s32[], f32[N]) parameter(0)\n"
         "  i = s32[] get-tuple-element(s), index=0\n  n = s32[] constant(3)\n"
         "  ROOT lt = pred[] compare(i, n), direction=LT\n}\n\n"
         "body {\n  s = (s32[], f32[N]) parameter(0)\n"
         "  i = s32[] get-tuple-element(s), index=0\n"
         "  x = f32[N] get-tuple-element(s), index=1\n"
         "  one = s32[] constant(1)\n"
         "  j = s32[] add(i, one)\n"
         "  f = f32[N] fusion(x), kind=kLoop, calls=fused\n"
         "  ROOT t = (s32[], f32[N]) tuple(j, f)\n}\n\n"
         "ENTRY e {\n  a = f32[N] parameter(0)\n  z = s32[] constant(0)\n"
         "  t = (s32[], f32[N]) tuple(z, a)\n"
         "  w = (s32[], f32[N]) while(t), condition=cond, body=body\n"
         "  ROOT r = f32[N] get-tuple-element(w), index=1\n}\n";
}

}  // namespace hlo::exec::testing

#endif  // HLO_LSP_TESTS_EXEC_NONFINITE_MODULES_H_
