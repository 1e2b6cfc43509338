// Collective rules of XLA's ShapeVerifier that come before its shape check
// (hlo_verifier.cc: CheckReplicaGroups' uniform group size, HandleAllGather
// and HandleReduceScatter's dimension and shard count, HandleRaggedAllToAll's
// offset operands, HandleAllReduceStart's shape) and the module-wide
// VerifyLayoutConstrainedAllReduce.
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "base/strings.h"
#include "hlo/attributes.h"
#include "hlo/shape_inference.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

bool AttrIsTrue(const ParsedFile& file, const Instruction& inst,
                std::string_view key) {
  const Attribute* a = file.FindAttribute(inst, key);
  if (a == nullptr) return false;
  absl::StatusOr<bool> on = DecodeBool(file.Text(a->value));
  return on.ok() && *on;
}

// Ops whose replica groups must all be one size (all but all-reduce).
bool NeedsUniformGroups(Opcode op) {
  return op == Opcode::kAllGather || op == Opcode::kAllGatherStart ||
         op == Opcode::kReduceScatter || op == Opcode::kAllToAll ||
         op == Opcode::kRaggedAllToAll;
}

// `uniform` holds the groups texts found uniform: a module's collectives
// repeat a few, and decoding them is the cost here.
void CheckUniformGroups(const Findings& f, const Instruction& inst,
                        absl::flat_hash_set<std::string_view>* uniform) {
  // The opcode first: it is one compare, the attribute a scan.
  if (!NeedsUniformGroups(inst.opcode)) return;
  const Attribute* attr = f.file.FindAttribute(inst, "replica_groups");
  if (attr == nullptr) return;
  const std::string_view text = f.file.Text(attr->value);
  if (uniform->contains(text)) return;
  absl::StatusOr<ReplicaGroups> groups = DecodeReplicaGroups(text);
  if (!groups.ok() || groups->is_iota || groups->groups.empty()) {
    uniform->insert(text);  // nothing for this check to say
    return;
  }
  for (const auto& g : groups->groups) {
    if (g.empty()) return;  // XLA reports the empty group first
    if (g.size() != groups->groups[0].size()) {
      f.Error(attr->span, "Replica groups expected to be of uniform size");
      return;
    }
  }
  uniform->insert(text);
}

// GetSubgroupSize where the module says it: the first group's size with
// no channel_id (cross-replica) or with use_global_device_ids=true. With a
// channel_id alone it also counts partitions; with no groups it is the
// replica count: neither is written in the module.
std::optional<int64_t> SubgroupSize(const ParsedFile& file,
                                    const Instruction& inst) {
  if (file.FindAttribute(inst, "channel_id") != nullptr &&
      !AttrIsTrue(file, inst, "use_global_device_ids")) {
    return std::nullopt;
  }
  const Attribute* attr = file.FindAttribute(inst, "replica_groups");
  if (attr == nullptr) return std::nullopt;
  absl::StatusOr<ReplicaGroups> groups =
      DecodeReplicaGroups(file.Text(attr->value));
  if (!groups.ok()) return std::nullopt;
  if (groups->is_iota) {
    return groups->group_size > 0 ? std::optional(groups->group_size)
                                  : std::nullopt;
  }
  if (groups->groups.empty()) return std::nullopt;
  return static_cast<int64_t>(groups->groups[0].size());
}

// all-gather and reduce-scatter: the dimension (`dimensions={d}`) exists in
// every operand and result, and the result's size there against the
// operand's is the group size (XLA's shard_count).
void CheckGatherScatter(const Findings& f, const Instruction& inst,
                        bool todays_rules) {
  const ParsedFile& file = f.file;
  const bool gather = inst.opcode == Opcode::kAllGather;
  if ((!gather && inst.opcode != Opcode::kReduceScatter) ||
      inst.operands.count == 0) {
    return;
  }
  const Attribute* attr = file.FindAttribute(inst, "dimensions");
  if (attr == nullptr) return;
  absl::StatusOr<std::vector<int64_t>> dims =
      DecodeIntList(file.Text(attr->value));
  std::optional<InferredShape> result = ShapeFromFile(file, inst.shape);
  if (!dims.ok() || dims->size() != 1 || !result) return;
  const int64_t d = (*dims)[0];
  const std::string_view self = gather ? "ag" : "ars";
  const std::string_view dim_name =
      gather ? "all_gather_dimension" : "scatter_dimension";
  if (d < 0) {
    f.Error(attr->span,
            base::Cat("RET_CHECK failure: ", self, "->", dim_name, "() >= 0"));
    return;
  }
  const Id n = inst.operands.count;
  if (n > 1 && (!result->is_tuple() || result->tuple.size() != n)) return;
  std::vector<InferredShape> ins;
  for (Id i = 0; i < n; ++i) {
    std::optional<InferredShape> in = OperandShape(file, inst, i);
    const InferredShape& out = n == 1 ? *result : result->tuple[i];
    if (!in || !IsArray(*in) || !IsArray(out)) return;
    // torch_xla's older reduce-scatter passes a scalar token along as an
    // extra operand, which the XLA of its day took: today's rules only.
    if (!todays_rules && n > 1 && in->dims.empty() && out.dims.empty()) {
      return;
    }
    if (d >= static_cast<int64_t>(in->dims.size())) {
      f.Error(attr->span,
              base::Cat("RET_CHECK failure: ", self, "->", dim_name,
                        "() < static_cast<int64_t>(", self,
                        "->operand(i)->shape().dimensions().size()) (operand ",
                        i, " has rank ", in->dims.size(), ")"));
      return;
    }
    if (d >= static_cast<int64_t>(out.dims.size())) {
      f.Error(attr->span,
              base::Cat("RET_CHECK failure: ", self, "->", dim_name,
                        "() < static_cast<int64_t>(output_shape.dimensions()."
                        "size()) (result ",
                        i, " has rank ", out.dims.size(), ")"));
      return;
    }
    ins.push_back(*std::move(in));
  }
  const InferredShape& out0 = n == 1 ? *result : result->tuple[0];
  const int64_t num = gather ? out0.dims[d] : ins[0].dims[d];
  const int64_t den = gather ? ins[0].dims[d] : out0.dims[d];
  std::optional<int64_t> subgroup = SubgroupSize(file, inst);
  if (num < 0 || den <= 0 || !subgroup || *subgroup == 1) return;
  const int64_t shard_count = (num + den - 1) / den;
  if (shard_count != *subgroup) {
    f.Error(DeclaredShapeSpan(file, inst),
            base::Cat("shard_count = ", shard_count,
                      ", subgroup_size = ", *subgroup, ", ", file.Name(inst)));
  }
}

