#include "hlo/syntax.h"

namespace hlo {

const Attribute* ParsedFile::FindAttribute(const Instruction& instruction,
                                           std::string_view key) const {
  for (Id i = instruction.attributes.begin; i < instruction.attributes.end();
       ++i) {
    if (Text(attributes[i].key) == key) return &attributes[i];
  }
  return nullptr;
}

bool ParsedFile::HasErrors() const {
  for (const Diagnostic& d : diagnostics) {
    if (d.severity == Severity::kError) return true;
  }
  return false;
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
           Bytes(diagnostics);
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
