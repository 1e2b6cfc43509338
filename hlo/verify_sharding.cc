// sharding= against the instruction (XLA's InstructionVerifier: Preprocess's
// HloSharding::Validate, the tile rank rule; HandleWhile and
// HandleConditional's VerifyConsistentSharding). A sharding written without
// tuple braces on a tuple-shaped instruction applies to every leaf, as XLA's
// parser normalizes it.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "base/strings.h"
#include "hlo/shape_inference.h"
#include "hlo/sharding.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

void Leaves(const InferredShape& s, std::vector<const InferredShape*>* out) {
  if (!s.is_tuple()) {
    out->push_back(&s);
    return;
  }
  for (const InferredShape& e : s.tuple) Leaves(e, out);
}

bool IsTiled(const HloShardingValue& s) {
  return s.type == ShardingType::kOther && !s.is_named;
}

// The dimensions a tiled sharding splits: its tile dimensions less the
// subgroup ones (last_tile_dim_replicate, last_tile_dims).
int64_t TiledDataRank(const HloShardingValue& s) {
  return static_cast<int64_t>(s.tile_assignment_dimensions.size()) -
         (s.replicate_on_last_tile_dim ? 1 : 0) -
         static_cast<int64_t>(s.last_tile_dims.size());
}

// One leaf sharding as HloSharding::operator== sees it: metadata aside,
// device lists compared by their devices (iota or explicit).
std::optional<std::string> Key(const HloShardingValue& s) {
  if (s.is_named) return "named " + s.named_text;
  std::string key = base::Cat(static_cast<int>(s.type), ";");
  if (s.type == ShardingType::kMaximal) {
    for (int64_t d : s.tile_assignment_devices) key += base::Cat(d, ",");
  } else if (s.type == ShardingType::kOther) {
    absl::StatusOr<std::vector<int64_t>> devices = TileAssignmentDevices(s);
    if (!devices.ok()) return std::nullopt;
    for (int64_t d : s.tile_assignment_dimensions) key += base::Cat(d, ",");
    key += ";";
    for (int64_t d : *devices) key += base::Cat(d, ",");
    key += base::Cat(";", s.replicate_on_last_tile_dim, ";");
    for (ShardingType t : s.last_tile_dims) {
      key += base::Cat(static_cast<int>(t), ",");
    }
  }
  if (s.shard_group) {
    key += base::Cat(";", s.shard_group->shard_as, s.shard_group->id);
  }
  return key;
}

struct Written {
  const Attribute* attr = nullptr;
  HloShardingValue value;
  std::optional<InferredShape> shape;
};

std::optional<Written> ShardingOf(const ParsedFile& file,
                                  const Instruction& inst) {
  const Attribute* attr = file.FindAttribute(inst, "sharding");
  if (attr == nullptr) return std::nullopt;
  absl::StatusOr<HloShardingValue> value =
      DecodeSharding(file.Text(attr->value));
  if (!value.ok()) return std::nullopt;
  return Written{attr, *std::move(value), ShapeFromFile(file, inst.shape)};
}

// The sharding of every leaf of the instruction's shape; nullopt when the
// module does not say enough to compare.
std::optional<std::vector<std::string>> LeafKeys(const Written& w) {
  if (!w.shape) return std::nullopt;
  std::vector<const InferredShape*> leaves;
  Leaves(*w.shape, &leaves);
  std::vector<std::string> keys;
  if (w.value.type == ShardingType::kTuple) {
    if (!w.shape->is_tuple() ||
        w.value.tuple_shardings.size() != leaves.size()) {
      return std::nullopt;
    }
    for (const HloShardingValue& e : w.value.tuple_shardings) {
      std::optional<std::string> key = Key(e);
      if (!key) return std::nullopt;
      keys.push_back(*std::move(key));
    }
    return keys;
  }
  std::optional<std::string> key = Key(w.value);
  if (!key) return std::nullopt;
  // A tuple shape takes a plain sharding as one per leaf.
  if (!w.shape->is_tuple()) return std::vector<std::string>{*key};
  return std::vector<std::string>(leaves.size(), *key);
}

