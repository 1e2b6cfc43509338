// Parsed shapes and layouts into ShapeProto / LayoutProto.
#include <climits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "hlo/parser.h"
#include "hlo/proto/encode_internal.h"

namespace hlo::proto {
namespace {

using internal::kMaxShapeDepth;
using internal::ReadInt;
using internal::ReadIntList;
using internal::Split;
using internal::Trim;

void EncodeLayoutExtras(std::string_view text, xla::LayoutProto* layout);

void EncodeShapeImpl(const ParsedFile& file, Id id, xla::ShapeProto* out,
                     int depth) {
  if (id == kNone || id >= file.shapes.size() || depth > kMaxShapeDepth) return;
  const Shape& shape = file.shapes[id];
  out->set_element_type(static_cast<xla::PrimitiveType>(shape.element_type));
  // A buffer b(s) keeps its one element shape as tuple element 0.
  if (shape.is_tuple() || shape.element_type == PrimitiveType::kBuffer) {
    for (Id k = shape.tuple.begin; k < shape.tuple.end(); ++k) {
      EncodeShapeImpl(file, file.shape_ids[k], out->add_tuple_shapes(),
                      depth + 1);
    }
    return;
  }
  for (Id k = shape.dims.begin; k < shape.dims.end(); ++k) {
    out->add_dimensions(file.ints[k]);
  }
  bool any_dynamic = false;
  for (Id k = shape.dynamic.begin; k < shape.dynamic.end(); ++k) {
    any_dynamic |= file.ints[k] != 0;
  }
  if (any_dynamic) {
    for (Id k = shape.dynamic.begin; k < shape.dynamic.end(); ++k) {
      out->add_is_dynamic_dimension(file.ints[k] != 0);
    }
  }
  if (shape.layout == kNone) return;
  const Layout& layout = file.layouts[shape.layout];
  auto* l = out->mutable_layout();
  for (Id k = layout.minor_to_major.begin; k < layout.minor_to_major.end();
       ++k) {
    l->add_minor_to_major(file.ints[k]);
  }
  for (Id t = layout.tiles.begin; t < layout.tiles.end(); ++t) {
    auto* tile = l->add_tiles();
    const Tile& parsed = file.tiles[t];
    for (Id k = parsed.dims.begin; k < parsed.dims.end(); ++k) {
      const int64_t d = file.ints[k];
      // XLA's combine-dimension sentinel is INT64_MIN.
      tile->add_dimensions(d == kTileCombineDim ? INT64_MIN : d);
    }
  }
  l->set_element_size_in_bits(layout.element_size_in_bits);
  l->set_memory_space(layout.memory_space);
  l->set_tail_padding_alignment_in_elements(layout.tail_padding_alignment);
  l->set_dynamic_shape_metadata_prefix_bytes(
      layout.dynamic_metadata_prefix_bytes);
  l->set_index_primitive_type(
      static_cast<xla::PrimitiveType>(layout.index_type));
  l->set_pointer_primitive_type(
      static_cast<xla::PrimitiveType>(layout.pointer_type));
  EncodeLayoutExtras(file.Text(layout.extras), l);
}

}  // namespace

namespace {

// The layout items the parser keeps as raw text: D(D,C+~) dim level types
// (+ = not unique, ~ = not ordered) and SC(dim:i,j)(...) split configs.
// P(physical shape) is read back through the parser.
void EncodeLayoutExtras(std::string_view text, xla::LayoutProto* layout) {
  size_t i = 0;
  while (i < text.size()) {
    size_t name_end = i;
    while (name_end < text.size() && text[name_end] != '(') ++name_end;
    const std::string_view name = Trim(text.substr(i, name_end - i));
    // Each '(' ... ')' group after the name, balanced.
    size_t at = name_end;
    while (at < text.size() && text[at] == '(') {
      int open = 0;
      size_t close = at;
      for (; close < text.size(); ++close) {
        if (text[close] == '(') ++open;
        if (text[close] == ')' && --open == 0) break;
      }
      if (close >= text.size()) return;
      const std::string_view inside = text.substr(at + 1, close - at - 1);
      if (name == "D") {
        for (std::string_view item : Split(inside, ',')) {
          item = Trim(item);
          if (item.empty()) continue;
          const char kind = item[0];
          layout->add_dim_level_types(kind == 'C'   ? xla::DIM_COMPRESSED
                                      : kind == 'S' ? xla::DIM_SINGLETON
                                      : kind == 'H' ? xla::DIM_LOOSE_COMPRESSED
                                                    : xla::DIM_DENSE);
          layout->add_dim_unique(item.find('+') == std::string_view::npos);
          layout->add_dim_ordered(item.find('~') == std::string_view::npos);
        }
      } else if (name == "P" && inside.find("P(") == std::string_view::npos) {
        // The parser keeps P(...) as text; a one-instruction module reads
        // the shape (one level: a physical shape with its own P is skipped).
        const std::string probe = absl::StrCat(
            "HloModule p\nENTRY e {\n  ROOT p = ", base::ToAbsl(inside),
            " parameter(0)\n}\n");
        std::unique_ptr<ParsedFile> parsed = Parse(probe);
        if (!parsed->HasErrors() && parsed->instructions.size() == 1 &&
            parsed->instructions[0].shape != kNone) {
          *layout->mutable_physical_shape() =
              EncodeShape(*parsed, parsed->instructions[0].shape);
        }
      } else if (name == "SC") {
        const size_t colon = inside.find(':');
        int64_t dimension = 0;
        std::vector<int64_t> indices;
        if (colon != std::string_view::npos &&
            ReadInt(inside.substr(0, colon), &dimension) &&
            ReadIntList(inside.substr(colon + 1), &indices)) {
          auto* split = layout->add_split_configs();
          split->set_dimension(dimension);
          for (int64_t index : indices) split->add_split_indices(index);
        }
      }
      at = close + 1;
    }
    i = at > name_end ? at : name_end + 1;
  }
}

}  // namespace

xla::ShapeProto EncodeShape(const ParsedFile& file, Id shape) {
  xla::ShapeProto out;
  EncodeShapeImpl(file, shape, &out, 0);
  return out;
}

}  // namespace hlo::proto
