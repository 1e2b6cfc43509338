#include "hlo/syntax.h"

namespace hlo {

const Attribute* ParsedFile::FindAttribute(const Instruction& instruction,
                                           std::string_view key) const {
  // The verifier asks every instruction for several keys: a key of another
  // length or first byte is passed over without a call to memcmp.
  if (key.empty()) return nullptr;
  for (Id i = instruction.attributes.begin; i < instruction.attributes.end();
       ++i) {
    const std::string_view text = Text(attributes[i].key);
    if (text.size() == key.size() && text[0] == key[0] && text == key) {
      return &attributes[i];
    }
  }
  return nullptr;
}

bool ParsedFile::HasErrors() const {
  for (const Diagnostic& d : diagnostics) {
    if (d.severity == Severity::kError) return true;
  }
  return false;
}

void ParsedFile::BuildReverseEdges() {
  const Id n = static_cast<Id>(instructions.size());
  use_offsets.assign(n + 1, 0);
  for (const Operand& op : operands) {
    if (op.definition < n && !op.name.empty()) ++use_offsets[op.definition + 1];
  }
  for (Id i = 0; i < n; ++i) use_offsets[i + 1] += use_offsets[i];
  use_edges.resize(use_offsets[n]);
  std::vector<Id> cursor(use_offsets.begin(), use_offsets.end() - 1);
  // Walk users in id order so each run lists its uses in text order.
  for (Id user = 0; user < n; ++user) {
    const Instruction& inst = instructions[user];
    for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
      const Operand& op = operands[o];
      if (op.definition < n && !op.name.empty()) {
        use_edges[cursor[op.definition]++] = UseEdge{user, o};
      }
    }
  }
  const Id m = static_cast<Id>(computations.size());
  caller_offsets.assign(m + 1, 0);
  for (const ComputationRef& ref : computation_refs) {
    if (ref.computation < m) ++caller_offsets[ref.computation + 1];
  }
  for (Id c = 0; c < m; ++c) caller_offsets[c + 1] += caller_offsets[c];
  caller_refs.resize(caller_offsets[m]);
  cursor.assign(caller_offsets.begin(), caller_offsets.end() - 1);
  for (Id r = 0; r < computation_refs.size(); ++r) {
    Id target = computation_refs[r].computation;
    if (target < m) caller_refs[cursor[target]++] = r;
  }
}

namespace {
template <typename T>
size_t Bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}
}  // namespace

size_t ParsedFile::MemoryUsage() const {
  size_t total = sizeof(*this);
  total += Bytes(modules) + Bytes(computations) + Bytes(instructions) +
           Bytes(operands) + Bytes(attributes) + Bytes(computation_refs) +
           Bytes(name_refs) + Bytes(parameters) + Bytes(shapes) +
           Bytes(layouts) + Bytes(tiles) + Bytes(shape_ids) + Bytes(ints) +
           Bytes(diagnostics) + Bytes(use_offsets) + Bytes(use_edges) +
           Bytes(caller_offsets) + Bytes(caller_refs);
  for (const Module& m : modules) {
    total += Bytes(m.stack_frames.file_names) +
             Bytes(m.stack_frames.function_names) +
             Bytes(m.stack_frames.file_locations) +
             Bytes(m.stack_frames.stack_frames);
  }
  for (const Diagnostic& d : diagnostics) total += d.message.capacity();
  // The line index: one Offset per line.
  total += lines().line_count() * sizeof(Offset);
  return total;
}

}  // namespace hlo
