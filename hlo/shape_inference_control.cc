// Tuples, calls and collectives, after XLA's InferVariadicOpShape (tuple),
// InferGetTupleElementShape, InferCallShape, InferWhileShape,
// InferConditionalShape, the fusion verifier (the fused root's shape) and
// InferAllReduceShape, InferAllGatherShape, InferReduceScatterShape,
// InferAllToAllShape and InferCollectivePermuteShape.
#include <string>

#include "absl/strings/str_cat.h"
#include "hlo/attributes.h"
#include "hlo/shape_inference_internal.h"

namespace hlo::shape_inference_internal {
namespace {

Inference GetTupleElement(const OpContext& ctx) {
  if (ctx.operands.size() != 1) return CannotInfer();
  const InferredShape& in = ctx.operands[0];
  std::string_view value = ctx.Attr("index");
  if (value.empty() || !in.is_tuple()) return CannotInfer();
  absl::StatusOr<int64_t> index = DecodeInt(value);
  if (!index.ok()) return CannotInfer();
  if (*index < 0 || *index >= static_cast<int64_t>(in.tuple.size())) {
    return Fail(absl::StrCat(
        "Cannot infer shape: attempt to index out of "
        "tuple bounds: ",
        *index, " >= ", in.tuple.size(), " in shape ", ShapeString(in), "."));
  }
  return Ok(in.tuple[*index]);
}

// The number of participants in each group, when the groups say it: with
// no channel_id (cross-replica) or with use_global_device_ids=true
// (flattened ids). With a channel_id alone the groups name replicas across
// every partition, and an empty list means every replica: counts the
// module does not spell out.
std::optional<int64_t> GroupSize(const OpContext& ctx) {
  if (!ctx.Attr("channel_id").empty() &&
      ctx.Attr("use_global_device_ids") != "true") {
    return std::nullopt;
  }
  std::string_view value = ctx.Attr("replica_groups");
  if (value.empty()) return std::nullopt;
  absl::StatusOr<ReplicaGroups> groups = DecodeReplicaGroups(value);
  if (!groups.ok()) return std::nullopt;
  if (groups->is_iota) {
    return groups->group_size > 0 ? std::optional(groups->group_size)
                                  : std::nullopt;
  }
  if (groups->groups.empty() || groups->groups[0].empty()) return std::nullopt;
  const size_t size = groups->groups[0].size();
  for (const auto& g : groups->groups) {
    if (g.size() != size) return std::nullopt;
  }
  return static_cast<int64_t>(size);
}

// XLA's verifier checks the declared result's shard count (its size at
// `dim` against the first operand's) before inferring: a mismatch is that
// finding (hlo/verify_collective_shapes.cc), not a shape one.
bool ShardCountMatches(const OpContext& ctx, int64_t dim, int64_t size,
                       bool gather) {
  const InferredShape* out = ctx.declared;
  if (out != nullptr && ctx.operands.size() > 1) {
    out = out->is_tuple() && !out->tuple.empty() ? &out->tuple[0] : nullptr;
  }
  const InferredShape& in = ctx.operands[0];
  if (out == nullptr || !IsArray(*out) || !IsArray(in) || dim < 0 ||
      dim >= static_cast<int64_t>(out->dims.size()) ||
      dim >= static_cast<int64_t>(in.dims.size())) {
    return true;
  }
  const int64_t num = gather ? out->dims[dim] : in.dims[dim];
  const int64_t den = gather ? in.dims[dim] : out->dims[dim];
  if (num < 0 || den <= 0) return true;
  return (num + den - 1) / den == size;
}

// all-gather multiplies, reduce-scatter divides dimension `dimensions=`.
Inference GatherOrScatter(const OpContext& ctx, bool gather) {
  if (ctx.operands.empty()) return CannotInfer();
  std::string_view value = ctx.Attr("dimensions");
  std::optional<int64_t> size = GroupSize(ctx);
  // The verifier skips groups of one (the replica count may be unset).
  if (value.empty() || !size || *size == 1) return CannotInfer();
  absl::StatusOr<std::vector<int64_t>> dims = DecodeIntList(value);
  if (!dims.ok() || dims->size() != 1) return CannotInfer();
  const int64_t dim = (*dims)[0];
  if (!ShardCountMatches(ctx, dim, *size, gather)) return CannotInfer();
  std::vector<InferredShape> outs;
  for (const InferredShape& in : ctx.operands) {
    if (!IsArray(in) || dim < 0 ||
        dim >= static_cast<int64_t>(in.dims.size())) {
      return CannotInfer();
    }
    InferredShape out = in;
    if (gather) {
      if (__builtin_mul_overflow(out.dims[dim], *size, &out.dims[dim])) {
        return CannotInfer();
      }
    } else {
      if (out.dims[dim] % *size != 0) return CannotInfer();
      out.dims[dim] /= *size;
    }
    outs.push_back(std::move(out));
  }
  return Ok(OneOrTuple(std::move(outs)));
}

// Ops whose result is their operands' shapes: one, or a tuple of several.
Inference SameAsOperands(const OpContext& ctx) {
  if (ctx.operands.empty()) return CannotInfer();
  for (const InferredShape& s : ctx.operands) {
    if (!IsArray(s)) return CannotInfer();
  }
  return Ok(OneOrTuple(ctx.OperandVector()));
}

// The tuple forms of all-reduce and all-to-all: one operand gives its shape
// or a tuple of it (both are printed); several give a tuple.
Inference MaybeTupleOfOne(const OpContext& ctx) {
  Inference result = SameAsOperands(ctx);
  if (result.shape && ctx.operands.size() == 1 && ctx.declared &&
      ctx.declared->is_tuple()) {
    result.shape = Tuple({*std::move(result.shape)});
  }
  return result;
}

// The done half of an async pair gives element `index` of the start's
// tuple: the result slot (XLA's HandleAsyncDone and the *-done rules).
Inference ElementOfStart(const OpContext& ctx, size_t index) {
  if (ctx.operands.size() != 1 || !ctx.operands[0].is_tuple() ||
      ctx.operands[0].tuple.size() <= index) {
    return CannotInfer();
  }
  return Ok(ctx.operands[0].tuple[index]);
}

}  // namespace

std::optional<Inference> InferControl(const OpContext& ctx) {
  switch (ctx.opcode()) {
    case Opcode::kTuple:
      return Ok(Tuple(ctx.OperandVector()));
    case Opcode::kGetTupleElement:
      return GetTupleElement(ctx);
    case Opcode::kFusion:
      if (auto root = ctx.CalledRoot("calls")) return Ok(*std::move(root));
      return CannotInfer();
    case Opcode::kCall:
      if (ctx.CalledCount("to_apply") != 1) return CannotInfer();
      if (auto root = ctx.CalledRoot("to_apply")) return Ok(*std::move(root));
      return CannotInfer();
    case Opcode::kWhile:
      // XLA's ShapeVerifier holds a while to its body's root (the operand
      // is held to the body's parameter elsewhere).
      if (auto root = ctx.CalledRoot("body")) return Ok(*std::move(root));
      if (ctx.operands.size() != 1) return CannotInfer();
      return Ok(ctx.operands[0]);
    case Opcode::kConditional:
      if (auto root = ctx.CalledRoot("branch_computations")) {
        return Ok(*std::move(root));
      }
      if (auto root = ctx.CalledRoot("true_computation")) {
        return Ok(*std::move(root));
      }
      return CannotInfer();
    case Opcode::kOptimizationBarrier:
    case Opcode::kOptBarrier:
    case Opcode::kDomain:
      if (ctx.operands.size() != 1) return CannotInfer();
      return Ok(ctx.operands[0]);
    case Opcode::kAddDependency:
      if (ctx.operands.size() != 2) return CannotInfer();
      return Ok(ctx.operands[0]);
    case Opcode::kAfterAll:
      return Ok(Array(PrimitiveType::kToken, {}));
    case Opcode::kPartitionId:
    case Opcode::kReplicaId:
      return Ok(Array(PrimitiveType::kU32, {}));
    case Opcode::kAllReduce:
      return MaybeTupleOfOne(ctx);
    case Opcode::kAllGather:
      return GatherOrScatter(ctx, /*gather=*/true);
    case Opcode::kReduceScatter:
      return GatherOrScatter(ctx, /*gather=*/false);
    case Opcode::kAllToAll:
      // The split dimension (`dimensions=`) makes it the array form.
      if (ctx.Attr("dimensions").empty()) return MaybeTupleOfOne(ctx);
      return SameAsOperands(ctx);
    // all-reduce-start is its operand's shape in new dumps and (in, out) in
    // old ones: neither it nor its done is inferred.
    case Opcode::kAsyncDone:
    case Opcode::kAllGatherDone:
    case Opcode::kCollectivePermuteDone:
      return ElementOfStart(ctx, 1);
    case Opcode::kCopyDone:
      return ElementOfStart(ctx, 0);
    case Opcode::kCollectivePermute:
      // The in-place form (4 operands) and the combined one differ by XLA
      // version: only the plain one-operand form is inferred.
      if (ctx.operands.size() != 1 || !IsArray(ctx.operands[0])) {
        return CannotInfer();
      }
      return Ok(ctx.operands[0]);
    default:
      return std::nullopt;
  }
}

}  // namespace hlo::shape_inference_internal
