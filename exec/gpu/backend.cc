// The GPU replay backend: walks the entry computation in the CPU
// evaluator's execution order (the same plans), keeps results in device
// buffers (cudaMallocAsync on the default stream, never managed memory),
// runs kernels.cu's kernels and cuBLAS for dots, runs control flow on the
// host around device work, and hands every op it has no kernel for to the
// CPU evaluator's op functions, counting the transfers and reporting them
// as notes. Elementwise fusions run as one generated kernel each
// (fused_codegen.h, compiled with NVRTC) when per-instruction statistics are
// not asked for, or when only the NaN origin is (EvalOptions::origin_only:
// FusionStatsRule decides per fusion run, as for the CPU evaluator's
// block-wise path); the others run op by op, and the notes say which ran
// how. Compare mode runs the CPU ops in lockstep on the CPU's own
// values and records the first instruction whose values differ.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <random>
#include <set>

#include "exec/evaluator_internal.h"
#include "exec/fake_values.h"
#include "exec/gpu/kernels.h"
#include "exec/gpu/placement.h"
#include "exec/gpu/runner.h"
#include "exec/platform.h"
#include "exec/stats.h"
#include "exec/strings.h"

namespace hlo::exec {
namespace gpu::internal {

const std::string& Runner::Reason(const Plan& plan, const Node& node) {
  auto it = reasons_.find(node.id);
  if (it != reasons_.end()) return it->second;
  std::vector<const LiteralShape*> operands;
  for (int o : node.operands) operands.push_back(&plan.nodes[o].shape);
  const Plan* reducer = nullptr;
  if (node.op == O::kReduce && node.Call("to_apply") != kNone) {
    auto p = cpu_.GetPlan(node.Call("to_apply"));
    if (p.ok()) reducer = *p;
  }
  return reasons_[node.id] = HostReason(node, operands, reducer);
}

absl::StatusOr<GV> Runner::Run(Id computation, const std::vector<GV>& args,
                               int depth) {
  if (depth > options_.eval.max_call_depth)
    return absl::InvalidArgumentError("call depth limit exceeded");
  auto plan_or = cpu_.GetPlan(computation);
  if (!plan_or.ok()) return plan_or.status();
  const Plan& plan = **plan_or;
  if (args.size() != plan.parameters.size())
    return absl::InvalidArgumentError(Cat(
        "computation ", file_.Name(file_.computations[computation]), " takes ",
        plan.parameters.size(), " arguments, got ", args.size()));
  std::vector<GV> values(plan.nodes.size());
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const Node& node = plan.nodes[i];
    if (options_.eval.max_steps && ++steps_ > options_.eval.max_steps)
      return absl::DeadlineExceededError("step limit reached");
    if (node.op == O::kParameter) {
      const GV& arg = args[node.attrs.parameter_number.value_or(0)];
      if (!arg || ShapeString(arg->shape) != ShapeString(node.shape))
        return AtInstruction(
            file_, node.id,
            absl::InvalidArgumentError(
                Cat("argument is ", arg ? ShapeString(arg->shape) : "missing",
                    ", the parameter is ", ShapeString(node.shape))));
      values[i] = arg;
    } else {
      auto v = EvalNode(plan, node, values, depth);
      if (!v.ok()) {
        if (IsPlaced(v.status())) return v.status();
        return AtInstruction(file_, node.id, v.status());
      }
      values[i] = *std::move(v);
      if (options_.eval.collect_stats) {
        absl::Status st = RecordStats(node.id, values[i]);
        if (!st.ok()) return st;
        if (stats_.restart_needed())
          return absl::AbortedError("the NaN origin search starts again");
      }
    }
    for (int o : node.operands)
      if (plan.last_use[o] == static_cast<int>(i) && o != plan.root)
        values[o].reset();
  }
  return values[plan.root];
}

absl::Status Runner::RecordStats(Id instruction, const GV& g) {
  if (g->shape.is_tuple() || g->shape.type == PrimitiveType::kToken)
    return absl::OkStatus();
  auto value = ValueStats(instruction, g);
  if (!value.ok()) return value.status();
  stats_.Add(*value, cpu_, options_.eval.origin_only);
  return absl::OkStatus();
}

// One array's statistics, reduced on the device where it lives there.
absl::StatusOr<InstructionStats> Runner::ValueStats(Id instruction,
                                                    const GV& g) {
  InstructionStats one;
  const auto t = DeviceType(g->shape.type);
  if (!g->host && g->dev && t) {
    // On the device: only the per-block partial results come back.
    if (!stats_buf_) {
      auto buf = Allocate(kStatsBlocks * 5 * sizeof(double));
      if (!buf.ok()) return buf.status();
      stats_buf_ = *std::move(buf);
    }
    const int64_t n = Count(g->shape);
    int blocks = 0;
    double* partials = static_cast<double*>(stats_buf_->data());
    RETURN_IF_ERROR(
        CudaStatus(LaunchStats(*t, n, g->dev->data(), partials, &blocks),
                   "statistics kernel"));
    std::vector<double> host(static_cast<size_t>(blocks) * 5);
    RETURN_IF_ERROR(CudaStatus(
        cudaMemcpy(host.data(), partials, host.size() * sizeof(double),
                   cudaMemcpyDeviceToHost),
        "copying statistics"));
    one.instruction = instruction;
    one.runs = 1;
    one.elements = n;
    for (int b = 0; b < blocks; ++b) {
      const double* p = &host[5 * b];
      one.min = std::min(one.min, p[0]);
      one.max = std::max(one.max, p[1]);
      one.sum += p[2];
      one.nan_count += static_cast<int64_t>(p[3]);
      one.inf_count += static_cast<int64_t>(p[4]);
    }
  } else {
    auto host = Host(g);
    if (!host.ok()) return host.status();
    one = StatsOf(instruction, **host);
  }
  return one;
}

absl::StatusOr<GV> Runner::EvalNode(const Plan& plan, const Node& node,
                                    std::vector<GV>& values, int depth) {
  std::vector<GV> in;
  in.reserve(node.operands.size());
  for (int o : node.operands) {
    if (!values[o]) return absl::InternalError("operand freed too early");
    in.push_back(values[o]);
  }
  ++runs_[node.id];
  bool handled = false;
  auto s = Structural(node, in, depth, &handled);
  if (handled) return s;
  const std::string& reason = Reason(plan, node);
  absl::StatusOr<GV> out = absl::UnknownError("not run");
  if (reason.empty()) {
    out = OnDevice(node, in);
    // An attribute combination the kernels do not take: the host runs it.
    if (!out.ok() && out.status().code() == absl::StatusCode::kUnimplemented)
      out = OnHost(node, in, depth, std::string(out.status().message()));
  } else {
    out = OnHost(node, in, depth, reason);
  }
  if (out.ok() && comparing_) CompareStep(node, *out, in, depth);
  return out;
}

namespace {

// Gives `g` and its tuple elements their CPU values.
void SetRefs(const GV& g, const Value& ref) {
  g->ref = ref;
  if (!ref->is_tuple() || ref->elements().size() != g->elements.size()) return;
  for (size_t k = 0; k < g->elements.size(); ++k)
    SetRefs(g->elements[k], ref->elements()[k]);
}

}  // namespace

void Runner::CompareStep(const Node& node, const GV& out,
                         const std::vector<GV>& in, int depth) {
  std::vector<Value> refs;
  for (const GV& g : in) {
    if (!g->ref) return;  // the CPU side is unknown here
    refs.push_back(g->ref);
  }
  // A fusion that ran as one kernel: the CPU runs its computation.
  auto ref = node.op == O::kFusion
                 ? cpu_.Run(node.Call("calls"), refs, depth + 1, false)
                 : CpuLeaf(node, refs, depth);
  if (!ref.ok()) {
    comparing_ = false;
    InstructionStats none;
    none.instruction = node.id;
    divergence_ = Divergence{
        node.id, runs_[node.id],
        Cat("the CPU failed here: ", ref.status().message()), none, none};
    return;
  }
  SetRefs(out, *ref);
  // Arrays; of a tuple, only a multi-output fusion's (other tuples hold
  // values compared where they were made).
  std::vector<std::pair<Value, GV>> pairs;
  if (!(*ref)->is_tuple()) {
    pairs.emplace_back(*ref, out);
  } else if (node.op == O::kFusion &&
             (*ref)->elements().size() == out->elements.size()) {
    for (size_t k = 0; k < out->elements.size(); ++k)
      if (!out->elements[k]->shape.is_tuple())
        pairs.emplace_back((*ref)->elements()[k], out->elements[k]);
  }
  for (const auto& [want, got] : pairs) {
    auto mine = Host(got);
    if (!mine.ok()) return;
    auto diff = DescribeDifference(*want, **mine, options_.atol, options_.rtol);
    if (!diff) continue;
    comparing_ = false;
    divergence_ = Divergence{node.id, runs_[node.id], *diff,
                             StatsOf(node.id, *want), StatsOf(node.id, **mine)};
    return;
  }
}

// Control flow and plumbing, on the host around device values.
absl::StatusOr<GV> Runner::Structural(const Node& node,
                                      const std::vector<GV>& in, int depth,
                                      bool* handled) {
  *handled = true;
  auto need = [&](size_t n) -> absl::Status {
    if (in.size() < n)
      return absl::InvalidArgumentError(
          Cat(OpcodeName(node.op), " needs ", n, " operands"));
    return absl::OkStatus();
  };
  auto host_value = [&](Literal lit) {
    Value v = std::make_shared<const Literal>(std::move(lit));
    GV g = FromHost(v);
    if (comparing_) g->ref = v;
    return g;
  };
  switch (node.op) {
    case O::kConstant: {
      if (!node.attrs.literal)
        return absl::InvalidArgumentError("constant without a literal");
      bool elided = false;
      auto lit = LiteralFromValue(*node.attrs.literal, node.shape, &elided);
      if (!lit.ok()) return lit.status();
      if (elided) {  // the same fake data as the CPU evaluator
        std::minstd_rand0 engine(node.id);
        FillFake(*lit, engine);
      }
      return host_value(*std::move(lit));
    }
    case O::kTuple: {
      auto g = std::make_shared<GVal>();
      std::vector<LiteralShape> shapes;
      std::vector<Value> refs;
      for (const GV& e : in) {
        shapes.push_back(e->shape);
        if (e->ref) refs.push_back(e->ref);
      }
      g->shape = LiteralShape::Tuple(std::move(shapes));
      g->elements = in;
      if (comparing_ && refs.size() == in.size())
        g->ref = std::make_shared<const Literal>(
            Literal::MakeTuple(std::move(refs)));
      return g;
    }
    case O::kGetTupleElement: {
      RETURN_IF_ERROR(need(1));
      const int64_t index = node.attrs.tuple_index.value_or(-1);
      if (!in[0]->shape.is_tuple() || index < 0 ||
          index >= static_cast<int64_t>(in[0]->elements.size()))
        return absl::InvalidArgumentError("tuple index out of range");
      return in[0]->elements[index];
    }
    case O::kCall:
    case O::kFusion: {
      Id callee = node.Call(node.op == O::kCall ? "to_apply" : "calls");
      if (callee == kNone) callee = node.Call("calls");
      if (callee == kNone)
        return absl::InvalidArgumentError("no computation to call");
      if (node.op == O::kFusion) {
        auto fused = Fused(node, callee, in, depth);
        if (fused) return *std::move(fused);
      }
      return Run(callee, in, depth + 1);
    }
    case O::kWhile: {
      RETURN_IF_ERROR(need(1));
      Id cond = node.Call("condition"), body = node.Call("body");
      if (cond == kNone || body == kNone)
        return absl::InvalidArgumentError("while needs condition= and body=");
      GV state = in[0];
      while (true) {
        auto c = Run(cond, {state}, depth + 1);
        if (!c.ok()) return c.status();
        auto p = Host(*c);
        if (!p.ok()) return p.status();
        if ((*p)->is_tuple() || (*p)->count() != 1)
          return absl::InvalidArgumentError(
              "while condition is not a scalar pred");
        if (!(*p)->GetInt(0)) break;
        auto next = Run(body, {state}, depth + 1);
        if (!next.ok()) return next.status();
        state = *std::move(next);
      }
      return state;
    }
    case O::kConditional: {
      RETURN_IF_ERROR(need(1));
      std::vector<Id> branches;
      auto it = node.calls.find("branch_computations");
      if (it != node.calls.end()) {
        branches = it->second;
      } else {
        branches = {node.Call("true_computation"),
                    node.Call("false_computation")};
      }
      if (branches.empty()) return absl::InvalidArgumentError("no branches");
      auto selector = Host(in[0]);
      if (!selector.ok()) return selector.status();
      int64_t b;
      if ((*selector)->type() == PrimitiveType::kPred) {
        b = (*selector)->GetInt(0) ? 0 : 1;
      } else {
        b = (*selector)->GetInt(0);
        if (b < 0 || b >= static_cast<int64_t>(branches.size()))
          b = static_cast<int64_t>(branches.size()) - 1;
      }
      if (b >= static_cast<int64_t>(branches.size()) || branches[b] == kNone)
        return absl::InvalidArgumentError("branch computation missing");
      if (in.size() < static_cast<size_t>(b) + 2)
        return absl::InvalidArgumentError("conditional branch operand missing");
      return Run(branches[b], {in[b + 1]}, depth + 1);
    }
    case O::kAddDependency:
    case O::kOptimizationBarrier:
    case O::kOptBarrier:
    case O::kDomain:
    case O::kAsyncUpdate:
    case O::kAllReduceDone:
      RETURN_IF_ERROR(need(1));
      return in[0];
    case O::kAfterAll:
    case O::kGenerateToken: {
      auto t = Literal::CreateArray(PrimitiveType::kToken, {});
      if (!t.ok()) return t.status();
      return host_value(*std::move(t));
    }
    case O::kCopyStart: {
      RETURN_IF_ERROR(need(1));
      auto g = std::make_shared<GVal>();
      GV context = host_value(Literal::ScalarFromInt(PrimitiveType::kU32, 0));
      g->elements = {in[0], in[0], context};
      g->shape =
          LiteralShape::Tuple({in[0]->shape, in[0]->shape, context->shape});
      if (comparing_ && in[0]->ref)
        g->ref = std::make_shared<const Literal>(
            Literal::MakeTuple({in[0]->ref, in[0]->ref, context->ref}));
      return g;
    }
    case O::kCopyDone:
      RETURN_IF_ERROR(need(1));
      if (!in[0]->shape.is_tuple() || in[0]->elements.empty()) return in[0];
      return in[0]->elements[0];
    case O::kAsyncDone:
      RETURN_IF_ERROR(need(1));
      if (!in[0]->shape.is_tuple() || in[0]->elements.size() < 2)
        return absl::InvalidArgumentError(
            "async-done operand is not an async tuple");
      return in[0]->elements[1];
    case O::kAsyncStart: {
      Id callee = node.Call("calls");
      if (callee == kNone) break;  // sugared forms: the host runs them
      auto r = Run(callee, in, depth + 1);
      if (!r.ok()) return r;
      auto operands = std::make_shared<GVal>();
      std::vector<LiteralShape> shapes;
      for (const GV& e : in) shapes.push_back(e->shape);
      operands->shape = LiteralShape::Tuple(std::move(shapes));
      operands->elements = in;
      auto g = std::make_shared<GVal>();
      g->elements = {operands, *r};
      std::vector<LiteralShape> parts = {operands->shape, (*r)->shape};
      for (size_t k = 2; k < node.shape.tuple_elements.size(); ++k) {
        auto z = Literal::Create(node.shape.tuple_elements[k]);
        if (!z.ok()) return z.status();
        g->elements.push_back(host_value(*std::move(z)));
        parts.push_back(node.shape.tuple_elements[k]);
      }
      g->shape = LiteralShape::Tuple(std::move(parts));
      return g;
    }
    case O::kPartitionId:
    case O::kReplicaId:
      return host_value(Literal::ScalarFromInt(node.shape.type, 0));
    default:
      break;
  }
  *handled = false;
  return absl::UnknownError("not structural");
}

namespace {

// Ops CpuLeaf runs: the CPU evaluator's leaf ops, and sugared async-starts
// around one (a wrapped op it lacks fails when reached, as on the CPU).
bool HostCanRun(Opcode op) { return IsLeafOp(op) || op == O::kAsyncStart; }

// Up front: every op of the module is structural, has a device kernel or
// runs on the CPU evaluator's op functions; the rest are named with lines.
absl::Status CheckRunnable(const ParsedFile& file, Id module) {
  std::vector<std::string> problems;
  std::set<Opcode> seen;
  const Module& m = file.modules[module];
  for (Id c = m.computations.begin; c < m.computations.end(); ++c) {
    const Computation& comp = file.computations[c];
    for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
      const Opcode op = file.instructions[i].opcode;
      if (op == O::kUnknown || IsStructural(op) || HostCanRun(op) ||
          !seen.insert(op).second)
        continue;
      problems.push_back(
          Cat("op ", OpcodeName(op), " (line ",
              file.lines().LineOf(file.instructions[i].span.begin) + 1, ")"));
    }
  }
  if (problems.empty()) return absl::OkStatus();
  std::string list;
  for (const std::string& p : problems) list += (list.empty() ? "" : "; ") + p;
  return absl::UnimplementedError("the GPU backend cannot run " + list);
}

class GpuBackend : public Backend {
 public:
  const char* name() const override { return "gpu"; }
  absl::StatusOr<BackendRun> Run(const ParsedFile& file, Id module,
                                 const std::vector<Value>& args,
                                 const BackendOptions& options) override {
    const GpuInfo info = QueryGpu();
    if (!info.available())
      return absl::FailedPreconditionError(info.Describe());
    if (module >= file.modules.size() || file.modules[module].entry == kNone)
      return absl::InvalidArgumentError("the module has no entry computation");
    if (ModuleDevices(file, module).total() > 1)
      return absl::UnimplementedError(
          "the GPU backend runs single-participant modules only");
    RETURN_IF_ERROR(CheckRunnable(file, module));
    RETURN_IF_ERROR(CudaStatus(cudaSetDevice(0), "cudaSetDevice"));
    if (auto estimate = EstimatePeakMemory(file, module)) {
      size_t free_bytes = 0, total_bytes = 0;
      if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess &&
          *estimate > static_cast<int64_t>(free_bytes))
        return absl::ResourceExhaustedError(
            Cat("needs about ", HumanBytes(*estimate), " of GPU memory, ",
                HumanBytes(static_cast<int64_t>(free_bytes)), " free"));
    }
    BackendRun out;
    BackendOptions run_options = options;
    // Compare mode names the first differing instruction, inside fusions
    // too: every fusion runs op by op there.
    if (options.compare_with_cpu) run_options.eval.origin_only = false;
    for (int attempt = 0;; ++attempt) {
      Runner runner(file, module, run_options);
      std::vector<GV> gargs;
      for (const Value& a : args) {
        GV g = runner.FromHost(a);
        if (options.compare_with_cpu) g->ref = a;
        gargs.push_back(g);
      }
      auto r = runner.Run(file.modules[module].entry, gargs, 0);
      if (!r.ok() && runner.restart_needed() && attempt == 0) {
        // FusionStatsRule: the origin is in a computation that ran fused
        // before; only a run op by op has its earlier statistics.
        run_options.eval.origin_only = false;
        continue;
      }
      if (!r.ok()) return r.status();
      auto host = runner.Host(*r);
      if (!host.ok()) return host.status();
      RETURN_IF_ERROR(CudaStatus(cudaDeviceSynchronize(), "the last kernels"));
      out = runner.Finish();
      out.result = *host;
      if (attempt > 0)
        out.notes.push_back(
            "ran again op by op: the first NaN/Inf came from a fused "
            "computation that had already run as a fused kernel");
      break;
    }
    out.notes.insert(out.notes.begin(), Cat("ran on ", info.Describe()));
    if (options.compare_with_cpu) {
      EvalOptions eo = options.eval;
      eo.collect_stats = false;
      auto ref = Evaluate(file, module, {args}, eo);
      if (!ref.ok())
        return absl::Status(ref.status().code(), Cat("the CPU run failed: ",
                                                     ref.status().message()));
      out.reference = ref->results[0];
    }
    return out;
  }
};

}  // namespace
}  // namespace gpu::internal

std::unique_ptr<Backend> MakeGpuBackend() {
  return std::make_unique<gpu::internal::GpuBackend>();
}

bool GpuBackendBuilt() { return true; }

GpuInfo QueryGpu() {
  GpuInfo info;
  info.built = true;
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    info.error = Cat(cudaGetErrorName(e), ": ", cudaGetErrorString(e));
    cudaGetLastError();  // clear it
    return info;
  }
  if (n <= 0) {
    info.error = "no CUDA device";
    return info;
  }
  cudaDeviceProp p{};
  const cudaError_t pe = cudaGetDeviceProperties(&p, 0);
  if (pe != cudaSuccess) {
    info.error = Cat(cudaGetErrorName(pe), ": ", cudaGetErrorString(pe));
    return info;
  }
  info.device_count = n;
  info.name = p.name;
  info.compute_major = p.major;
  info.compute_minor = p.minor;
  info.memory_bytes = static_cast<int64_t>(p.totalGlobalMem);
  return info;
}

}  // namespace hlo::exec
