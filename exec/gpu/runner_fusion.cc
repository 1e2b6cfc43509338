// The GPU backend's fusions and host fallbacks (Runner, runner.h): a
// module's fused kernels compiled as one NVRTC program and launched, and
// ops without a device kernel run on the CPU evaluator's op functions.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "exec/evaluator_internal.h"
#include "exec/gpu/fused_codegen.h"
#include "exec/gpu/fused_prelude.h"
#include "exec/gpu/kernels.h"
#include "exec/gpu/nvrtc.h"
#include "exec/gpu/runner.h"
#include "exec/strings.h"

namespace hlo::exec::gpu::internal {

// The kernels of every fusion of the module, compiled as one NVRTC program
// at the first fusion run: a compilation costs ~40 ms however small the
// kernel, and modules hold hundreds of fusions. When the batch does not
// compile, each fusion is tried alone at its first run (and reports why).
void Runner::PrepareFusions() {
  fusions_prepared_ = true;
  std::vector<Id> callees;
  std::set<Id> seen;
  const Module& m = file_.modules[module_];
  for (Id c = m.computations.begin; c < m.computations.end(); ++c) {
    auto plan = cpu_.GetPlan(c);
    if (!plan.ok()) continue;
    for (const Node& node : (*plan)->nodes) {
      const Id callee = node.op == O::kFusion ? node.Call("calls") : kNone;
      if (callee != kNone && seen.insert(callee).second)
        callees.push_back(callee);
    }
  }
  std::string source = kFusedPrelude;
  std::vector<std::string> names;
  std::vector<std::pair<Id, FusedEntry>> batch;
  for (Id callee : callees) {
    auto plan = cpu_.GetPlan(callee);
    if (!plan.ok()) continue;
    const std::string name = Cat(kFusedKernelName, "_", batch.size());
    auto src = GenerateFusedKernel(**plan, name);
    if (!src.ok()) {
      fused_[callee].declined = std::string(src.status().message());
      continue;
    }
    source += src->kernel;
    names.push_back(name);
    FusedEntry e;
    e.elements = src->elements;
    e.results = src->results;
    batch.emplace_back(callee, std::move(e));
  }
  if (batch.empty()) return;
  bool compiled = false;
  auto kernels = LoadKernels(source, names, &compiled);
  if (!kernels.ok()) return;
  for (size_t k = 0; k < batch.size(); ++k) {
    batch[k].second.kernel = (*kernels)[k];
    fused_[batch[k].first] = std::move(batch[k].second);
  }
  kernels_compiled_ += compiled ? static_cast<int64_t>(batch.size()) : 0;
  programs_compiled_ += compiled ? 1 : 0;
}

// The fusion as one generated kernel; nullopt when it runs op by op (the
// reason counted for the notes).
std::optional<absl::StatusOr<GV>> Runner::Fused(const Node& node, Id callee,
                                                const std::vector<GV>& in,
                                                int depth) {
  auto op_by_op = [&](const std::string& reason) {
    ++op_by_op_runs_;
    ++op_by_op_[reason];
    return std::nullopt;
  };
  if (!fuse_) return op_by_op("fused kernels turned off");
  if (options_.eval.collect_stats && !options_.eval.origin_only)
    return op_by_op("per-instruction statistics asked for");
  auto plan_or = cpu_.GetPlan(callee);
  if (!plan_or.ok()) return std::nullopt;  // Run reports it
  const Plan& plan = **plan_or;
  const FusionStats rule = options_.eval.collect_stats
                               ? FusionStatsRule(plan, stats_.first_nonfinite())
                               : FusionStats::kNone;
  if (rule == FusionStats::kInside)
    return op_by_op(stats_.first_nonfinite() == kNone
                        ? "NaN origin search: a NaN/Inf inside might not "
                          "reach the result"
                        : "NaN origin search: the first NaN/Inf's computation");
  const int64_t steps = static_cast<int64_t>(plan.nodes.size());
  if (options_.eval.max_steps && steps_ + steps > options_.eval.max_steps)
    return std::nullopt;  // op by op, to stop at the limit
  if (!fusions_prepared_) PrepareFusions();
  auto it = fused_.find(callee);
  if (it == fused_.end()) {  // not in the module's batch: alone
    FusedEntry e;
    auto source = GenerateFusedKernel(plan);
    if (!source.ok()) {
      e.declined = std::string(source.status().message());
    } else {
      bool compiled = false;
      auto kernel = LoadKernel(source->source, kFusedKernelName, &compiled);
      if (kernel.ok()) {
        e.kernel = *kernel;
        e.elements = source->elements;
        e.results = source->results;
        kernels_compiled_ += compiled ? 1 : 0;
        programs_compiled_ += compiled ? 1 : 0;
      } else {
        e.declined = Cat("no fused kernel: ", kernel.status().message());
      }
    }
    it = fused_.emplace(callee, std::move(e)).first;
  }
  const FusedEntry& e = it->second;
  if (!e.kernel) return op_by_op(e.declined);
  if (in.size() != plan.parameters.size()) return std::nullopt;
  std::vector<LiteralShape> result_shapes = {node.shape};
  if (node.shape.is_tuple()) result_shapes = node.shape.tuple_elements;
  // The kernel writes the computation's root types: the instruction's shape
  // must agree (else Run reports the mismatch).
  const LiteralShape& root = plan.nodes[plan.root].shape;
  const std::vector<LiteralShape> written =
      root.is_tuple() ? root.tuple_elements : std::vector<LiteralShape>{root};
  if (static_cast<int>(result_shapes.size()) != e.results ||
      written.size() != result_shapes.size())
    return std::nullopt;
  for (size_t k = 0; k < result_shapes.size(); ++k)
    if (result_shapes[k].is_tuple() || Count(result_shapes[k]) != e.elements ||
        result_shapes[k].type != written[k].type)
      return std::nullopt;
  std::vector<const void*> params;
  for (size_t k = 0; k < in.size(); ++k) {
    const LiteralShape& want = plan.nodes[plan.parameters[k]].shape;
    if (in[k]->shape.is_tuple() || in[k]->shape.type != want.type ||
        Count(in[k]->shape) != Count(want))
      return std::nullopt;  // Run reports the mismatch
    auto p = Dev(in[k]);
    if (!p.ok()) return p.status();
    params.push_back(*p);
  }
  std::vector<GV> results;
  std::vector<void*> outs;
  for (const LiteralShape& r : result_shapes) {
    auto g = NewArray(r);
    if (!g.ok()) return g.status();
    outs.push_back((*g)->dev->data());
    results.push_back(*std::move(g));
  }
  absl::Status st = CudaStatus(
      LaunchElementwise(e.kernel, e.elements, params, outs),
      Cat("the fused kernel of ", file_.Name(file_.computations[callee])));
  if (!st.ok()) return st;
  if (rule == FusionStats::kCheckResult) {
    for (const GV& r : results) {
      auto s = ValueStats(node.id, r);
      if (!s.ok()) return s.status();
      if (s->nan_count + s->inf_count > 0)  // op by op names the instruction
        return op_by_op(
            "NaN origin search: the fused kernel's result held a NaN/Inf, "
            "ran again");
    }
  }
  if (options_.eval.collect_stats) stats_.RanFused(callee);
  steps_ += steps;
  ++fused_runs_;
  GV out = results[0];
  if (node.shape.is_tuple()) {
    out = std::make_shared<GVal>();
    out->shape = node.shape;
    out->elements = std::move(results);
  }
  if (comparing_) CompareStep(node, out, in, depth);
  return out;
}

absl::StatusOr<GV> Runner::OnHost(const Node& node, const std::vector<GV>& in,
                                  int depth, const std::string& reason) {
  std::vector<Value> host;
  for (const GV& g : in) {
    auto v = Host(g);
    if (!v.ok()) return v.status();
    host.push_back(*v);
  }
  auto r = CpuLeaf(node, host, depth);
  if (!r.ok()) return r.status();
  ++host_ops_[reason];
  return FromHost(*r);
}

// One instruction on the CPU evaluator's op functions: its leaf dispatch,
// or a sugared async-start (all-to-all-start, custom-call-start) around one.
absl::StatusOr<Value> Runner::CpuLeaf(const Node& node,
                                      const std::vector<Value>& in, int depth) {
  if (IsLeafOp(node.op)) return EvalLeafOp(cpu_, node, in, depth);
  if (node.op != O::kAsyncStart)
    return absl::UnimplementedError(
        Cat("the GPU backend cannot run ", OpcodeName(node.op)));
  absl::StatusOr<Node> inner = WrappedOp(node);
  if (!inner.ok()) return inner.status();
  auto r = CpuLeaf(*inner, in, depth);
  if (!r.ok()) return r;
  return AsyncStartValue(node, in, *std::move(r));
}

}  // namespace hlo::exec::gpu::internal
