// Shared by the evaluator and the op families: the per-computation plan
// (instructions in dependency order with decoded attributes), the
// evaluator state, and the op entry points.
#ifndef HLO_LSP_EXEC_EVALUATOR_INTERNAL_H_
#define HLO_LSP_EXEC_EVALUATOR_INTERNAL_H_

#include <complex>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/evaluator.h"
#include "exec/literal.h"
#include "hlo/attributes.h"
#include "hlo/syntax.h"

namespace hlo::exec {

class Rendezvous;

struct Node {
  Id id = kNone;
  Opcode op = Opcode::kUnknown;
  Opcode wrapped = Opcode::kUnknown;  // sugared async ops (all-to-all-start)
  LiteralShape shape;
  std::vector<int64_t> minor_to_major;  // empty: default (row-major)
  std::vector<int> operands;            // node indices
  std::vector<bool> dynamic_dims;       // `<=` dims; empty when all static
  std::vector<std::vector<int64_t>> operand_layouts;  // minor_to_major each
  InstructionAttributes attrs;
  std::map<std::string, std::vector<Id>, std::less<>> calls;  // key -> comps
  Id Call(std::string_view key) const {
    auto it = calls.find(key);
    return it == calls.end() || it->second.empty() ? kNone : it->second[0];
  }
};

struct Plan {
  Id computation = kNone;
  std::vector<Node> nodes;  // dependency order
  int root = -1;
  std::vector<int> parameters;  // node index by parameter number
  std::vector<int> last_use;    // node index of the last reader
};

absl::StatusOr<std::unique_ptr<Plan>> BuildPlan(const ParsedFile& file,
                                                Id computation);

// Where an error happened: "line N: opcode: message".
std::string Where(const ParsedFile& file, Id instruction);
// `status` with Where(instruction) before its message and the line it names
// carried as data, so that the walks up the call chain (the evaluator's
// and the GPU runner's Run) leave it as it is (IsPlaced).
absl::Status AtInstruction(const ParsedFile& file, Id instruction,
                           const absl::Status& status);
bool IsPlaced(const absl::Status& status);
// Gives `to` the place `from` carries, if any (an error passed on).
void KeepPlace(const absl::Status& from, absl::Status& to);

class Evaluator;

// A run's per-instruction statistics (execution order, every run of an
// instruction added up) and its first NaN/Inf origin, kept alike by the
// evaluator and the GPU runner. `plans` gives the plans of computations
// that ran fused (RanFused) for the origin_only rule (FusionStatsRule).
class StatsLog {
 public:
  // Adds one run's statistics (StatsOf; a tuple's or token's, runs == 0,
  // add nothing). Their first NaN/Inf names the origin; under origin_only,
  // an origin in a computation that ran fused before sets restart_needed().
  void Add(const InstructionStats& one, Evaluator& plans, bool origin_only);
  // `computation` ran fused, without statistics inside.
  void RanFused(Id computation) { fused_ran_.insert(computation); }
  Id first_nonfinite() const { return first_nonfinite_; }
  bool restart_needed() const { return restart_needed_; }
  std::vector<InstructionStats> Take() { return std::move(stats_); }

 private:
  std::vector<InstructionStats> stats_;
  std::map<Id, size_t> index_;
  Id first_nonfinite_ = kNone;
  std::set<Id> fused_ran_;
  bool restart_needed_ = false;
};

class Evaluator {
 public:
  Evaluator(const ParsedFile& file, Id module, const EvalOptions& options,
            int64_t device, DeviceCount devices, Rendezvous* rendezvous);

  absl::StatusOr<Value> Run(Id computation, std::span<const Value> args,
                            int depth, bool collect = true);
  // A scalar computation (reducers, comparators) on scalar arguments.
  absl::StatusOr<Value> CallScalar(Id computation, std::span<const Value> args,
                                   int depth);
  absl::StatusOr<const Plan*> GetPlan(Id computation);

