// The rule that lets fusions run fused while the first NaN/Inf origin is
// still reported as running every instruction would report it
// (EvalOptions::origin_only): see FusionStatsRule in evaluator_internal.h.
#include "exec/evaluator_internal.h"

namespace hlo::exec {
namespace {

using O = Opcode;

// Types whose NaN and Inf survive every op below (fp8/fp4 families may
// saturate or lack them; complex values are not followed).
bool HoldsNonfinite(const LiteralShape& s) {
  if (s.is_tuple()) return false;
  switch (s.type) {
    case PrimitiveType::kF16:
    case PrimitiveType::kBF16:
    case PrimitiveType::kF32:
    case PrimitiveType::kF64:
      return true;
    default:
      return false;
  }
}

int64_t Elements(const LiteralShape& s) {
  int64_t n = 1;
  for (int64_t d : s.dims) n *= d;
  return n;
}

// Whether `user`'s result holds a NaN or Inf whenever its operand `slot`
// holds one, whatever the other operands: every element of that operand
// reaches the result through an op that keeps non-finite values
// non-finite (Inf * 0 and Inf - Inf are NaN; x / Inf, exp(-Inf),
// max(-Inf, x), compare and select are not followed).
bool Carries(const Node& user, size_t slot, const LiteralShape& operand) {
  if (!HoldsNonfinite(user.shape) || Elements(user.shape) == 0) return false;
  const bool same_type = operand.type == user.shape.type;
  switch (user.op) {
    case O::kAdd:
    case O::kSubtract:
    case O::kMultiply:
    case O::kNegate:
    case O::kAbs:
    case O::kLog:
    case O::kLogPlusOne:
    case O::kSqrt:
    case O::kCbrt:
      return same_type;
    case O::kDivide:
      return same_type && slot == 0;
    case O::kConvert:
      return HoldsNonfinite(operand);
    case O::kCopy:
    case O::kReshape:
    case O::kBitcast:
    case O::kTranspose:
    case O::kReverse:
    case O::kBroadcast:
    case O::kConcatenate:
      return same_type;
    default:
      return false;
  }
}

}  // namespace

bool NonfiniteShowsInResult(const Plan& plan) {
  const size_t n = plan.nodes.size();
  std::vector<std::vector<std::pair<int, size_t>>> users(n);
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < plan.nodes[i].operands.size(); ++k)
      users[plan.nodes[i].operands[k]].push_back({static_cast<int>(i), k});
  // shows[i]: a NaN/Inf in node i reaches the fusion's result. Users come
  // after their operands, so a backward sweep sees them first.
  std::vector<bool> shows(n, false);
  const Node& root = plan.nodes[plan.root];
  shows[plan.root] = true;
  if (root.op == O::kTuple)
    for (int o : root.operands) shows[o] = true;
  for (size_t j = n; j-- > 0;) {
    const Node& node = plan.nodes[j];
    for (const auto& [u, slot] : users[j])
      if (shows[u] && plan.nodes[u].op != O::kTuple &&
          Carries(plan.nodes[u], slot, node.shape))
        shows[j] = true;
    // Parameters are not recorded; nodes that cannot hold a NaN/Inf (or
    // hold none: empty) need no path.
    if (shows[j] || node.op == O::kParameter || node.shape.is_tuple() ||
        Elements(node.shape) == 0 ||
        !(IsFloatingPoint(node.shape.type) || IsComplex(node.shape.type)))
      continue;
    return false;
  }
  return true;
}

bool PlanHolds(const Plan& plan, Id instruction) {
  // By the plan's nodes, whatever computation the parse gave them.
  for (const Node& node : plan.nodes)
    if (node.id == instruction) return true;
  return false;
}

bool RanFusedBefore(Evaluator& plans, const std::set<Id>& fused_ran,
                    Id instruction) {
  for (Id computation : fused_ran) {
    auto plan = plans.GetPlan(computation);
    if (plan.ok() && PlanHolds(**plan, instruction)) return true;
  }
  return false;
}

FusionStats FusionStatsRule(const Plan& fused, Id first_nonfinite) {
  if (first_nonfinite != kNone)
    return PlanHolds(fused, first_nonfinite) ? FusionStats::kInside
                                             : FusionStats::kNone;
  return NonfiniteShowsInResult(fused) ? FusionStats::kCheckResult
                                       : FusionStats::kInside;
}

}  // namespace hlo::exec
