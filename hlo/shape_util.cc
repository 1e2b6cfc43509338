#include "hlo/shape_util.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace hlo {
namespace {

constexpr int kMaxShapeDepth = 64;

bool MulOverflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}

std::optional<int64_t> ByteSizeImpl(const ParsedFile& file, Id id, int depth) {
  if (id == kNone || id >= file.shapes.size() || depth > kMaxShapeDepth) {
    return std::nullopt;
  }
  const Shape& shape = file.shapes[id];
  if (shape.is_tuple()) {
    int64_t total = 0;
    for (Id i = shape.tuple.begin; i < shape.tuple.end(); ++i) {
      auto leaf = ByteSizeImpl(file, file.shape_ids[i], depth + 1);
      if (!leaf || __builtin_add_overflow(total, *leaf, &total)) {
        return std::nullopt;
      }
    }
    return total;
  }
  auto count = ElementCount(file, id);
  if (!count) return std::nullopt;
  int bits = PrimitiveTypeBitWidth(shape.element_type);
  int64_t total_bits;
  if (MulOverflows(*count, bits, &total_bits)) return std::nullopt;
  return (total_bits + 7) / 8;
}

void AppendShape(const ParsedFile& file, Id id, bool with_layout, int depth,
                 std::string* out) {
  if (id == kNone || id >= file.shapes.size() || depth > kMaxShapeDepth) {
    out->append("?");
    return;
  }
  const Shape& shape = file.shapes[id];
  if (shape.is_tuple()) {
    out->push_back('(');
    for (Id i = shape.tuple.begin; i < shape.tuple.end(); ++i) {
      if (i != shape.tuple.begin) out->append(", ");
      AppendShape(file, file.shape_ids[i], with_layout, depth + 1, out);
    }
    out->push_back(')');
    return;
  }
  if (!with_layout || shape.layout == kNone) {
    // Print from the parsed fields so that hand-written spacing is normalised.
    out->append(PrimitiveTypeName(shape.element_type));
    out->push_back('[');
    for (Id i = 0; i < shape.dims.count; ++i) {
      if (i) out->push_back(',');
      int64_t d = file.ints[shape.dims.begin + i];
      bool dynamic =
          !shape.dynamic.empty() && file.ints[shape.dynamic.begin + i] != 0;
      if (d == kUnboundedDim) {
        out->push_back('?');
      } else {
        if (dynamic) out->append("<=");
        absl::StrAppend(out, d);
      }
    }
    out->push_back(']');
    return;
  }
  // With a layout, the source text is already XLA's spelling.
  std::string_view text = file.Text(shape.span);
  out->append(text.data(), text.size());
}

}  // namespace

std::optional<int64_t> ElementCount(const ParsedFile& file, Id id) {
  if (id == kNone || id >= file.shapes.size()) return std::nullopt;
  const Shape& shape = file.shapes[id];
  if (shape.is_tuple()) return std::nullopt;
  int64_t count = 1;
  for (Id i = shape.dims.begin; i < shape.dims.end(); ++i) {
    int64_t d = file.ints[i];
    if (d < 0 || MulOverflows(count, d, &count)) return std::nullopt;
  }
  return count;
}

std::optional<int64_t> ByteSize(const ParsedFile& file, Id id) {
  return ByteSizeImpl(file, id, 0);
}

int Rank(const ParsedFile& file, Id id) {
  if (id == kNone || id >= file.shapes.size()) return 0;
  const Shape& shape = file.shapes[id];
  return shape.is_tuple() ? 0 : static_cast<int>(shape.dims.count);
}

std::string ShapeToString(const ParsedFile& file, Id id, bool with_layout) {
  std::string out;
  AppendShape(file, id, with_layout, 0, &out);
  return out;
}

}  // namespace hlo