void CheckRank(const Findings& f, const Instruction& inst, const Written& w) {
  if (!w.shape) return;
  std::vector<const InferredShape*> leaves;
  Leaves(*w.shape, &leaves);
  std::vector<const HloShardingValue*> shardings;
  if (w.value.type == ShardingType::kTuple) {
    if (w.value.tuple_shardings.size() != leaves.size()) return;
    for (const HloShardingValue& e : w.value.tuple_shardings) {
      shardings.push_back(&e);
    }
  } else {
    shardings.assign(leaves.size(), &w.value);
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    const HloShardingValue& s = *shardings[i];
    const InferredShape& leaf = *leaves[i];
    if (!IsTiled(s) || leaf.element_type == PrimitiveType::kToken ||
        TiledDataRank(s) == static_cast<int64_t>(leaf.dims.size())) {
      continue;
    }
    f.Error(w.attr->span,
            base::Cat("Invalid sharding for instruction: ", f.file.Name(inst),
                      ": Number of tile assignment dimensions (excluding "
                      "subgroups) is different than the input rank. "
                      "sharding=",
                      f.file.Text(w.attr->value),
                      ", input_shape=", ShapeString(leaf)));
    return;
  }
}

// Parameter 0 of computation `c`, or kNone.
Id FirstParameter(const ParsedFile& file, Id c) {
  const Slice body = file.computations[c].instructions;
  for (Id id = body.begin; id < body.end(); ++id) {
    const Instruction& inst = file.instructions[id];
    if (inst.opcode == Opcode::kParameter &&
        file.Text(inst.operand_list) == "(0)") {
      return id;
    }
  }
  return kNone;
}

// Every one of `ids` that has a sharding has the same one.
void CheckConsistent(const Findings& f, const Instruction& parent,
                     const std::vector<Id>& ids) {
  const ParsedFile& file = f.file;
  std::optional<std::vector<std::string>> common;
  Id common_id = kNone;
  for (Id id : ids) {
    if (id == kNone) continue;
    const Instruction& inst = file.instructions[id];
    std::optional<Written> w = ShardingOf(file, inst);
    if (!w) {
      // Unreadable shardings (a decode error is reported elsewhere) stop
      // the comparison; absent ones are skipped as XLA does.
      if (file.FindAttribute(inst, "sharding") != nullptr) return;
      continue;
    }
    std::optional<std::vector<std::string>> keys = LeafKeys(*w);
    if (!keys) return;
    if (!common) {
      common = std::move(keys);
      common_id = id;
      continue;
    }
    if (*keys != *common) {
      f.Error(w->attr->span,
              base::Cat("Inconsistent ", file.Text(parent.opcode_span),
                        " sharding among instructions: ",
                        file.Name(file.instructions[common_id]), " and ",
                        file.Name(inst)));
      return;
    }
  }
}

Id CalledRoot(const ParsedFile& file, const ComputationRef& ref) {
  return ref.computation == kNone ? kNone
                                  : file.computations[ref.computation].root;
}

void CheckControlFlow(const Findings& f, Id id) {
  const ParsedFile& file = f.file;
  const Instruction& inst = file.instructions[id];
  if (inst.opcode != Opcode::kWhile && inst.opcode != Opcode::kConditional) {
    return;
  }
  std::vector<Id> ids = {id};
  Id body = kNone, cond = kNone;
  for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
    const ComputationRef& ref = file.computation_refs[r];
    if (ref.computation == kNone || ref.attribute == kNone) return;
    std::string_view key = file.Text(file.attributes[ref.attribute].key);
    if (inst.opcode == Opcode::kConditional) {
      ids.push_back(CalledRoot(file, ref));
    } else if (key == "body") {
      body = ref.computation;
    } else if (key == "condition") {
      cond = ref.computation;
    }
  }
  if (inst.opcode == Opcode::kWhile) {
    if (body == kNone || cond == kNone) return;
    ids.push_back(file.computations[body].root);
    ids.push_back(FirstParameter(file, body));
    ids.push_back(FirstParameter(file, cond));
  }
  CheckConsistent(f, inst, ids);
}

}  // namespace

void CheckShardings(const Findings& f) {
  const ParsedFile& file = f.file;
  // Sharding texts and shapes a rank check found clean: a module repeats
  // few pairs, and each check decodes the sharding and builds the shape.
  absl::flat_hash_set<std::pair<std::string_view, Id>> clean;
  for (Id id = 0; id < file.instructions.size(); ++id) {
    const Instruction& inst = file.instructions[id];
    const Attribute* attr = file.FindAttribute(inst, "sharding");
    if (attr != nullptr) {
      const std::pair<std::string_view, Id> key{file.Text(attr->value),
                                                inst.shape};
      if (!clean.contains(key)) {
        if (std::optional<Written> w = ShardingOf(file, inst)) {
          const size_t before = f.out->size();
          CheckRank(f, inst, *w);
          if (f.out->size() == before) clean.insert(key);
        }
      }
    }
    CheckControlFlow(f, id);
  }
}

}  // namespace hlo::verify_internal
