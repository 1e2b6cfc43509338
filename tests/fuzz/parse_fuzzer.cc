// Feeds arbitrary bytes to hlo::Parse, then walks every table the way the
// server does: spans must lie inside the text, ids inside their tables, and
// every offset must convert to a line/column and back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "hlo/parser.h"
#include "hlo/shape_util.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckSpan(const hlo::ParsedFile& file, hlo::Span span) {
  Check(span.begin <= span.end && span.end <= file.text().size());
  for (hlo::Offset offset : {span.begin, span.end}) {
    for (hlo::ColumnUnit unit :
         {hlo::ColumnUnit::kUtf8Bytes, hlo::ColumnUnit::kUtf16CodeUnits}) {
      hlo::LineColumn at = file.lines().ToLineColumn(offset, unit);
      Check(at.line < file.lines().line_count());
      Check(file.lines().ToOffset(at, unit) <= file.text().size());
    }
  }
  volatile size_t sink = file.Text(span).size();
  (void)sink;
}

template <typename T>
void CheckId(hlo::Id id, const std::vector<T>& table) {
  Check(id == hlo::kNone || id < table.size());
}

template <typename T>
void CheckSlice(hlo::Slice slice, const std::vector<T>& table) {
  Check(slice.begin <= table.size() &&
        slice.count <= table.size() - slice.begin);
}

void WalkShape(const hlo::ParsedFile& file, hlo::Id id) {
  if (id == hlo::kNone) return;
  Check(id < file.shapes.size());
  const hlo::Shape& shape = file.shapes[id];
  CheckSpan(file, shape.span);
  CheckSlice(shape.dims, file.ints);
  CheckSlice(shape.dynamic, file.ints);
  CheckSlice(shape.tuple, file.shape_ids);
  CheckId(shape.layout, file.layouts);
  (void)hlo::ElementCount(file, id);
  (void)hlo::ByteSize(file, id);
  (void)hlo::ShapeToString(file, id);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<hlo::ParsedFile> parsed = hlo::Parse(text);
  const hlo::ParsedFile& file = *parsed;
  Check(file.text().size() == size);

  for (const hlo::Module& module : file.modules) {
    CheckSpan(file, module.span);
    CheckSpan(file, module.name);
    CheckSlice(module.header_attributes, file.attributes);
    CheckSlice(module.computations, file.computations);
    CheckId(module.entry, file.computations);
    for (hlo::Span s : module.stack_frames.file_names) CheckSpan(file, s);
    for (hlo::Span s : module.stack_frames.function_names) CheckSpan(file, s);
  }
  for (const hlo::Computation& computation : file.computations) {
    CheckSpan(file, computation.span);
    CheckSpan(file, computation.name);
    CheckSpan(file, computation.body);
    CheckId(computation.module, file.modules);
    CheckSlice(computation.parameters, file.parameters);
    CheckSlice(computation.instructions, file.instructions);
    CheckId(computation.root, file.instructions);
    WalkShape(file, computation.result_shape);
  }
  for (const hlo::Instruction& instruction : file.instructions) {
    CheckSpan(file, instruction.span);
    CheckSpan(file, instruction.name);
    CheckSpan(file, instruction.opcode_span);
    CheckSpan(file, instruction.operand_list);
    CheckId(instruction.computation, file.computations);
    CheckSlice(instruction.operands, file.operands);
    CheckSlice(instruction.attributes, file.attributes);
    CheckSlice(instruction.called, file.computation_refs);
    CheckSlice(instruction.control_predecessors, file.name_refs);
    WalkShape(file, instruction.shape);
    for (hlo::Id a = instruction.attributes.begin;
         a < instruction.attributes.end(); ++a) {
      (void)file.FindAttribute(instruction, file.Text(file.attributes[a].key));
    }
  }
  for (const hlo::Operand& operand : file.operands) {
    CheckSpan(file, operand.span);
    CheckSpan(file, operand.name);
    CheckId(operand.definition, file.instructions);
    CheckId(operand.nested, file.instructions);
    WalkShape(file, operand.shape);
  }
  for (const hlo::Attribute& attribute : file.attributes) {
    CheckSpan(file, attribute.span);
    CheckSpan(file, attribute.key);
    CheckSpan(file, attribute.value);
  }
  for (const hlo::ComputationRef& ref : file.computation_refs) {
    CheckSpan(file, ref.name);
    CheckId(ref.instruction, file.instructions);
    CheckId(ref.attribute, file.attributes);
    CheckId(ref.computation, file.computations);
  }
  for (const hlo::NameRef& ref : file.name_refs) {
    CheckSpan(file, ref.name);
    CheckId(ref.definition, file.instructions);
  }
  for (const hlo::Parameter& parameter : file.parameters) {
    CheckSpan(file, parameter.name);
    WalkShape(file, parameter.shape);
  }
  for (const hlo::Layout& layout : file.layouts) {
    CheckSpan(file, layout.span);
    CheckSlice(layout.minor_to_major, file.ints);
    CheckSlice(layout.tiles, file.tiles);
  }
  for (const hlo::Tile& tile : file.tiles) CheckSlice(tile.dims, file.ints);
  for (hlo::Id id : file.shape_ids) CheckId(id, file.shapes);
  for (const hlo::Diagnostic& diagnostic : file.diagnostics) {
    CheckSpan(file, diagnostic.span);
    Check(!diagnostic.message.empty());
  }
  (void)file.HasErrors();
  (void)file.MemoryUsage();
  return 0;
}
