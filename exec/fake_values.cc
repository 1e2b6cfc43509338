#include "exec/fake_values.h"

#include <algorithm>
#include <numeric>
#include <type_traits>
#include <vector>

namespace hlo::exec {
namespace {

template <typename T>
void FillTyped(Literal& lit, std::minstd_rand0& engine,
               const FakeConstraint& c) {
  using C = typename T::C;
  auto* d = lit.data<typename T::S>();
  const int64_t n = lit.count();
  if (c.init_value && T::kKind != Kind::kComplex) {
    for (int64_t i = 0; i < n; ++i) lit.SetInt(i, *c.init_value);
    return;
  }
  if constexpr (T::kKind == Kind::kFloat) {
    if (c.no_duplicates) {  // distinct increasing values, shuffled
      std::vector<int64_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), engine);
      for (int64_t i = 0; i < n; ++i) d[i] = T::Store(static_cast<C>(order[i]));
      return;
    }
    if constexpr (std::is_same_v<C, double>) {
      std::uniform_real_distribution<double> g(-0.1, 0.2);
      for (int64_t i = 0; i < n; ++i) d[i] = g(engine);
    } else {
      std::uniform_real_distribution<float> g(-0.1f, 0.2f);
      for (int64_t i = 0; i < n; ++i) d[i] = T::Store(g(engine));
    }
  } else if constexpr (T::kKind == Kind::kComplex) {
    using V = typename C::value_type;
    std::uniform_real_distribution<V> g(V(-0.1), V(0.2));
    for (int64_t i = 0; i < n; ++i) {
      V re = g(engine);
      V im = g(engine);
      d[i] = C(re, im);
    }
  } else if constexpr (T::kKind == Kind::kPred) {
    std::uniform_int_distribution<int> g(0, 1);
    for (int64_t i = 0; i < n; ++i) d[i] = g(engine);
  } else {
    if (c.no_duplicates) {
      std::vector<int64_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), engine);
      for (int64_t i = 0; i < n; ++i) d[i] = T::Store(static_cast<C>(order[i]));
      return;
    }
    using W = std::conditional_t<std::is_signed_v<C>, int64_t, uint64_t>;
    W lo = static_cast<W>(T::Min()), hi = static_cast<W>(T::Max());
    if (c.index_max) {
      lo = 0;
      hi = static_cast<W>(
          std::min<uint64_t>(*c.index_max, static_cast<uint64_t>(T::Max())));
    }
    std::uniform_int_distribution<W> g(lo, hi);
    for (int64_t i = 0; i < n; ++i) d[i] = T::Store(static_cast<C>(g(engine)));
  }
}

}  // namespace

void FillFake(Literal& lit, std::minstd_rand0& engine) {
  FillFake(lit, engine, FakeConstraint{});
}

void FillFake(Literal& lit, std::minstd_rand0& engine,
              const FakeConstraint& constraint) {
  if (lit.is_tuple()) {
    for (Value& e : lit.mutable_elements()) {
      auto copy = e->Clone();
      if (!copy.ok()) continue;
      FillFake(*copy, engine, constraint);
      e = std::make_shared<const Literal>(*std::move(copy));
    }
    return;
  }
  VisitType(lit.type(),
            [&]<typename T>() { FillTyped<T>(lit, engine, constraint); });
}

}  // namespace hlo::exec
