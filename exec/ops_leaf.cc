// The ops computed from their operands' values by one op function (no
// control flow, no tuple plumbing): the one dispatch that both the CPU
// evaluator's EvalNode and the GPU runner's host fallback use, so that the
// two cannot disagree on what runs or how. Also the unwrapping of a sugared
// async-start around such an op, which both do too.
#include "exec/evaluator_internal.h"
#include "exec/strings.h"

namespace hlo::exec {
namespace {

using O = Opcode;

absl::StatusOr<Value> Wrap(absl::StatusOr<Literal> lit) {
  if (!lit.ok()) return lit.status();
  return std::make_shared<const Literal>(*std::move(lit));
}

absl::Status NeedOperands(const Node& node, Operands in, size_t n) {
  if (in.size() >= n) return absl::OkStatus();
  return absl::InvalidArgumentError(
      Cat(OpcodeName(node.op), " needs ", n, " operands"));
}

}  // namespace

bool IsLeafOp(Opcode op) {
  if (IsElementwise(op) || IsShapeOp(op) || IsDynamicOp(op) ||
      IsCollective(op) || IsBatchNorm(op) || IsReduceFamily(op))
    return true;
  switch (op) {
    case O::kRngGetAndUpdateState:
    case O::kDot:
    case O::kRaggedDot:
    case O::kConvolution:
    case O::kGather:
    case O::kScatter:
    case O::kFft:
    case O::kCholesky:
    case O::kTriangularSolve:
    case O::kCustomCall:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<Value> EvalLeafOp(Evaluator& ev, const Node& node, Operands in,
                                 int depth) {
  if (IsElementwise(node.op)) return Wrap(EvalElementwise(node, in));
  if (IsShapeOp(node.op)) return Wrap(EvalShapeOp(ev.file(), node, in));
  if (IsDynamicOp(node.op)) return Wrap(EvalDynamicOp(node, in));
  if (IsCollective(node.op)) return EvalCollective(ev, node, in, depth);
  if (IsBatchNorm(node.op)) return EvalBatchNorm(node, in);
  if (IsReduceFamily(node.op)) return EvalReduceFamily(ev, node, in, depth);
  absl::Status operands = absl::OkStatus();
  switch (node.op) {
    case O::kRngGetAndUpdateState:
      return EvalRngGetAndUpdateState(ev, node);
    case O::kDot:
      if (operands = NeedOperands(node, in, 2); !operands.ok()) return operands;
      if (!node.attrs.dot_dimension_numbers)
        return absl::InvalidArgumentError("dot without dimension numbers");
      return Wrap(
          EvalDot(node, *in[0], *in[1], *node.attrs.dot_dimension_numbers));
    case O::kRaggedDot:
      if (operands = NeedOperands(node, in, 3); !operands.ok()) return operands;
      return Wrap(EvalRaggedDot(node, *in[0], *in[1], *in[2]));
    case O::kConvolution:
      if (operands = NeedOperands(node, in, 2); !operands.ok()) return operands;
      return Wrap(EvalConvolution(node, *in[0], *in[1]));
    case O::kGather:
      if (operands = NeedOperands(node, in, 2); !operands.ok()) return operands;
      return Wrap(EvalGather(node, *in[0], *in[1]));
    case O::kScatter:
      return EvalScatter(ev, node, in, depth);
    case O::kFft:
      if (operands = NeedOperands(node, in, 1); !operands.ok()) return operands;
      return Wrap(EvalFft(node, *in[0]));
    case O::kCholesky:
      if (operands = NeedOperands(node, in, 1); !operands.ok()) return operands;
      return Wrap(EvalCholesky(node, *in[0]));
    case O::kTriangularSolve:
      if (operands = NeedOperands(node, in, 2); !operands.ok()) return operands;
      return Wrap(EvalTriangularSolve(node, *in[0], *in[1]));
    case O::kCustomCall:
      return EvalCustomCall(ev, node, in, depth);
    default:
      return absl::UnimplementedError(
          Cat("unsupported op ", OpcodeName(node.op)));
  }
}

absl::StatusOr<Node> WrappedOp(const Node& async_start) {
  if (async_start.wrapped == O::kUnknown ||
      async_start.wrapped == O::kAsyncStart)
    return absl::InvalidArgumentError("async-start without calls=");
  Node inner = async_start;
  inner.op = async_start.wrapped;
  inner.wrapped = O::kUnknown;
  if (async_start.shape.is_tuple() &&
      async_start.shape.tuple_elements.size() >= 2)
    inner.shape = async_start.shape.tuple_elements[1];
  return inner;
}

absl::StatusOr<Value> AsyncStartValue(const Node& async_start,
                                      Operands operands, Value result) {
  std::vector<Value> parts = {
      std::make_shared<const Literal>(Literal::MakeTuple(
          std::vector<Value>(operands.begin(), operands.end()))),
      std::move(result)};
  const std::vector<LiteralShape>& elements = async_start.shape.tuple_elements;
  for (size_t k = 2; k < elements.size(); ++k) {
    auto zeros = Literal::Create(elements[k]);
    if (!zeros.ok()) return zeros.status();
    parts.push_back(std::make_shared<const Literal>(*std::move(zeros)));
  }
  return std::make_shared<const Literal>(Literal::MakeTuple(std::move(parts)));
}

}  // namespace hlo::exec
