// Constant literal text (`constant(...)` operands and the custom-call
// `literal=` attribute) decoded into a compact value form and checked
// against a shape: element counts per dimension, element kinds and integer
// ranges. Elided data (`{...}`) is flagged, not filled.
#ifndef HLO_LSP_HLO_LITERAL_TEXT_H_
#define HLO_LSP_HLO_LITERAL_TEXT_H_

#include <complex>
#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/primitive_type.h"
#include "hlo/span.h"

namespace hlo {

class ParsedFile;

// The shape a literal is read against (layout does not matter for text:
// elements are written in row-major order).
struct LiteralShape {
  PrimitiveType type = PrimitiveType::kInvalid;  // kTuple for tuples
  std::vector<int64_t> dims;
  std::vector<LiteralShape> tuple_elements;

  static LiteralShape Array(PrimitiveType type, std::vector<int64_t> dims) {
    LiteralShape s;
    s.type = type;
    s.dims = std::move(dims);
    return s;
  }
  static LiteralShape Tuple(std::vector<LiteralShape> elements) {
    LiteralShape s;
    s.type = PrimitiveType::kTuple;
    s.tuple_elements = std::move(elements);
    return s;
  }
  bool is_tuple() const { return type == PrimitiveType::kTuple; }
};

// Decoded literal. Array elements are stored row-major in the one vector
// that matches the element type: preds (pred), ints (signed), uints
// (unsigned), floats (all floating types, as double), complexes (c64/c128).
// NaN payloads written as nan(0xP) are kept in the double's mantissa shifted
// so that the top mantissa bits of the element type hold P.
struct LiteralValue {
  PrimitiveType type = PrimitiveType::kInvalid;
  std::vector<int64_t> dims;
  bool elided = false;  // `{...}`: no element data
  // A bare scalar written for an array shape (`f32[9] constant(0)`, which
  // newer XLA accepts): the one stored element stands for every element.
  bool splat = false;
  std::vector<uint8_t> preds;
  std::vector<int64_t> ints;
  std::vector<uint64_t> uints;
  std::vector<double> floats;
  std::vector<std::complex<double>> complexes;
  std::vector<LiteralValue> tuple_elements;

  bool is_tuple() const { return type == PrimitiveType::kTuple; }
  // Number of elements stored (0 when elided or a tuple).
  size_t stored_elements() const {
    return preds.size() + ints.size() + uints.size() + floats.size() +
           complexes.size();
  }
};

// Reads `text` (a literal without the constant's parentheses) as `shape`.
// Errors say "offset N: ..." with N relative to `text`.
absl::StatusOr<LiteralValue> DecodeLiteral(std::string_view text,
                                           const LiteralShape& shape);

// Reads a constant's operand list, parentheses included: "(1)",
// "({1, 2})", "((1, 2))" (complex or tuple, by shape), "({...})". Old
// dumps that repeat the shape inside ("(f32[2] {1, 2})") are accepted.
// Offsets are relative to the operand list text.
absl::StatusOr<LiteralValue> DecodeConstantOperandList(
    std::string_view operand_list, const LiteralShape& shape);

// A literal carrying its own shape, as in custom-call `literal=`:
// "s32[2]{0} {1, 2}", "f32[] 1.5", or a tuple "( s32[] 1, pred[] true )".
absl::StatusOr<LiteralValue> DecodeShapedLiteral(std::string_view text);

// The LiteralShape of a parsed shape (dynamic dims use their bound; an
// unbounded dim is an error). Nesting deeper than 64 is an error.
absl::StatusOr<LiteralShape> LiteralShapeFromParsed(const ParsedFile& file,
                                                    Id shape);

}  // namespace hlo

#endif  // HLO_LSP_HLO_LITERAL_TEXT_H_
