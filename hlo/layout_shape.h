// A shape with its layout, by value, as XLA's layout-sensitive verifier
// compares them (Shape::Equal, Layout::Equal): read from shape text, with
// XLA's parser's default layout ({n-1,...,0}) where the text writes none.
// Only the verifier's layout rules use it (hlo/verify_layouts.cc and the
// opt-in rules); shape inference never looks at layouts.
#ifndef HLO_LSP_HLO_LAYOUT_SHAPE_H_
#define HLO_LSP_HLO_LAYOUT_SHAPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hlo/primitive_type.h"
#include "hlo/syntax.h"

namespace hlo {

struct LayoutShape {
  PrimitiveType element_type = PrimitiveType::kInvalid;  // kTuple for (...)
  std::vector<int64_t> dims;                             // kUnboundedDim: '?'
  std::vector<bool> dynamic;                             // '<=' per dim
  std::vector<LayoutShape> tuple;
  // The layout (arrays only; the default one when the text has none).
  std::vector<int64_t> minor_to_major;
  std::vector<std::vector<int64_t>> tiles;  // kTileCombineDim for '*'
  int64_t element_size_in_bits = 0;         // E(n)
  int64_t memory_space = 0;                 // S(n)
  int64_t tail_padding_alignment = 1;       // L(n)
  PrimitiveType index_type = PrimitiveType::kInvalid;    // #(t)
  PrimitiveType pointer_type = PrimitiveType::kInvalid;  // *(t)
  std::string split_configs;  // SC(...) text, compared verbatim

  bool is_tuple() const { return element_type == PrimitiveType::kTuple; }
  bool is_array() const { return IsArrayType(element_type); }
};

// Which parts of the layout a comparison leaves out (Shape::Equal's
// Ignore*InLayout and MinorToMajorOnlyInLayout).
struct LayoutEqual {
  bool ignore_tiles = false;
  bool ignore_memory_space = false;
  bool ignore_element_size = false;
  bool ignore_tail_padding = false;
  bool minor_to_major_only = false;
  bool ignore_fp_precision = false;
  bool ignore_layout = false;  // ShapeUtil::Compatible's view
};

// The first position from `pos` past blanks and /*...*/ comments (dumps
// write /*index=5*/ into long shape lists); text.size() at the end.
size_t SkipBlanksAndComments(std::string_view text, size_t pos);

// Parses one shape (e.g. "f32[2,3]{0,1:T(8,128)S(5)}", "(s32[], f32[4])")
// from `text` at `*pos`, moving `*pos` past it; nullopt when it is not one.
std::optional<LayoutShape> ParseLayoutShape(std::string_view text, size_t* pos);
// The file's shape `id` (its text); nullopt for kNone or an inferred shape.
std::optional<LayoutShape> LayoutShapeOf(const ParsedFile& file, Id id);

// XLA's Shape::Equal with the given relaxations (element types, dims,
// dynamic flags, tuple structure, then the layout).
bool LayoutShapesEqual(const LayoutShape& a, const LayoutShape& b,
                       const LayoutEqual& eq = {});
// XLA's Layout::Equal on two array shapes' layouts alone.
bool LayoutsEqual(const LayoutShape& a, const LayoutShape& b,
                  const LayoutEqual& eq = {});

// XLA's HumanStringWithLayout: "f32[2,3]{1,0:T(8,128)S(5)}".
std::string LayoutShapeString(const LayoutShape& shape);

// ShapeUtil::ByteSizeOf of an array (E(n) counts when given); nullopt for
// tuples, '?' dims or overflow.
std::optional<int64_t> ArrayByteSize(const LayoutShape& shape);

// ShapeUtil::ReshapeIsBitcast: the reshape moves no element in memory.
// nullopt where it cannot say (tiles, '?' dims, overflow).
std::optional<bool> ReshapeIsBitcast(const LayoutShape& in,
                                     const LayoutShape& out);

}  // namespace hlo

#endif  // HLO_LSP_HLO_LAYOUT_SHAPE_H_
