// The statistics of exec/stats.h, and StatsLog (evaluator_internal.h): a
// run's per-instruction record and its first NaN/Inf origin.
#include "exec/stats.h"

#include <algorithm>
#include <cmath>

#include "exec/evaluator_internal.h"

namespace hlo::exec {

InstructionStats StatsOf(Id instruction, const Literal& value) {
  InstructionStats s;
  s.instruction = instruction;
  if (value.is_tuple() || value.type() == PrimitiveType::kToken) return s;
  s.runs = 1;
  s.elements = value.count();
  VisitType(value.type(), [&]<typename T>() {
    const auto* d = value.data<typename T::S>();
    for (int64_t i = 0; i < value.count(); ++i) {
      double v;
      if constexpr (T::kKind == Kind::kComplex) {
        v = std::abs(T::Load(d[i]));
      } else {
        v = static_cast<double>(T::Load(d[i]));
      }
      if (std::isnan(v)) {
        ++s.nan_count;
      } else if (std::isinf(v)) {
        ++s.inf_count;
      } else {
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
        s.sum += v;
      }
    }
  });
  return s;
}

Differences CountDifferences(const Literal& want, const Literal& got,
                             double atol, double rtol) {
  Differences d;
  for (int64_t i = 0; i < want.count(); ++i) {
    const double x = want.GetDouble(i), y = got.GetDouble(i);
    if (std::isnan(x) && std::isnan(y)) continue;
    if (x == y) continue;
    const double diff = std::fabs(x - y);
    if (std::isnan(diff) || (diff > atol && diff > rtol * std::fabs(x))) {
      if (d.first < 0) d.first = i;
      ++d.count;
      d.worst = std::max(d.worst, std::isnan(diff) ? INFINITY : diff);
    }
  }
  return d;
}

void StatsLog::Add(const InstructionStats& one, Evaluator& plans,
                   bool origin_only) {
  if (one.runs == 0) return;  // a tuple or a token
  auto [it, inserted] = index_.try_emplace(one.instruction, stats_.size());
  if (inserted) {
    stats_.push_back({});
    stats_.back().instruction = one.instruction;
  }
  InstructionStats& s = stats_[it->second];
  s.runs++;
  s.elements += one.elements;
  s.nan_count += one.nan_count;
  s.inf_count += one.inf_count;
  s.min = std::min(s.min, one.min);
  s.max = std::max(s.max, one.max);
  s.sum += one.sum;
  if (one.nan_count + one.inf_count && first_nonfinite_ == kNone) {
    first_nonfinite_ = one.instruction;
    // origin_only: earlier fused runs of its computation recorded nothing.
    if (origin_only && RanFusedBefore(plans, fused_ran_, one.instruction))
      restart_needed_ = true;
  }
}

}  // namespace hlo::exec
