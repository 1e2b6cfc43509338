#include "hlo/proto/literal_print.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/primitive_type.h"
#include "hlo/proto/small_float.h"

namespace hlo::proto {
namespace {

constexpr int kMaxLiteralNesting = 64;  // tuple depth and rank we print

// --------------------------------------------------------------- values --

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f,
                 mantissa = h & 0x3ff;
  float value;
  if (exponent == 0) {
    value = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    value = mantissa ? NAN : INFINITY;
  } else {
    value = std::ldexp(static_cast<float>(mantissa | 0x400),
                       static_cast<int>(exponent) - 25);
  }
  return sign ? -value : value;
}

float Bf16ToFloat(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

void AppendFloat(double value, bool single, std::string* out) {
  if (std::isnan(value)) {
    out->append(std::signbit(value) ? "-nan" : "nan");
    return;
  }
  if (std::isinf(value)) {
    out->append(value < 0 ? "-inf" : "inf");
    return;
  }
  char buffer[64];
  auto result = single ? std::to_chars(buffer, buffer + sizeof(buffer),
                                       static_cast<float>(value))
                       : std::to_chars(buffer, buffer + sizeof(buffer), value);
  out->append(buffer, static_cast<size_t>(result.ptr - buffer));
}

uint16_t Le16(const std::string& bytes, int64_t i) {
  return static_cast<uint16_t>(static_cast<uint8_t>(bytes[2 * i]) |
                               (static_cast<uint8_t>(bytes[2 * i + 1]) << 8));
}

// Appends element `i` (physical order) of an array literal.
class ElementWriter {
 public:
  ElementWriter(const xla::LiteralProto& literal, int type)
      : literal_(literal), type_(type), small_(SmallFloatFormat(type)) {}

  // True when the literal holds exactly `count` elements of its type.
  bool Matches(int64_t count) const {
    const auto& l = literal_;
    switch (type_) {
      case xla::PRED:
        return l.preds_size() == count;
      case xla::S1:
        return static_cast<int64_t>(l.s1s().size()) == count;
      case xla::S2:
        return static_cast<int64_t>(l.s2s().size()) == count;
      case xla::S4:
        return static_cast<int64_t>(l.s4s().size()) == count;
      case xla::S8:
        return static_cast<int64_t>(l.s8s().size()) == count;
      case xla::U1:
        return static_cast<int64_t>(l.u1s().size()) == count;
      case xla::U2:
        return static_cast<int64_t>(l.u2s().size()) == count;
      case xla::U4:
        return static_cast<int64_t>(l.u4s().size()) == count;
      case xla::U8:
        return static_cast<int64_t>(l.u8s().size()) == count;
      case xla::S16:
        return static_cast<int64_t>(l.s16s().size()) == 2 * count;
      case xla::U16:
        return static_cast<int64_t>(l.u16s().size()) == 2 * count;
      case xla::F16:
        return static_cast<int64_t>(l.f16s().size()) == 2 * count;
      case xla::BF16:
        return static_cast<int64_t>(l.bf16s().size()) == 2 * count;
      case xla::S32:
        return l.s32s_size() == count;
      case xla::S64:
        return l.s64s_size() == count;
      case xla::U32:
        return l.u32s_size() == count;
      case xla::U64:
        return l.u64s_size() == count;
      case xla::F32:
        return l.f32s_size() == count;
      case xla::F64:
        return l.f64s_size() == count;
      case xla::C64:
        return l.c64s_size() == 2 * count;
      case xla::C128:
        return l.c128s_size() == 2 * count;
      default:
        return small_ && static_cast<int64_t>(SmallBytes().size()) == count;
    }
  }

  void Append(int64_t i, std::string* out) const {
    const auto& l = literal_;
    switch (type_) {
      case xla::PRED:
        out->append(l.preds(i) ? "true" : "false");
        return;
      case xla::S1:
        return AppendSigned(l.s1s()[i], 1, out);
      case xla::S2:
        return AppendSigned(l.s2s()[i], 2, out);
      case xla::S4:
        return AppendSigned(l.s4s()[i], 4, out);
      case xla::S8:
        return AppendSigned(l.s8s()[i], 8, out);
      case xla::U1:
        return AppendUnsigned(l.u1s()[i], 1, out);
      case xla::U2:
        return AppendUnsigned(l.u2s()[i], 2, out);
      case xla::U4:
        return AppendUnsigned(l.u4s()[i], 4, out);
      case xla::U8:
        return AppendUnsigned(l.u8s()[i], 8, out);
      case xla::S16:
        absl::StrAppend(out, static_cast<int16_t>(Le16(l.s16s(), i)));
        return;
      case xla::U16:
        absl::StrAppend(out, Le16(l.u16s(), i));
        return;
      case xla::F16:
        AppendFloat(HalfToFloat(Le16(l.f16s(), i)), true, out);
        return;
      case xla::BF16:
        AppendFloat(Bf16ToFloat(Le16(l.bf16s(), i)), true, out);
        return;
      case xla::S32:
        absl::StrAppend(out, l.s32s(i));
        return;
      case xla::S64:
        absl::StrAppend(out, l.s64s(i));
        return;
      case xla::U32:
        absl::StrAppend(out, l.u32s(i));
        return;
      case xla::U64:
        absl::StrAppend(out, l.u64s(i));
        return;
      case xla::F32:
        AppendFloat(l.f32s(i), true, out);
        return;
      case xla::F64:
        AppendFloat(l.f64s(i), false, out);
        return;
      case xla::C64:
        out->push_back('(');
        AppendFloat(l.c64s(2 * i), true, out);
        out->append(", ");
        AppendFloat(l.c64s(2 * i + 1), true, out);
        out->push_back(')');
        return;
      case xla::C128:
        out->push_back('(');
        AppendFloat(l.c128s(2 * i), false, out);
        out->append(", ");
        AppendFloat(l.c128s(2 * i + 1), false, out);
        out->push_back(')');
        return;
      default:
        if (small_) {
          AppendFloat(
              DecodeSmallFloat(static_cast<uint8_t>(SmallBytes()[i]), *small_),
              true, out);
        }
        return;
    }
  }

 private:
  const std::string& SmallBytes() const {
    const auto& l = literal_;
    switch (type_) {
      case xla::F8E5M2:
        return l.f8e5m2s();
      case xla::F8E4M3:
        return l.f8e4m3s();
      case xla::F8E4M3FN:
        return l.f8e4m3fns();
      case xla::F8E4M3B11FNUZ:
        return l.f8e4m3b11fnuzs();
      case xla::F8E3M4:
        return l.f8e3m4s();
      case xla::F8E5M2FNUZ:
        return l.f8e5m2fnuzs();
      case xla::F8E4M3FNUZ:
        return l.f8e4m3fnuzs();
      case xla::F4E2M1FN:
        return l.f4e2m1fns();
      default:
        return l.f8e8m0fnus();
    }
  }
  // Sub-byte and byte integers: one element per byte, low bits significant.
  static void AppendSigned(char c, int bits, std::string* out) {
    int value = static_cast<uint8_t>(c) & ((1 << bits) - 1);
    if (value & (1 << (bits - 1))) value -= 1 << bits;
    absl::StrAppend(out, value);
  }
  static void AppendUnsigned(char c, int bits, std::string* out) {
    absl::StrAppend(out, static_cast<uint8_t>(c) & ((1 << bits) - 1));
  }

  const xla::LiteralProto& literal_;
  int type_;
  std::optional<SmallFloat> small_;
};

std::optional<int64_t> ArrayElementCount(const xla::ShapeProto& shape) {
  int64_t count = 1;
  for (int64_t d : shape.dimensions()) {
    if (d < 0) return std::nullopt;
    if (d > 0 && count > INT64_MAX / d) return std::nullopt;
    count *= d;
  }
  return count;
}

struct ArrayPrinter {
  const ElementWriter& writer;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;  // physical stride of each logical dim
  std::string* out;

  void Print(size_t dim, int64_t offset) {
    if (dim == dims.size()) {
      writer.Append(offset, out);
      return;
    }
    const bool innermost = dim + 1 == dims.size();
    out->append(innermost ? "{" : "{ ");
    for (int64_t i = 0; i < dims[dim]; ++i) {
      if (i > 0) out->append(", ");
      Print(dim + 1, offset + i * strides[dim]);
    }
    out->append(innermost ? "}" : " }");
  }
};

bool AppendValues(const xla::LiteralProto& literal,
                  const xla::ShapeProto& shape, std::string* out, int depth) {
  if (depth > kMaxLiteralNesting) return false;
  const int type = shape.element_type();
  if (type == xla::TUPLE) {
    if (literal.tuple_literals_size() != shape.tuple_shapes_size()) {
      return false;
    }
    out->push_back('(');
    for (int i = 0; i < shape.tuple_shapes_size(); ++i) {
      if (i > 0) out->append(", ");
      if (!AppendValues(literal.tuple_literals(i), shape.tuple_shapes(i), out,
                        depth + 1)) {
        return false;
      }
    }
    out->push_back(')');
    return true;
  }
  if (type == xla::TOKEN || type == xla::OPAQUE_TYPE) return false;
  const int rank = shape.dimensions_size();
  if (rank > kMaxLiteralNesting) return false;
  std::optional<int64_t> count = ArrayElementCount(shape);
  if (!count) return false;
  ElementWriter writer(literal, type);
  if (!writer.Matches(*count)) return false;
  ArrayPrinter printer{writer, {}, {}, out};
  printer.dims.assign(shape.dimensions().begin(), shape.dimensions().end());
  printer.strides.assign(rank, 0);
  // Physical strides from minor_to_major; default layout is row-major.
  std::vector<int64_t> order;
  const auto& m2m = shape.layout().minor_to_major();
  std::vector<bool> seen(rank, false);
  bool valid = m2m.size() == rank;
  for (int i = 0; valid && i < rank; ++i) {
    valid = m2m[i] >= 0 && m2m[i] < rank && !seen[m2m[i]];
    if (valid) seen[m2m[i]] = true;
  }
  for (int i = 0; i < rank; ++i) {
    order.push_back(valid ? m2m[i] : rank - 1 - i);
  }
  int64_t stride = 1;
  for (int64_t d : order) {
    printer.strides[d] = stride;
    stride *= printer.dims[d];
  }
  // Only the empty-element and scalar cases skip the braces logic.
  if (*count == 0 && rank > 0) {
    // Braces down to the first empty dimension: f32[2,0] is {{}, {}}.
    int first_empty = 0;
    int64_t outer = 1;
    while (first_empty < rank && printer.dims[first_empty] != 0) {
      outer *= printer.dims[first_empty++];
      if (outer > 100000) return false;  // the caller elides it
    }
    std::function<void(int)> nest = [&](int d) {
      out->push_back('{');
      if (d < first_empty) {
        for (int64_t k = 0; k < printer.dims[d]; ++k) {
          if (k > 0) out->append(", ");
          nest(d + 1);
        }
      }
      out->push_back('}');
    };
    nest(0);
    return true;
  }
  printer.Print(0, 0);
  return true;
}

}  // namespace

std::optional<int64_t> LiteralElementCount(const xla::LiteralProto& literal) {
  const xla::ShapeProto& shape = literal.shape();
  if (shape.element_type() == xla::TUPLE) {
    int64_t total = 0;
    if (literal.tuple_literals_size() > 1000000) return std::nullopt;
    for (const auto& element : literal.tuple_literals()) {
      std::optional<int64_t> n = LiteralElementCount(element);
      if (!n || *n > INT64_MAX - total) return std::nullopt;
      total += *n;
    }
    return total;
  }
  return ArrayElementCount(shape);
}

bool AppendLiteralValues(const xla::LiteralProto& literal, std::string* out) {
  const size_t mark = out->size();
  if (!AppendValues(literal, literal.shape(), out, 0)) {
    out->resize(mark);
    return false;
  }
  return true;
}

}  // namespace hlo::proto
