// Collectives and comparisons (XLA's hlo_verifier.cc: CheckReplicaGroups,
// the comparison type;
// collective_op_group_mode.cc: use_global_device_ids needs a channel_id).
#include <optional>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "base/strings.h"
#include "hlo/attributes.h"
#include "hlo/shape_inference.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

bool TakesGlobalDeviceIds(Opcode op) {
  return op == Opcode::kAllGather || op == Opcode::kAllGatherStart ||
         op == Opcode::kAllReduce || op == Opcode::kAllReduceStart ||
         op == Opcode::kReduceScatter;
}

bool HasReplicaGroups(Opcode op) {
  return TakesGlobalDeviceIds(op) || op == Opcode::kAllToAll ||
         op == Opcode::kCollectiveBroadcast;
}

void CheckGroupMode(const Findings& f, const Instruction& inst) {
  const ParsedFile& file = f.file;
  // The opcode first: it is one compare, the attribute a scan.
  if (!TakesGlobalDeviceIds(inst.opcode)) return;
  const Attribute* global = file.FindAttribute(inst, "use_global_device_ids");
  if (global == nullptr) return;
  absl::StatusOr<bool> on = DecodeBool(file.Text(global->value));
  if (!on.ok() || !*on) return;
  if (file.FindAttribute(inst, "channel_id") == nullptr) {
    f.Error(global->span,
            "Cannot have use_global_device_ids=true without channel_id");
    return;
  }
  const Attribute* groups = file.FindAttribute(inst, "replica_groups");
  if (groups == nullptr) {
    f.Error(inst.opcode_span,
            "Replica groups must be specified in flattened-id mode");
    return;
  }
  // Only "{}" decodes to no groups: decoding a long list is the cost.
  const std::string_view text = file.Text(groups->value);
  if (text.size() > 2 && text.find_first_of("0123456789[") != text.npos) {
    return;
  }
  absl::StatusOr<ReplicaGroups> decoded = DecodeReplicaGroups(text);
  if (decoded.ok() && !decoded->is_iota && decoded->groups.empty()) {
    f.Error(groups->span,
            "Replica groups must be specified in flattened-id mode");
  }
}

// Every id once, all of [0, n) for n ids (the explicit form).
// `clean` holds the groups texts found clean: a module's collectives
// repeat a few, and decoding them is the cost here.
void CheckGroupIds(const Findings& f, const Instruction& inst,
                   absl::flat_hash_set<std::string_view>* clean) {
  const ParsedFile& file = f.file;
  if (!HasReplicaGroups(inst.opcode)) return;
  const Attribute* attr = file.FindAttribute(inst, "replica_groups");
  if (attr == nullptr) return;
  const std::string_view text = file.Text(attr->value);
  if (clean->contains(text)) return;
  absl::StatusOr<ReplicaGroups> groups = DecodeReplicaGroups(text);
  if (!groups.ok() || groups->is_iota) {
    clean->insert(text);  // nothing for this check to say
    return;
  }
  int64_t n = 0;
  for (const auto& g : groups->groups) n += static_cast<int64_t>(g.size());
  std::vector<bool> seen(static_cast<size_t>(n), false);
  for (const auto& g : groups->groups) {
    for (int64_t id : g) {
      if (id < 0 || id >= n) {
        f.Error(attr->span,
                base::Cat("Replica ", id, " is out of range (should be in [0, ",
                          n, ") range) in instruction's replica-groups"));
        return;
      }
      if (seen[static_cast<size_t>(id)]) {
        f.Error(attr->span, base::Cat("Replica ", id,
                                      " is repeated in instruction's "
                                      "replica-groups"));
        return;
      }
      seen[static_cast<size_t>(id)] = true;
    }
  }
  clean->insert(text);
}

std::string_view TypeName(ComparisonType t) {
  switch (t) {
    case ComparisonType::kFloat:
      return "FLOAT";
    case ComparisonType::kTotalOrder:
      return "TOTALORDER";
    case ComparisonType::kSigned:
      return "SIGNED";
    case ComparisonType::kUnsigned:
      return "UNSIGNED";
  }
  return "";
}

// A written comparison type must be the one the operands' type takes.
void CheckComparisonType(const Findings& f, const Instruction& inst) {
  const ParsedFile& file = f.file;
  if (inst.opcode != Opcode::kCompare || inst.operands.count != 2) return;
  const Attribute* attr = file.FindAttribute(inst, "type");
  if (attr == nullptr) return;
  absl::StatusOr<ComparisonType> type =
      DecodeComparisonType(file.Text(attr->value));
  const Operand& rhs = file.operands[inst.operands.begin + 1];
  if (!type.ok() || rhs.definition == kNone) return;
  // Only the element type is read: straight off the shape table.
  const Id shape = file.instructions[rhs.definition].shape;
  if (shape >= file.shapes.size() || file.shapes[shape].is_tuple()) return;
  const PrimitiveType e = file.shapes[shape].element_type;
  if (IsFloatingPoint(e)) {
    if (*type == ComparisonType::kFloat ||
        *type == ComparisonType::kTotalOrder) {
      return;
    }
    f.Error(attr->span, base::Cat("Expected comparison type FLOAT or "
                                  "TOTALORDER. actual: ",
                                  TypeName(*type)));
    return;
  }
  ComparisonType want;
  if (IsComplex(e)) {
    want = ComparisonType::kFloat;
  } else if (IsSignedInteger(e)) {
    want = ComparisonType::kSigned;
  } else if (IsUnsignedInteger(e) || e == PrimitiveType::kPred) {
    want = ComparisonType::kUnsigned;
  } else {
    return;
  }
  if (*type != want) {
    f.Error(attr->span, base::Cat("Expected comparison type ", TypeName(want),
                                  ". actual: ", TypeName(*type)));
  }
}

}  // namespace

void CheckCollectives(const Findings& f) {
  absl::flat_hash_set<std::string_view> clean_groups;
  for (const Instruction& inst : f.file.instructions) {
    CheckGroupMode(f, inst);
    CheckGroupIds(f, inst, &clean_groups);
    CheckComparisonType(f, inst);
  }
}

}  // namespace hlo::verify_internal
