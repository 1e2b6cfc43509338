// What the shape inference rules share: one instruction with its operands'
// shapes and attribute access. Each family file (elementwise, data movement,
// compute, control and collectives) answers for its opcodes. Internal.
#ifndef HLO_LSP_HLO_SHAPE_INFERENCE_INTERNAL_H_
#define HLO_LSP_HLO_SHAPE_INFERENCE_INTERNAL_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hlo/attr_values.h"
#include "hlo/shape_inference.h"
#include "hlo/syntax.h"

namespace hlo::shape_inference_internal {

struct OpContext {
  const ParsedFile& file;
  const Instruction& inst;
  // Every operand's shape, known; views of per-thread scratch that
  // InferShape reuses, so a module's check allocates little.
  std::span<const InferredShape> operands;
  const InferredShape* declared = nullptr;  // the instruction's own, if any

  Opcode opcode() const { return inst.opcode; }
  std::vector<InferredShape> OperandVector() const {
    return {operands.begin(), operands.end()};
  }
  // The raw value of attribute `key`, empty when absent.
  std::string_view Attr(std::string_view key) const;
  // Every attribute as written, for the decoders that read several.
  std::vector<RawAttribute> RawAttrs() const;
  // The root shape of the `index`th computation named by attribute `key`.
  std::optional<InferredShape> CalledRoot(std::string_view key,
                                          size_t index = 0) const;
  // How many computations attribute `key` names.
  size_t CalledCount(std::string_view key) const;
};

inline Inference Ok(InferredShape shape) {
  return Inference{std::move(shape), {}};
}
inline Inference Fail(std::string error) {
  return Inference{std::nullopt, std::move(error)};
}
inline Inference CannotInfer() { return Inference{}; }

inline InferredShape Array(PrimitiveType type, std::vector<int64_t> dims) {
  InferredShape s;
  s.element_type = type;
  s.dims = std::move(dims);
  return s;
}
inline InferredShape Tuple(std::vector<InferredShape> elements) {
  InferredShape s;
  s.element_type = PrimitiveType::kTuple;
  s.tuple = std::move(elements);
  return s;
}
// The one shape for one element, a tuple for several (sort, reduce, ...).
InferredShape OneOrTuple(std::vector<InferredShape> elements);
bool IsArray(const InferredShape& s);
PrimitiveType HigherPrecision(PrimitiveType a, PrimitiveType b);
// True when every dimension is known (no '?').
bool IsBounded(const InferredShape& s);

// XLA's InferScatterShape errors for a scatter ("" when none or unknown).
std::string ScatterError(const OpContext& ctx);

// Each returns nullopt for an opcode that is not of its family.
std::optional<Inference> InferElementwise(const OpContext& ctx);
std::optional<Inference> InferDataMovement(const OpContext& ctx);
std::optional<Inference> InferCompute(const OpContext& ctx);
std::optional<Inference> InferControl(const OpContext& ctx);

}  // namespace hlo::shape_inference_internal

#endif  // HLO_LSP_HLO_SHAPE_INFERENCE_INTERNAL_H_
