// Helpers of the fused-kernel tests: a module applying every op the
// generator takes to one element type, arguments full of edge values, and
// the comparison of two runs' results (bit for bit, except transcendental
// floats).
#ifndef HLO_LSP_TESTS_EXEC_GPU_FUSED_TEST_UTIL_H_
#define HLO_LSP_TESTS_EXEC_GPU_FUSED_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "exec/element.h"
#include "exec/evaluator_internal.h"
#include "exec/literal.h"
#include "exec/strings.h"
#include "gpu_test_util.h"
#include "gtest/gtest.h"
#include "hlo/primitive_type.h"

namespace hlo::exec::testing {

using P = PrimitiveType;

const P kTypes[] = {P::kPred, P::kS8,  P::kS16, P::kS32, P::kS64,
                    P::kU8,   P::kU16, P::kU32, P::kU64, P::kF16,
                    P::kBF16, P::kF32, P::kF64};

inline bool IsFloatType(P t) {
  return t == P::kF16 || t == P::kBF16 || t == P::kF32 || t == P::kF64;
}
inline bool IsSignedType(P t) {
  return t == P::kS8 || t == P::kS16 || t == P::kS32 || t == P::kS64;
}

// Ops whose f32/f64 results may differ in the last places between the
// CPU's libm and vector_math and CUDA's math library.
const std::set<std::string> kApproximate = {
    "exponential", "exponential-minus-one",
    "log",         "log-plus-one",
    "cbrt",        "sine",
    "cosine",      "tan",
    "tanh",        "atan",
    "acos",        "asin",
    "acosh",       "asinh",
    "atanh",       "cosh",
    "sinh",        "erf",
    "logistic",    "power",
    "atan2"};

struct TypeModule {
  std::string text;
  std::vector<std::string> labels;  // per tuple element: the op it holds
};

// A module whose fusion `fused` applies every op the generator takes for
// `t` (each on parameters a, b, c of n elements, pred p, scalar s and
// vector v of n / 2, n even) and returns all results as one tuple.
inline TypeModule MakeTypeModule(P t, int64_t n) {
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
    unary = {"abs",
             "negate",
             "exponential",
             "exponential-minus-one",
             "log",
             "log-plus-one",
             "sqrt",
             "rsqrt",
             "cbrt",
             "sine",
             "cosine",
             "tan",
             "tanh",
             "atan",
             "acos",
             "asin",
             "acosh",
             "asinh",
             "atanh",
             "cosh",
             "sinh",
             "erf",
             "logistic",
             "floor",
             "ceil",
             "round-nearest-afz",
             "round-nearest-even",
             "sign",
             "real",
             "imag"};
    binary = {"add",     "subtract", "multiply", "divide", "remainder",
              "maximum", "minimum",  "power",    "atan2"};
  } else if (t == P::kPred) {
    unary = {"not"};
    binary = {"and", "or", "xor", "maximum", "minimum", "multiply", "add"};
  } else {
    unary = {"abs", "negate", "sign", "not", "popcnt", "count-leading-zeros"};
    binary = {"add",
              "subtract",
              "multiply",
              "divide",
              "remainder",
              "maximum",
              "minimum",
              "power",
              "and",
              "or",
              "xor",
              "shift-left",
              "shift-right-logical",
              "shift-right-arithmetic"};
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
  // Broadcasts of a vector parameter along either dim, iota along either.
  const std::string half = Cat(ty, "[2,", n / 2, "]"),
                    flip = Cat(ty, "[", n / 2, ",2]");
  lines.push_back(Cat("  b1 = ", half, " broadcast(v), dimensions={1}"));
  lines.push_back(Cat("  b0 = ", flip, " broadcast(v), dimensions={0}"));
  lines.push_back(Cat("  i1 = ", half, " iota(), iota_dimension=1"));
  lines.push_back(Cat("  i0 = ", half, " iota(), iota_dimension=0"));
  for (const char* x : {"b1", "b0"})
    add("broadcast", arr, Cat("reshape(", x, ")"));
  for (const char* x : {"i1", "i0"}) add("iota", arr, Cat("reshape(", x, ")"));
  std::string text =
      Cat("HloModule m_", ty, "\n\nfused {\n  a = ", arr,
          " parameter(0)\n  b = ", arr, " parameter(1)\n  c = ", arr,
          " parameter(2)\n  p = ", pred, " parameter(3)\n  s = ", ty,
          "[] parameter(4)\n  v = ", ty, "[", n / 2, "] parameter(5)\n");
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
              " parameter(3)\n  s = ", ty, "[] parameter(4)\n  v = ", ty, "[",
              n / 2, "] parameter(5)\n  ROOT f = ", tuple_shape,
              " fusion(a, b, c, p, s, v), kind=kLoop, calls=fused\n}\n");
  m.text = std::move(text);
  return m;
}

