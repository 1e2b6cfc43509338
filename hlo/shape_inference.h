// Shape inference after XLA's ShapeInference (xla/service/shape_inference.cc):
// the shape an instruction gets from its operands' shapes and attributes,
// and the verifier's check that the declared shape is that one.
//
// Only element types and dimensions are inferred, never layouts. A rule that
// does not apply (an unknown op, an operand without a known shape, an
// attribute that does not decode, an unbounded dimension) answers "cannot
// infer", never an error: a finding here must be one XLA would report too.
#ifndef HLO_LSP_HLO_SHAPE_INFERENCE_H_
#define HLO_LSP_HLO_SHAPE_INFERENCE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hlo/syntax.h"

namespace hlo {

// A shape by value: element type and dimensions, or tuple elements.
struct InferredShape {
  PrimitiveType element_type = PrimitiveType::kInvalid;
  std::vector<int64_t> dims;  // kUnboundedDim for '?'
  std::vector<InferredShape> tuple;
  bool is_tuple() const { return element_type == PrimitiveType::kTuple; }
  friend bool operator==(const InferredShape&, const InferredShape&) = default;
};

// "f32[2,3]", "(f32[], s32[4])": XLA's spelling without a layout.
std::string ShapeString(const InferredShape& shape);
// The parsed shape `id` by value; nullopt for kNone or a broken table.
std::optional<InferredShape> ShapeFromFile(const ParsedFile& file, Id id);

// What inference says about one instruction: a shape, or an error in XLA's
// words (operands that no shape fits), or neither (cannot infer).
struct Inference {
  std::optional<InferredShape> shape;
  std::string error;
};

// Infers instruction `id`'s shape from its operands' shapes (as declared,
// or as filled by FillMissingShapes) and its attributes. Ops whose result
// XLA takes from the instruction itself (broadcast, reshape, iota, dot and
// convolution's element type...) use the declared shape for that part.
Inference InferShape(const ParsedFile& file, Id id);

// XLA's comparison of a declared and an inferred shape: dimensions equal
// ('?' matches any size, dynamic bounds count as sizes), element types
// equal, or both floating point when `ignore_fp_precision` (the verifier's
// allow_mixed_precision).
bool ShapesCompatible(const InferredShape& declared,
                      const InferredShape& inferred, bool ignore_fp_precision);
// ShapesCompatible(a, b, false) read straight off the shape table, without
// building InferredShapes (an allocation apiece): true where the table
// cannot tell, as ShapeFromFile's nullopt skips a check. Being exact on
// element types, it also implies compatibility under mixed precision.
bool TableShapesCompatible(const ParsedFile& file, Id a, Id b, int depth = 0);

struct ShapeCheckOptions {
  bool allow_mixed_precision = true;
};

// The verifier's shape findings for every instruction with a declared shape:
// "Expected instruction to have shape equal to X, actual shape is Y" on the
// shape's span, and XLA's error where no shape fits the operands.
std::vector<Diagnostic> CheckShapes(const ParsedFile& file,
                                    const ShapeCheckOptions& options = {});

// Gives every instruction written without a shape (`r = add(x, y)`, as XLA's
// parser allows) its inferred shape: appended to file->shapes with an empty
// span at the opcode. Those that cannot be inferred stay kNone. Returns the
// number filled. The parser calls it; it is a no-op when every shape is there.
int FillMissingShapes(ParsedFile* file);
// True for a shape FillMissingShapes made (it has no text of its own).
bool IsInferredShape(const ParsedFile& file, Id shape);
// Where `inst` writes its (declared) shape: shapes are interned by text, so
// the shape's span may be another instruction's; this is the instruction's
// own text (its opcode when that cannot be found).
Span DeclaredShapeSpan(const ParsedFile& file, const Instruction& inst);
// The same for a computation's signature result (just before its body's
// '{'); the interned span where that text is not there.
Span SignatureResultSpan(const ParsedFile& file, const Computation& c);

}  // namespace hlo

#endif  // HLO_LSP_HLO_SHAPE_INFERENCE_H_