// ragged-all-to-all's offset and size operands (2..5): rank 1 or 2, and one
// shape for all four.
void CheckRaggedAllToAll(const Findings& f, const Instruction& inst) {
  const ParsedFile& file = f.file;
  if (inst.opcode != Opcode::kRaggedAllToAll || inst.operands.count != 6) {
    return;
  }
  for (Id i = 3; i < 6; ++i) {
    std::optional<InferredShape> prev = OperandShape(file, inst, i - 1);
    std::optional<InferredShape> cur = OperandShape(file, inst, i);
    if (!prev || !cur || !IsArray(*prev) || !IsArray(*cur)) return;
    const Span at = file.operands[inst.operands.begin + i - 1].span;
    if (prev->dims.size() != 1 && prev->dims.size() != 2) {
      f.Error(at, base::Cat("RaggedAllToAll operand ", i - 1,
                            " must be rank 1 or 2: ", file.Name(inst)));
      return;
    }
    if (!(*prev == *cur)) {
      f.Error(file.operands[inst.operands.begin + i].span,
              base::Cat("RaggedAllToAll operands have different shapes (",
                        i - 1, ", ", i, "): ", file.Name(inst)));
      return;
    }
  }
}

// all-reduce-start is its operand's shape (a tuple of them for several).
// Older XLA printed (operand, result) pairs: today's rules only.
void CheckAllReduceStart(const Findings& f, const Instruction& inst,
                         bool allow_mixed_precision) {
  const ParsedFile& file = f.file;
  if (inst.opcode != Opcode::kAllReduceStart || inst.operands.count == 0) {
    return;
  }
  std::optional<InferredShape> declared = ShapeFromFile(file, inst.shape);
  if (!declared) return;
  std::vector<InferredShape> ins;
  for (Id i = 0; i < inst.operands.count; ++i) {
    std::optional<InferredShape> in = OperandShape(file, inst, i);
    if (!in || !IsArray(*in)) return;
    ins.push_back(*std::move(in));
  }
  InferredShape want;
  if (ins.size() == 1) {
    want = ins[0];
  } else {
    want.element_type = PrimitiveType::kTuple;
    want.tuple = std::move(ins);
  }
  if (ShapesCompatible(*declared, want, allow_mixed_precision)) return;
  f.Error(DeclaredShapeSpan(file, inst),
          base::Cat("Expected instruction to have shape equal to ",
                    ShapeString(want), ", actual shape is ",
                    ShapeString(*declared)));
}

// Every all-reduce(-start) of the module constrains its layout, or none.
// torch_xla's pipeline-parallel dumps mix them (constrained gradient
// reductions beside plain ones): today's rules only.
void CheckLayoutConstrainedAllReduce(const Findings& f) {
  const ParsedFile& file = f.file;
  std::map<Id, bool> reference;  // by module
  std::set<Id> reported;
  for (const Instruction& inst : file.instructions) {
    if ((inst.opcode != Opcode::kAllReduce &&
         inst.opcode != Opcode::kAllReduceStart) ||
        inst.computation == kNone) {
      continue;
    }
    const Id module = file.computations[inst.computation].module;
    const bool constrained = AttrIsTrue(file, inst, "constrain_layout");
    auto [it, first] = reference.emplace(module, constrained);
    if (it->second != constrained && reported.insert(module).second) {
      f.Error(inst.opcode_span,
              "HloModule has a mix of layout constrained and unconstrained "
              "AllReduce instructions.");
    }
  }
}

}  // namespace

void CheckCollectiveShapes(const Findings& f, bool todays_rules,
                           bool allow_mixed_precision) {
  absl::flat_hash_set<std::string_view> uniform_groups;
  for (const Instruction& inst : f.file.instructions) {
    CheckUniformGroups(f, inst, &uniform_groups);
    CheckGatherScatter(f, inst, todays_rules);
    CheckRaggedAllToAll(f, inst);
    if (todays_rules) CheckAllReduceStart(f, inst, allow_mixed_precision);
  }
  if (todays_rules) CheckLayoutConstrainedAllReduce(f);
}

}  // namespace hlo::verify_internal