  const ParsedFile& file() const { return file_; }
  int64_t device() const { return device_; }
  DeviceCount devices() const { return devices_; }
  Rendezvous* rendezvous() const { return rendezvous_; }
  EvalResult& result() { return result_; }
  StatsLog& stats() { return stats_; }
  // origin_only: the origin turned up where earlier fused runs recorded no
  // statistics; the run stopped and must start again op by op.
  bool restart_needed() const { return stats_.restart_needed(); }
  uint64_t NextRngState() { return rng_state_++; }
  // rng-get-and-update-state: the state before, then advanced by `delta`.
  uint64_t GetAndAdvanceRngState(uint64_t delta) {
    const uint64_t before = rng_state_;
    rng_state_ += delta;
    return before;
  }

 private:
  absl::StatusOr<Value> EvalNode(const Plan& plan, const Node& node,
                                 std::vector<Value>& values, int depth);
  void RecordStats(Id instruction, const Literal& value);

  const ParsedFile& file_;
  Id module_;
  EvalOptions options_;
  int64_t device_;
  DeviceCount devices_;
  Rendezvous* rendezvous_;
  std::map<Id, std::unique_ptr<Plan>> plans_;
  StatsLog stats_;
  EvalResult result_;
  uint64_t rng_state_ = 0;
};

// ---------------------------------------------------------- op families --
using Operands = std::span<const Value>;

// ops_elementwise.cc
bool IsElementwise(Opcode op);
absl::StatusOr<Literal> EvalElementwise(const Node& node, Operands in);

// fused_elementwise.cc: a fused computation made of elementwise ops,
// converts and scalars, run block by block through the whole computation;
// nullopt when `plan` is not such a computation (or too small to gain).
absl::StatusOr<std::optional<Value>> TryRunBlockwise(const ParsedFile& file,
                                                     const Plan& plan,
                                                     Operands args);
// fusion_stats.cc: the rule of EvalOptions::origin_only for one run of a
// fusion whose computation is `fused`, given the first NaN/Inf origin so
// far. Before an origin is known, a fusion may run fused only when every
// NaN/Inf any of its instructions can make shows in its result
// (NonfiniteShowsInResult); its result is then checked, and when it holds
// one, the fusion runs again op by op to name the instruction. Once the
// origin is known, only fusions of its computation keep running op by op
// (its statistics add up over every run). An origin found in a computation
// that had run fused before (its earlier runs' statistics are missing)
// makes the whole run start again op by op (EvalResult::restarted).
enum class FusionStats {
  kInside,       // op by op, every instruction's statistics recorded
  kNone,         // fused, no statistics inside
  kCheckResult,  // fused; op by op again when the result holds a NaN/Inf
};
FusionStats FusionStatsRule(const Plan& fused, Id first_nonfinite);
bool NonfiniteShowsInResult(const Plan& plan);
bool PlanHolds(const Plan& plan, Id instruction);
// Whether `instruction` is in one of the computations that ran fused
// (`fused_ran`, their plans from `plans`): its earlier runs went unrecorded.
bool RanFusedBefore(Evaluator& plans, const std::set<Id>& fused_ran,
                    Id instruction);

// ops_dynamic.cc: set-dimension-size, get-dimension-size, dynamic-reshape;
// InheritDynamicSizes gives a result declared with dynamic dims the dynamic
// sizes of an operand of the same dims; LogicalResult cuts the entry's
// result to its dynamic sizes.
bool IsDynamicOp(Opcode op);
absl::StatusOr<Literal> EvalDynamicOp(const Node& node, Operands in);
absl::StatusOr<Value> InheritDynamicSizes(const Node& node, Operands in,
                                          Value result);
absl::StatusOr<Value> LogicalResult(Value result);

// ops_ragged_dot.cc: ragged-dot, its three modes (non-contracting,
// contracting, batch).
absl::StatusOr<Literal> EvalRaggedDot(const Node& node, const Literal& lhs,
                                      const Literal& rhs,
                                      const Literal& group_sizes);

// ops_shape.cc: broadcast, reshape, transpose, bitcast, copy, slice,
// dynamic-slice, dynamic-update-slice, concatenate, pad, reverse, iota,
// convert, bitcast-convert, reduce-precision.
bool IsShapeOp(Opcode op);
absl::StatusOr<Literal> EvalShapeOp(const ParsedFile& file, const Node& node,
                                    Operands in);
absl::StatusOr<Literal> Transpose(const Literal& in,
                                  const std::vector<int64_t>& perm);
// ops_reduce.cc: reduce, reduce-window, select-and-scatter, sort, map,
// rng, rng-bit-generator, topk.
bool IsReduceFamily(Opcode op);
absl::StatusOr<Value> EvalReduceFamily(Evaluator& ev, const Node& node,
                                       Operands in, int depth);
// ops_dot_conv.cc
absl::StatusOr<Literal> EvalDot(const Node& node, const Literal& lhs,
                                const Literal& rhs,
                                const DotDimensionNumbers& dnums);
absl::StatusOr<Literal> EvalConvolution(const Node& node, const Literal& lhs,
                                        const Literal& rhs);
// ops_gather_scatter.cc
absl::StatusOr<Literal> EvalGather(const Node& node, const Literal& operand,
                                   const Literal& indices);
absl::StatusOr<Value> EvalScatter(Evaluator& ev, const Node& node, Operands in,
                                  int depth);
// ops_linalg.cc (LoadComplex and StoreComplex serve fft too)
std::vector<std::complex<double>> LoadComplex(const Literal& x);
// Real types keep the real parts; integer types are left alone.
void StoreComplex(const std::vector<std::complex<double>>& v, Literal& out);
absl::StatusOr<Literal> EvalCholesky(const Node& node, const Literal& a);
absl::StatusOr<Literal> EvalTriangularSolve(const Node& node, const Literal& a,
                                            const Literal& b);
// ops_fft.cc
absl::StatusOr<Literal> EvalFft(const Node& node, const Literal& x);
// ops_collective.cc
bool IsCollective(Opcode op);
absl::StatusOr<Value> EvalCollective(Evaluator& ev, const Node& node,
                                     Operands in, int depth);
// ops_batch_norm.cc: batch-norm-training, -inference and -grad.
bool IsBatchNorm(Opcode op);
absl::StatusOr<Value> EvalBatchNorm(const Node& node, Operands in);
// rng-get-and-update-state: the evaluator's state before, advanced by delta=.
absl::StatusOr<Value> EvalRngGetAndUpdateState(Evaluator& ev, const Node& node);
// ops_custom_call.cc
bool CustomCallSupported(std::string_view target);
absl::StatusOr<Value> EvalCustomCall(Evaluator& ev, const Node& node,
                                     Operands in, int depth);
// ops_leaf.cc: the ops one op function above computes from the operands'
// values (everything but control flow, tuples, tokens and async/copy
// wrappers), dispatched once for the evaluator and the GPU host fallback.
bool IsLeafOp(Opcode op);
absl::StatusOr<Value> EvalLeafOp(Evaluator& ev, const Node& node, Operands in,
                                 int depth);
// A sugared async-start (all-to-all-start, custom-call-start, no calls=):
// the op it wraps, with the shape of the start's element 1 (an error when
// it wraps nothing); and the start's value around that op's `result`:
// (operands, result, zeros for the other elements).
absl::StatusOr<Node> WrappedOp(const Node& async_start);
absl::StatusOr<Value> AsyncStartValue(const Node& async_start,
                                      Operands operands, Value result);

// Index helpers.
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims);
// Advances a multi-index over `dims`; false after the last one.
inline bool NextIndex(std::vector<int64_t>& index,
                      const std::vector<int64_t>& dims) {
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    if (++index[d] < dims[d]) return true;
    index[d] = 0;
  }
  return false;
}

}  // namespace hlo::exec

#endif  // HLO_LSP_EXEC_EVALUATOR_INTERNAL_H_
