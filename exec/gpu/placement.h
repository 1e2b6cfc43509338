// Which instructions the GPU backend runs on the device, and which it hands
// to the CPU evaluator (with the transfers counted and reported). Host code
// only: it compiles and is tested without a GPU.
#ifndef HLO_LSP_EXEC_GPU_PLACEMENT_H_
#define HLO_LSP_EXEC_GPU_PLACEMENT_H_

#include <optional>
#include <string>
#include <vector>

#include "exec/evaluator_internal.h"
#include "exec/gpu/kernels.h"

namespace hlo::exec::gpu {

std::optional<DType> DeviceType(PrimitiveType t);
std::optional<EwOp> ElementwiseOp(Opcode op);
// The op of a reducer computation `op(p0, p1)` (as the CPU's fast path).
std::optional<ReduceOp> SimpleReduceOp(const Plan& reducer);

// Empty when the device runs `node`; else why it runs on the host.
// `operands`: the operand shapes; `reducer`: the plan of a reduce's to_apply.
std::string HostReason(const Node& node,
                       const std::vector<const LiteralShape*>& operands,
                       const Plan* reducer);

// Structural ops the backend walks itself (no kernel, no host evaluation).
bool IsStructural(Opcode op);

}  // namespace hlo::exec::gpu

#endif  // HLO_LSP_EXEC_GPU_PLACEMENT_H_
