// Constant values (the parser's LiteralValue, row-major) into LiteralProto:
// the field of the element type, in the physical order of the shape's
// layout; half, bfloat16 and the 8- and 4-bit floats rounded to nearest even.
#include <cmath>
#include <complex>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "hlo/proto/encode_internal.h"
#include "hlo/proto/small_float.h"

namespace hlo::proto::internal {
namespace {

// bfloat16 bits of `value`, rounded to nearest even (NaN stays NaN).
uint16_t FloatToBf16(double value) {
  const float f = static_cast<float>(value);
  uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof(bits));
  if (std::isnan(f)) return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

// IEEE half bits of `value`, rounded to nearest even; overflow gives inf.
uint16_t FloatToHalf(double value) {
  const float f = static_cast<float>(value);
  uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof(bits));
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  if (std::isnan(f)) return sign | 0x7e00;
  const float magnitude = std::fabs(f);
  if (magnitude >= 65520.0f) return sign | 0x7c00;  // rounds to inf
  if (magnitude < 6.103515625e-05f) {
    // Subnormal (or zero): units of 2^-24, nearest even.
    const float units = magnitude * 16777216.0f;
    return sign | static_cast<uint16_t>(std::nearbyint(units));
  }
  const uint32_t exponent = ((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffff;
  uint32_t half = (exponent << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;
  return sign | static_cast<uint16_t>(half);
}

// The bytes field of an 8- or 4-bit float type (XLA's xla_data.proto
// LiteralProto: f8e5m2s = 19, f8e4m3fns = 20, f8e4m3b11fnuzs = 23,
// f8e5m2fnuzs = 24, f8e4m3fnuzs = 25, f8e4m3s = 28, f8e3m4s = 29,
// f4e2m1fns = 32, f8e8m0fnus = 33), one element per byte.
std::string* SmallFloatField(int type, xla::LiteralProto* out) {
  switch (type) {
    case xla::F8E5M2:
      return out->mutable_f8e5m2s();
    case xla::F8E4M3:
      return out->mutable_f8e4m3s();
    case xla::F8E4M3FN:
      return out->mutable_f8e4m3fns();
    case xla::F8E4M3B11FNUZ:
      return out->mutable_f8e4m3b11fnuzs();
    case xla::F8E3M4:
      return out->mutable_f8e3m4s();
    case xla::F8E5M2FNUZ:
      return out->mutable_f8e5m2fnuzs();
    case xla::F8E4M3FNUZ:
      return out->mutable_f8e4m3fnuzs();
    case xla::F4E2M1FN:
      return out->mutable_f4e2m1fns();
    case xla::F8E8M0FNU:
      return out->mutable_f8e8m0fnus();
    default:
      return nullptr;
  }
}

}  // namespace

// Literal values (row-major) into the LiteralProto field of the type; the
// shape's layout decides physical order, so non-default layouts are
// re-ordered.
bool FillLiteral(const LiteralValue& value, const xla::ShapeProto& shape,
                 xla::LiteralProto* out, int depth) {
  *out->mutable_shape() = shape;
  if (value.is_tuple()) {
    if (depth > kMaxShapeDepth ||
        static_cast<int>(value.tuple_elements.size()) !=
            shape.tuple_shapes_size()) {
      return false;
    }
    for (size_t i = 0; i < value.tuple_elements.size(); ++i) {
      if (!FillLiteral(value.tuple_elements[i], shape.tuple_shapes(i),
                       out->add_tuple_literals(), depth + 1)) {
        return false;
      }
    }
    return true;
  }
  if (value.elided) return false;
  // Logical row-major index -> physical index for the shape's layout.
  const int rank = shape.dimensions_size();
  std::vector<int64_t> dims(shape.dimensions().begin(),
                            shape.dimensions().end());
  std::vector<int64_t> strides(rank, 0);
  const auto& m2m = shape.layout().minor_to_major();
  std::vector<bool> seen(rank, false);
  bool valid = m2m.size() == rank;
  for (int i = 0; valid && i < rank; ++i) {
    valid = m2m[i] >= 0 && m2m[i] < rank && !seen[m2m[i]];
    if (valid) seen[m2m[i]] = true;
  }
  int64_t stride = 1;
  for (int i = 0; i < rank; ++i) {
    const int64_t d = valid ? m2m[i] : rank - 1 - i;
    strides[d] = stride;
    stride *= dims[d];
  }
  const size_t count = value.stored_elements();
  std::vector<int64_t> order(count);
  {
    std::vector<int64_t> index(rank, 0);
    for (size_t k = 0; k < count; ++k) {
      int64_t physical = 0;
      for (int d = 0; d < rank; ++d) physical += index[d] * strides[d];
      order[k] = physical;
      for (int d = rank - 1; d >= 0; --d) {
        if (++index[d] < dims[d]) break;
        index[d] = 0;
      }
    }
  }
  auto place = [&](auto* field, auto get) {
    field->Resize(static_cast<int>(count), {});
    for (size_t k = 0; k < count; ++k) field->Set(order[k], get(k));
  };
  auto bytes = [&](std::string* field, int width, auto get) {
    field->assign(count * width, '\0');
    for (size_t k = 0; k < count; ++k) {
      const uint64_t bits = get(k);
      for (int b = 0; b < width; ++b) {
        (*field)[order[k] * width + b] = static_cast<char>(bits >> (8 * b));
      }
    }
  };
  auto ints = [&](size_t k) { return value.ints.empty() ? 0 : value.ints[k]; };
  auto uints = [&](size_t k) {
    return value.uints.empty() ? static_cast<uint64_t>(ints(k))
                               : value.uints[k];
  };
  auto floats = [&](size_t k) { return value.floats[k]; };
  switch (shape.element_type()) {
    case xla::PRED:
      place(out->mutable_preds(),
            [&](size_t k) { return value.preds[k] != 0; });
      return true;
    case xla::S8:
      bytes(out->mutable_s8s(), 1, ints);
      return true;
    case xla::S4:
      bytes(out->mutable_s4s(), 1, ints);
      return true;
    case xla::S2:
      bytes(out->mutable_s2s(), 1, ints);
      return true;
    case xla::S1:
      bytes(out->mutable_s1s(), 1, ints);
      return true;
    case xla::U8:
      bytes(out->mutable_u8s(), 1, uints);
      return true;
    case xla::U4:
      bytes(out->mutable_u4s(), 1, uints);
      return true;
    case xla::U2:
      bytes(out->mutable_u2s(), 1, uints);
      return true;
    case xla::U1:
      bytes(out->mutable_u1s(), 1, uints);
      return true;
    case xla::S16:
      bytes(out->mutable_s16s(), 2, ints);
      return true;
    case xla::U16:
      bytes(out->mutable_u16s(), 2, uints);
      return true;
    case xla::S32:
      place(out->mutable_s32s(), ints);
      return true;
    case xla::S64:
      place(out->mutable_s64s(), ints);
      return true;
    case xla::U32:
      place(out->mutable_u32s(), uints);
      return true;
    case xla::U64:
      place(out->mutable_u64s(), uints);
      return true;
    case xla::F32:
      if (value.floats.size() != count) return false;
      place(out->mutable_f32s(), floats);
      return true;
    case xla::F64:
      if (value.floats.size() != count) return false;
      place(out->mutable_f64s(), floats);
      return true;
    case xla::BF16:
      if (value.floats.size() != count) return false;
      bytes(out->mutable_bf16s(), 2,
            [&](size_t k) { return uint64_t{FloatToBf16(value.floats[k])}; });
      return true;
    case xla::F16:
      if (value.floats.size() != count) return false;
      bytes(out->mutable_f16s(), 2,
            [&](size_t k) { return uint64_t{FloatToHalf(value.floats[k])}; });
      return true;
    case xla::C64:
    case xla::C128: {
      if (value.complexes.size() != count) return false;
      const bool is_c64 = shape.element_type() == xla::C64;
      if (is_c64) {
        out->mutable_c64s()->Resize(static_cast<int>(2 * count), 0.0f);
      } else {
        out->mutable_c128s()->Resize(static_cast<int>(2 * count), 0.0);
      }
      for (size_t k = 0; k < count; ++k) {
        const std::complex<double> c = value.complexes[k];
        if (is_c64) {
          out->mutable_c64s()->Set(2 * order[k], static_cast<float>(c.real()));
          out->mutable_c64s()->Set(2 * order[k] + 1,
                                   static_cast<float>(c.imag()));
        } else {
          out->mutable_c128s()->Set(2 * order[k], c.real());
          out->mutable_c128s()->Set(2 * order[k] + 1, c.imag());
        }
      }
      return true;
    }
    default: {
      // fp8 and f4: one byte per element, in the field of the type.
      const std::optional<SmallFloat> format =
          SmallFloatFormat(shape.element_type());
      std::string* field = SmallFloatField(shape.element_type(), out);
      if (!format || field == nullptr || value.floats.size() != count) {
        return false;
      }
      bytes(field, 1, [&](size_t k) {
        return uint64_t{EncodeSmallFloat(value.floats[k], *format)};
      });
      return true;
    }
  }
}

}  // namespace hlo::proto::internal
