// collective-permute and collective-permute-start (XLA's hlo_verifier.cc:
// CheckInplaceCollectivePermute, CheckDuplicatedSourceOrTarget). The
// in-place form (written with slice_sizes=, four operands: input and output
// buffers, input and output offsets) lets a source or target repeat once per
// offset; every other form allows each at most once.
#include <map>
#include <optional>

#include "base/strings.h"
#include "hlo/attributes.h"
#include "hlo/shape_inference.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

bool IsPermute(Opcode op) {
  return op == Opcode::kCollectivePermute ||
         op == Opcode::kCollectivePermuteStart;
}

// An offset operand: a tuple of scalars (one index per buffer dimension) or
// a tuple of such tuples (one per slice). Empty when it fits `buffer`.
std::string CheckBufferOffset(const InferredShape& buffer,
                              const InferredShape& offset) {
  if (!offset.is_tuple()) return "Buffer offset is not tuple.";
  bool all_array = true, all_tuple = true;
  for (const InferredShape& e : offset.tuple) {
    all_array &= IsArray(e);
    all_tuple &= e.is_tuple();
  }
  if (!all_array && !all_tuple) {
    return "Buffer offset should either be a tuple of arrays or  a tuple of "
           "tuples.";
  }
  const size_t rank = buffer.dims.size();
  bool fits = true;
  if (all_tuple) {
    for (const InferredShape& e : offset.tuple) fits &= e.tuple.size() == rank;
  } else {
    fits = offset.tuple.size() == rank;
  }
  return fits ? ""
              : "Buffer offset index should have the same number of elements "
                "as the buffer's rank.";
}

// The buffers against the offsets; empty when they fit.
std::string CheckInPlace(const InferredShape& in, const InferredShape& out,
                         const InferredShape& in_offset,
                         const InferredShape& out_offset) {
  if (IsArray(in) && IsArray(out)) {
    std::string error = CheckBufferOffset(in, in_offset);
    return error.empty() ? CheckBufferOffset(out, out_offset) : error;
  }
  if (!in.is_tuple() || !out.is_tuple() ||
      in.tuple.size() != out.tuple.size()) {
    return "Unmatching input buffers and output buffers.";
  }
  if (!in_offset.is_tuple() || in_offset.tuple.size() != in.tuple.size()) {
    return "Unmatching input buffers and input offset.";
  }
  for (size_t i = 0; i < in.tuple.size(); ++i) {
    std::string error = CheckBufferOffset(in.tuple[i], in_offset.tuple[i]);
    if (!error.empty()) return error;
  }
  if (!out_offset.is_tuple() || out_offset.tuple.size() != out.tuple.size()) {
    return "Unmatching output buffers and output offset.";
  }
  for (size_t i = 0; i < out.tuple.size(); ++i) {
    std::string error = CheckBufferOffset(out.tuple[i], out_offset.tuple[i]);
    if (!error.empty()) return error;
  }
  return "";
}

// How often a source or target may appear: once, or in the in-place form
// once per offset (the input offset's elements, per buffer for tuples).
// nullopt when the in-place operands are not known well enough to say.
std::optional<size_t> AllowedRepeats(const ParsedFile& file,
                                     const Instruction& inst, bool inplace) {
  if (!inplace) return 1;
  std::optional<InferredShape> in = OperandShape(file, inst, 0);
  std::optional<InferredShape> offset = OperandShape(file, inst, 2);
  if (!in || !offset || !offset->is_tuple()) return std::nullopt;
  if (IsArray(*in)) return offset->tuple.size();
  if (offset->tuple.empty() || !offset->tuple[0].is_tuple()) {
    return std::nullopt;
  }
  return offset->tuple[0].tuple.size();
}

void CheckPairs(const Findings& f, const Instruction& inst, size_t allowed) {
  const ParsedFile& file = f.file;
  const Attribute* attr = file.FindAttribute(inst, "source_target_pairs");
  if (attr == nullptr) return;
  absl::StatusOr<std::vector<SourceTargetPair>> pairs =
      DecodeSourceTargetPairs(file.Text(attr->value));
  if (!pairs.ok()) return;
  auto too_many = [&](std::string_view what, int64_t id) {
    f.Error(attr->span,
            allowed == 1
                ? base::Cat(what, " ", id,
                            " appears more than once in instruction's "
                            "source-target pairs")
                : base::Cat(what, " ", id, " appears more than ", allowed,
                            " times in instruction's source-target pairs: ",
                            file.Name(inst)));
  };
  std::map<int64_t, size_t> sources, targets;
  for (const SourceTargetPair& p : *pairs) {
    if (++sources[p.source] > allowed) return too_many("Source", p.source);
    if (++targets[p.target] > allowed) return too_many("Target", p.target);
  }
}

}  // namespace

void CheckCollectivePermutes(const Findings& f) {
  const ParsedFile& file = f.file;
  for (const Instruction& inst : file.instructions) {
    if (!IsPermute(inst.opcode)) continue;
    // XLA's parser makes the in-place form only with slice_sizes= (and then
    // requires four operands, which the operand count check reports).
    const bool inplace = file.FindAttribute(inst, "slice_sizes") != nullptr;
    if (inplace) {
      if (inst.operands.count != 4) continue;
      std::optional<InferredShape> s[4];
      for (Id i = 0; i < 4; ++i) s[i] = OperandShape(file, inst, i);
      if (s[0] && s[1] && s[2] && s[3]) {
        std::string error = CheckInPlace(*s[0], *s[1], *s[2], *s[3]);
        if (!error.empty()) {
          f.Error(inst.operand_list, std::move(error));
          continue;
        }
      }
    } else if (inst.operands.count != 1) {
      // The combined form (several buffers, no offsets) changed across XLA
      // versions: its pairs are not checked.
      continue;
    }
    if (std::optional<size_t> allowed = AllowedRepeats(file, inst, inplace)) {
      CheckPairs(f, inst, *allowed);
    }
  }
}

}  // namespace hlo::verify_internal
