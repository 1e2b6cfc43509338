// Shapes and layouts in XLA's spelling (`f32[2,3]{1,0:T(8,128)}`, tuples,
// buffers, dynamic and unbounded dimensions, every layout item).
#include <algorithm>
#include <charconv>
#include <cstring>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "hlo/primitive_type.h"
#include "hlo/proto/literal_print.h"

namespace hlo::proto {
namespace {

constexpr int kMaxShapeNesting = 64;  // tuple depth and rank we print

bool LayoutHasExtras(const xla::LayoutProto& layout) {
  return layout.tiles_size() > 0 || layout.element_size_in_bits() != 0 ||
         layout.memory_space() != 0 ||
         layout.tail_padding_alignment_in_elements() > 1 ||
         layout.index_primitive_type() != 0 ||
         layout.pointer_primitive_type() != 0 ||
         layout.split_configs_size() > 0 || layout.has_physical_shape() ||
         layout.dynamic_shape_metadata_prefix_bytes() != 0 ||
         std::any_of(layout.dim_level_types().begin(),
                     layout.dim_level_types().end(),
                     [](int t) { return t != xla::DIM_DENSE; });
}

void AppendInt(int64_t value, std::string* out) {
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out->append(buffer, static_cast<size_t>(result.ptr - buffer));
}

void AppendIntList(const google::protobuf::RepeatedField<int64_t>& values,
                   std::string* out) {
  for (int i = 0; i < values.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendInt(values[i], out);
  }
}

void AppendElementTypeName(int type, std::string* out) {
  if (type < 0 || type >= kPrimitiveTypeCount) {
    out->append("unknown_type_");
    AppendInt(type, out);
    return;
  }
  out->append(PrimitiveTypeName(static_cast<PrimitiveType>(type)));
}

void AppendLayout(const xla::LayoutProto& layout, std::string* out, int depth) {
  out->push_back('{');
  AppendIntList(layout.minor_to_major(), out);
  if (LayoutHasExtras(layout)) {
    out->push_back(':');
    bool sparse = false;
    for (int t : layout.dim_level_types()) sparse |= t != xla::DIM_DENSE;
    if (sparse) {
      out->append("D(");
      for (int i = 0; i < layout.dim_level_types_size(); ++i) {
        if (i > 0) out->push_back(',');
        static constexpr std::string_view kNames[] = {"D", "C", "S", "H"};
        const int t = layout.dim_level_types(i);
        out->append(t >= 0 && t < 4 ? kNames[t] : "D");
        if (i < layout.dim_unique_size() && !layout.dim_unique(i)) {
          out->push_back('+');
        }
        if (i < layout.dim_ordered_size() && !layout.dim_ordered(i)) {
          out->push_back('~');
        }
      }
      out->push_back(')');
    }
    if (layout.tiles_size() > 0) {
      out->push_back('T');
      for (const auto& tile : layout.tiles()) {
        out->push_back('(');
        for (int i = 0; i < tile.dimensions_size(); ++i) {
          if (i > 0) out->push_back(',');
          // XLA's combine-dimension marker is a negative sentinel.
          if (tile.dimensions(i) < 0) {
            out->push_back('*');
          } else {
            absl::StrAppend(out, tile.dimensions(i));
          }
        }
        out->push_back(')');
      }
    }
    if (layout.tail_padding_alignment_in_elements() > 1) {
      absl::StrAppend(out, "L(", layout.tail_padding_alignment_in_elements(),
                      ")");
    }
    if (layout.index_primitive_type() != 0) {
      absl::StrAppend(out, "#(", ElementTypeName(layout.index_primitive_type()),
                      ")");
    }
    if (layout.pointer_primitive_type() != 0) {
      absl::StrAppend(out, "*(",
                      ElementTypeName(layout.pointer_primitive_type()), ")");
    }
    if (layout.element_size_in_bits() != 0) {
      absl::StrAppend(out, "E(", layout.element_size_in_bits(), ")");
    }
    if (layout.memory_space() != 0) {
      absl::StrAppend(out, "S(", layout.memory_space(), ")");
    }
    if (layout.split_configs_size() > 0) {
      out->append("SC");
      for (const auto& split : layout.split_configs()) {
        absl::StrAppend(out, "(", split.dimension(), ":");
        AppendIntList(split.split_indices(), out);
        out->push_back(')');
      }
    }
    if (layout.has_physical_shape() && depth < kMaxShapeNesting) {
      out->append("P(");
      AppendShape(layout.physical_shape(), true, out);
      out->push_back(')');
    }
    if (layout.dynamic_shape_metadata_prefix_bytes() != 0) {
      absl::StrAppend(out, "M(", layout.dynamic_shape_metadata_prefix_bytes(),
                      ")");
    }
  }
  out->push_back('}');
}

// The common case in one append: an array of known type and static
// dimensions whose layout, if printed, is minor_to_major alone
// (`f32[2,3]{1,0}`). False, appending nothing, for anything else.
bool AppendPlainArrayShape(const xla::ShapeProto& shape, bool with_layout,
                           std::string* out) {
  constexpr int kMaxRank = 32;
  const int type = shape.element_type();
  const int rank = shape.dimensions_size();
  if (type <= 0 || type >= kPrimitiveTypeCount || type == xla::TOKEN ||
      type == xla::OPAQUE_TYPE || rank > kMaxRank ||
      shape.is_dynamic_dimension_size() > 0) {
    return false;
  }
  bool layout = false;
  if (with_layout && shape.has_layout()) {
    const xla::LayoutProto& l = shape.layout();
    if (rank == 0 || l.minor_to_major_size() == rank) {
      if (LayoutHasExtras(l)) return false;
      layout = rank > 0;
    }
  }
  // 20 digits and a comma per number, two lists, and the type name.
  char buffer[2 * kMaxRank * 21 + 64];
  char* p = buffer;
  char* const end = buffer + sizeof(buffer);
  const std::string_view name =
      PrimitiveTypeName(static_cast<PrimitiveType>(type));
  if (name.size() > 32) return false;
  std::memcpy(p, name.data(), name.size());
  p += name.size();
  *p++ = '[';
  for (int i = 0; i < rank; ++i) {
    const int64_t d = shape.dimensions(i);
    if (d < 0) return false;
    if (i > 0) *p++ = ',';
    p = std::to_chars(p, end, d).ptr;
  }
  *p++ = ']';
  if (layout) {
    *p++ = '{';
    const auto& m2m = shape.layout().minor_to_major();
    for (int i = 0; i < m2m.size(); ++i) {
      if (i > 0) *p++ = ',';
      p = std::to_chars(p, end, m2m[i]).ptr;
    }
    *p++ = '}';
  }
  out->append(buffer, static_cast<size_t>(p - buffer));
  return true;
}

void AppendShapeImpl(const xla::ShapeProto& shape, bool with_layout,
                     std::string* out, int depth) {
  if (depth > kMaxShapeNesting) {
    out->append("(/*nested too deep*/)");
    return;
  }
  const int type = shape.element_type();
  if (type == xla::TUPLE) {
    out->push_back('(');
    for (int i = 0; i < shape.tuple_shapes_size(); ++i) {
      if (i > 0) out->append(", ");
      AppendShapeImpl(shape.tuple_shapes(i), with_layout, out, depth + 1);
    }
    out->push_back(')');
    return;
  }
  if (type == xla::BUFFER) {
    out->append("b(");
    if (shape.tuple_shapes_size() > 0) {
      AppendShapeImpl(shape.tuple_shapes(0), with_layout, out, depth + 1);
    }
    out->push_back(')');
    return;
  }
  if (AppendPlainArrayShape(shape, with_layout, out)) return;
  AppendElementTypeName(type, out);
  out->push_back('[');
  const int dynamic_count = shape.is_dynamic_dimension_size();
  for (int i = 0; i < shape.dimensions_size(); ++i) {
    if (i > 0) out->push_back(',');
    const int64_t d = shape.dimensions(i);
    if (d < 0) {
      out->push_back('?');
    } else {
      if (i < dynamic_count && shape.is_dynamic_dimension(i)) {
        out->append("<=");
      }
      AppendInt(d, out);
    }
  }
  out->push_back(']');
  if (with_layout && shape.has_layout() && type != xla::TOKEN &&
      type != xla::OPAQUE_TYPE) {
    const xla::LayoutProto& layout = shape.layout();
    const bool rank_matches =
        layout.minor_to_major_size() == shape.dimensions_size();
    if ((shape.dimensions_size() > 0 && rank_matches) ||
        (shape.dimensions_size() == 0 && LayoutHasExtras(layout))) {
      AppendLayout(layout, out, depth + 1);
    }
  }
}

}  // namespace

std::string ElementTypeName(int type) {
  if (type < 0 || type >= kPrimitiveTypeCount) {
    return absl::StrCat("unknown_type_", type);
  }
  return std::string(PrimitiveTypeName(static_cast<PrimitiveType>(type)));
}

void AppendShape(const xla::ShapeProto& shape, bool with_layout,
                 std::string* out) {
  AppendShapeImpl(shape, with_layout, out, 0);
}

std::string ShapeText(const xla::ShapeProto& shape, bool with_layout) {
  std::string out;
  AppendShape(shape, with_layout, &out);
  return out;
}
}  // namespace hlo::proto