// The plan of computation `name` of `text`.
struct Planned {
  testing::Parsed parsed;
  std::unique_ptr<Plan> plan;
};
inline Planned PlanOf(std::string text, std::string_view name = "fused") {
  Planned p{ParseModule(std::move(text)), nullptr};
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

// Entry arguments for MakeTypeModule's module: a, b, c of n elements, s, a
// scalar, and v of n / 2 elements, of `t`, p of pred; about a third of the
// elements are edge values (NaN of both signs, inf, -0, subnormals, the largest
// values; integer extremes, zero, -1, shift counts around the width), the rest
// random (narrow floats: random bit patterns).
inline std::vector<Value> EdgeArguments(P t, int64_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  auto array = [&](P type, int64_t count) {
    const int bytes = StorageBytes(type);
    auto lit = Literal::CreateArray(type, {count});
    EXPECT_TRUE(lit.ok());
    uint8_t* raw = lit->raw();
    for (int64_t i = 0; i < count; ++i) {
      const bool edge = rng() % 3 == 0;
      uint64_t v = rng();
      if (type == P::kPred) {
        v &= 1;
      } else if (type == P::kF32 || type == P::kF64 || type == P::kF16 ||
                 type == P::kBF16) {
        const double specials[] = {0.0,       -0.0,     1.0,  -1.0,  INFINITY,
                                   -INFINITY, NAN,      -NAN, 1e-40, -3e-39,
                                   3.4e38,    -1.7e308, 0.5,  2.5,   -2.5,
                                   65504,     1e-8,     7e-6, 100.5, -0.75};
        double d = edge ? specials[rng() % std::size(specials)]
                        : std::ldexp(static_cast<double>(rng() % 2000) - 1000,
                                     static_cast<int>(rng() % 16) - 10);
        if (type == P::kF32) {
          const float f = static_cast<float>(d);
          std::memcpy(raw + 4 * i, &f, 4);
        } else if (type == P::kF64) {
          std::memcpy(raw + 8 * i, &d, 8);
        } else {
          uint16_t h = static_cast<uint16_t>(v);  // random bits unless edge
          if (edge || rng() % 2)
            h = type == P::kF16 ? FloatToF16(static_cast<float>(d))
                                : FloatToBF16(static_cast<float>(d));
          std::memcpy(raw + 2 * i, &h, 2);
        }
        continue;
      } else if (edge) {
        const int w = bytes * 8;
        const uint64_t specials[] = {0,
                                     1,
                                     ~uint64_t{0},
                                     uint64_t{1} << (w - 1),
                                     (uint64_t{1} << (w - 1)) - 1,
                                     static_cast<uint64_t>(w - 1),
                                     static_cast<uint64_t>(w),
                                     static_cast<uint64_t>(w + 1),
                                     2,
                                     3};
        v = specials[rng() % std::size(specials)];
      }
      std::memcpy(raw + static_cast<int64_t>(bytes) * i, &v, bytes);
    }
    return std::make_shared<const Literal>(*std::move(lit));
  };
  std::vector<Value> args;
  for (int k = 0; k < 3; ++k) args.push_back(array(t, n));
  args.push_back(array(P::kPred, n));
  auto s = array(t, 1);
  auto scalar = Literal::CreateArray(t, {});
  EXPECT_TRUE(scalar.ok());
  std::memcpy(scalar->raw(), s->raw(), StorageBytes(t));
  args.push_back(std::make_shared<const Literal>(*std::move(scalar)));
  args.push_back(array(t, n / 2));
  return args;
}

// Element i of a float literal as a double.
inline double FloatAt(const Literal& l, int64_t i) {
  const uint8_t* p = l.raw() + static_cast<int64_t>(l.element_bytes()) * i;
  uint16_t h;
  switch (l.type()) {
    case P::kF16:
      std::memcpy(&h, p, 2);
      return F16ToFloat(h);
    case P::kBF16:
      std::memcpy(&h, p, 2);
      return BF16ToFloat(h);
    case P::kF32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    default: {
      double d;
      std::memcpy(&d, p, 8);
      return d;
    }
  }
}

// Expects two tuples of MakeTypeModule's results to agree: integers and
// pred bit for bit, floats bit for bit (any NaN equals any NaN) except the
// kApproximate ops, which may differ by `ulps` units of the type's
// precision. `what` names the run.
inline void ExpectSameResults(const Value& want, const Value& got,
                              const std::vector<std::string>& labels,
                              const std::string& what, double ulps = 4) {
  ASSERT_TRUE(want && got) << what;
  ASSERT_TRUE(want->is_tuple() && got->is_tuple()) << what;
  ASSERT_EQ(want->elements().size(), labels.size()) << what;
  ASSERT_EQ(got->elements().size(), labels.size()) << what;
  for (size_t k = 0; k < labels.size(); ++k) {
    const Literal& w = *want->elements()[k];
    const Literal& g = *got->elements()[k];
    ASSERT_EQ(w.type(), g.type()) << what << " " << labels[k];
    ASSERT_EQ(w.count(), g.count()) << what << " " << labels[k];
    const P t = w.type();
    const bool is_float =
        t == P::kF16 || t == P::kBF16 || t == P::kF32 || t == P::kF64;
    const int eb = w.element_bytes();
    int bad = 0;
    for (int64_t i = 0; i < w.count() && bad < 3; ++i) {
      const bool same_bits =
          std::memcmp(w.raw() + eb * i, g.raw() + eb * i, eb) == 0;
      if (same_bits) continue;
      if (is_float) {
        const double a = FloatAt(w, i), b = FloatAt(g, i);
        if (std::isnan(a) && std::isnan(b)) continue;
        if (kApproximate.count(labels[k]) && std::isfinite(a) &&
            std::isfinite(b)) {
          const double eps = t == P::kF64   ? 0x1p-52
                             : t == P::kF32 ? 0x1p-23
                             : t == P::kF16 ? 0x1p-10
                                            : 0x1p-7;
          // Relative, with a floor for results near zero (log near 1).
          const double scale = std::max({std::fabs(a), std::fabs(b), 1e-3});
          if (std::fabs(a - b) <= ulps * eps * scale) continue;
        }
        ADD_FAILURE() << what << ", result " << k << " (" << labels[k] << ", "
                      << PrimitiveTypeName(t) << "), element " << i << ": want "
                      << a << ", got " << b;
      } else {
        ADD_FAILURE() << what << ", result " << k << " (" << labels[k] << ", "
                      << PrimitiveTypeName(t) << "), element " << i << ": want "
                      << w.GetInt(i) << ", got " << g.GetInt(i);
      }
      ++bad;
    }
  }
}

}  // namespace hlo::exec::testing

#endif  // HLO_LSP_TESTS_EXEC_GPU_FUSED_TEST_UTIL_H_
