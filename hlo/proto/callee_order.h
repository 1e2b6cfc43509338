// The order in which a module's computations are written out: callees
// before their callers, as XLA's HloModule::CreateFromProto and the text
// parser need. Shared by the encoder (which appends inlined bodies after
// their callers) and the printer.
#ifndef HLO_LSP_HLO_PROTO_CALLEE_ORDER_H_
#define HLO_LSP_HLO_PROTO_CALLEE_ORDER_H_

#include <functional>
#include <vector>

namespace hlo::proto::internal {

// Positions 0..n-1, each once, callees first. `callees(k, &out)` appends
// the positions of computation k's callees in its instructions' order
// (repeats allowed). The stored order is kept where it already is one,
// moving a callee forward only when a caller precedes it; a cycle (a
// damaged proto) is cut where it closes. Iterative: a chain of calls may be
// deep.
std::vector<int> CalleesFirstOrder(
    int n, const std::function<void(int, std::vector<int>*)>& callees);

}  // namespace hlo::proto::internal

#endif  // HLO_LSP_HLO_PROTO_CALLEE_ORDER_H_
