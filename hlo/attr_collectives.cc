// replica_groups, source_target_pairs, output_to_operand_aliasing grammars.
#include "hlo/attr_grammar.h"
#include "hlo/sharding.h"

namespace hlo::attr_internal {

bool ParseReplicaGroups(Scanner& s, ReplicaGroups* out) {
  if (out != nullptr) *out = ReplicaGroups{};
  if (s.Peek() != '[') {
    return ParseIntListList(s, out != nullptr ? &out->groups : nullptr);
  }
  // Iota form: [G,S]<=[dims]T(perm).
  size_t at = s.pos();
  std::vector<int64_t> dims;
  int64_t product = 0;
  size_t rank = 0;
  if (!ParseBracketDims(s, out != nullptr ? &dims : nullptr, &product, &rank)) {
    return false;
  }
  if (rank != 2) {
    return s.Fail(at, s.pos(),
                  "iota replica groups take [group_count,group_size]");
  }
  if (!s.TryConsume2("<=")) return s.FailHere("expected '<=' after [G,S]");
  if (!ParseIotaTail(s, product, out != nullptr ? &out->reshape_dims : nullptr,
                     out != nullptr ? &out->transpose_perm : nullptr)) {
    return false;
  }
  if (out != nullptr) {
    out->is_iota = true;
    out->num_groups = dims[0];
    out->group_size = dims[1];
  }
  return true;
}

bool ParseSourceTargetPairs(Scanner& s, std::vector<SourceTargetPair>* out) {
  if (!s.Expect('{')) return false;
  if (out != nullptr) out->clear();
  if (s.TryConsume('}')) return true;
  do {
    size_t at = (s.SkipSpace(), s.pos());
    SourceTargetPair pair;
    if (!s.Expect('{') || !s.Int(&pair.source)) return false;
    if (!s.TryConsume(',')) {
      return s.Fail(at, s.pos() + 1, "a source-target pair needs two ids");
    }
    if (!s.Int(&pair.target)) return false;
    if (s.Peek() == ',') {
      return s.Fail(at, s.pos() + 1,
                    "a source-target pair has exactly two ids");
    }
    if (!s.Expect('}')) return false;
    if (out != nullptr) out->push_back(pair);
  } while (s.TryConsume(','));
  return s.Expect('}');
}

bool ParseAliasing(Scanner& s, std::vector<OutputOperandAlias>* out) {
  if (!s.Expect('{')) return false;
  if (out != nullptr) out->clear();
  if (s.TryConsume('}')) return true;
  do {
    OutputOperandAlias* alias = out != nullptr ? &out->emplace_back() : nullptr;
    if (!ParseIntList(
            s, alias != nullptr ? &alias->output_shape_index : nullptr) ||
        !s.Expect(':') || !s.Expect('(')) {
      return false;
    }
    int64_t operand = 0;
    if (!s.NonNegativeInt(&operand)) return false;
    if (!s.Expect(',') ||
        !ParseIntList(
            s, alias != nullptr ? &alias->operand_shape_index : nullptr) ||
        !s.Expect(')')) {
      return false;
    }
    if (alias != nullptr) alias->operand_index = operand;
  } while (s.TryConsume(','));
  return s.Expect('}');
}

bool ParseIntListOrListList(Scanner& s) {
  size_t open = (s.SkipSpace(), s.pos());
  if (!s.Expect('{')) return false;
  bool nested = s.Peek() == '{';
  s.set_pos(open);
  return nested ? ParseIntListList(s, nullptr) : ParseIntList(s, nullptr);
}

}  // namespace hlo::attr_internal
