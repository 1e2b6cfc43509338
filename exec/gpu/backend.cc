// The GPU replay backend: walks the entry computation in the CPU
// evaluator's execution order (the same plans), keeps results in device
// buffers (cudaMallocAsync on the default stream, never managed memory),
// runs kernels.cu's kernels and cuBLAS for dots, runs control flow on the
// host around device work, and hands every op it has no kernel for to the
// CPU evaluator's op functions, counting the transfers and reporting them
// as notes. Elementwise fusions run as one generated kernel each
// (fused_codegen.h, compiled with NVRTC) when per-instruction statistics are
// not asked for (as the CPU evaluator runs them block by block only then);
// the others run op by op, and the notes say which ran how. Compare mode runs the CPU ops in lockstep on the CPU's own
// values and records the first instruction whose values differ.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "absl/strings/match.h"
#include "exec/evaluator_internal.h"
#include "exec/fake_data.h"
#include "exec/gpu/bench.h"
#include "exec/gpu/cublas.h"
#include "exec/gpu/fused_codegen.h"
#include "exec/gpu/fused_prelude.h"
#include "exec/gpu/kernels.h"
#include "exec/gpu/nvrtc.h"
#include "exec/gpu/placement.h"
#include "exec/platform.h"
#include "exec/rendezvous.h"
#include "exec/strings.h"
#include "hlo/parser.h"

namespace hlo::exec {
namespace gpu {
namespace {

using O = Opcode;

absl::Status CudaStatus(int err, std::string_view what) {
  if (err == 0) return absl::OkStatus();
  const auto e = static_cast<cudaError_t>(err);
  std::string message = Cat("CUDA error in ", what, ": ", cudaGetErrorName(e),
                            " (", cudaGetErrorString(e), ")");
  if (e == cudaErrorMemoryAllocation)
    return absl::ResourceExhaustedError("GPU memory: " + message);
  return absl::InternalError(message);
}

absl::Status CublasStatus(const CublasApi& api, cublasStatus_t s,
                          std::string_view what) {
  if (s == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  return absl::InternalError(
      Cat("cuBLAS error in ", what, ": ", api.status_name(s)));
}

#define RETURN_IF_ERROR(expr)  \
  do {                         \
    absl::Status _st = (expr); \
    if (!_st.ok()) return _st; \
  } while (0)

std::string Bytes(int64_t n) {
  char buf[64];
  if (n >= (int64_t{1} << 30)) {
    std::snprintf(buf, sizeof buf, "%.2f GiB", n / double(int64_t{1} << 30));
  } else if (n >= (1 << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", n / double(1 << 20));
  } else {
    std::snprintf(buf, sizeof buf, "%lld bytes", static_cast<long long>(n));
  }
  return buf;
}

class DeviceBuffer {
 public:
  DeviceBuffer(void* p, int64_t bytes) : ptr_(p), bytes_(bytes) {}
  ~DeviceBuffer() {
    if (ptr_) cudaFreeAsync(ptr_, 0);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* data() const { return ptr_; }
  int64_t bytes() const { return bytes_; }

 private:
  void* ptr_;
  int64_t bytes_;
};

absl::StatusOr<std::shared_ptr<DeviceBuffer>> Allocate(int64_t bytes) {
  void* p = nullptr;
  if (bytes > 0) {
    RETURN_IF_ERROR(
        CudaStatus(cudaMallocAsync(&p, static_cast<size_t>(bytes), 0),
                   Cat("allocating ", Bytes(bytes))));
  }
  return std::make_shared<DeviceBuffer>(p, bytes);
}

// A value of the walk: an array on the device and/or the host (each copied
// lazily from the other), or a tuple. `ref`: the CPU's value (compare mode).
struct GVal {
  LiteralShape shape;
  Value host;
  std::shared_ptr<DeviceBuffer> dev;
  std::vector<std::shared_ptr<GVal>> elements;
  Value ref;
};
using GV = std::shared_ptr<GVal>;

int64_t Count(const LiteralShape& s) {
  int64_t n = 1;
  for (int64_t d : s.dims) n *= d;
  return n;
}

std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * dims[d + 1];
  return s;
}

class Runner {
 public:
  Runner(const ParsedFile& file, Id module, const BackendOptions& options)
      : file_(file),
        module_(module),
        options_(options),
        cpu_(file, module, HostOptions(options), 0, DeviceCount{},
             &rendezvous_),
        comparing_(options.compare_with_cpu) {}
  ~Runner() {
    if (cublas_) cublas_api_->destroy(cublas_);
  }

  GV FromHost(const Value& v) {
    auto g = std::make_shared<GVal>();
    g->shape = v->shape();
    if (v->is_tuple()) {
      for (const Value& e : v->elements()) g->elements.push_back(FromHost(e));
    }
    g->host = v;
    return g;
  }

  absl::StatusOr<Value> Host(const GV& g) {
    if (g->host) return g->host;
    if (g->shape.is_tuple()) {
      std::vector<Value> elements;
      for (const GV& e : g->elements) {
        auto v = Host(e);
        if (!v.ok()) return v.status();
        elements.push_back(*v);
      }
      g->host = std::make_shared<const Literal>(
          Literal::MakeTuple(std::move(elements)));
      return g->host;
    }
    auto lit = Literal::CreateArray(g->shape.type, g->shape.dims);
    if (!lit.ok()) return lit.status();
    if (lit->byte_size() > 0) {
      if (!g->dev) return absl::InternalError("a value is on neither side");
      RETURN_IF_ERROR(
          CudaStatus(cudaMemcpy(lit->raw(), g->dev->data(),
                                static_cast<size_t>(lit->byte_size()),
                                cudaMemcpyDeviceToHost),
                     "copying to the host"));
      to_host_bytes_ += lit->byte_size();
    }
    g->host = std::make_shared<const Literal>(*std::move(lit));
    return g->host;
  }

  absl::StatusOr<void*> Dev(const GV& g) {
    if (g->shape.is_tuple())
      return absl::InternalError("a tuple on the device");
    if (g->dev) return g->dev->data();
    const Literal& h = *g->host;
    auto buf = Allocate(h.byte_size());
    if (!buf.ok()) return buf.status();
    if (h.byte_size() > 0) {
      RETURN_IF_ERROR(CudaStatus(cudaMemcpy((*buf)->data(), h.raw(),
                                            static_cast<size_t>(h.byte_size()),
                                            cudaMemcpyHostToDevice),
                                 "copying to the device"));
      to_device_bytes_ += h.byte_size();
    }
    g->dev = *std::move(buf);
    return g->dev->data();
  }

  absl::StatusOr<GV> NewArray(const LiteralShape& shape) {
    auto bytes = StorageByteSize(shape);
    if (!bytes)
      return absl::ResourceExhaustedError("the result size overflows");
    auto buf = Allocate(*bytes);
    if (!buf.ok()) return buf.status();
    auto g = std::make_shared<GVal>();
    g->shape = shape;
    g->dev = *std::move(buf);
    return g;
  }

  absl::StatusOr<GV> Run(Id computation, const std::vector<GV>& args,
                         int depth);

  // Fusions run op by op even where a fused kernel would do (benchmarks).
  void set_fusion(bool on) { fuse_ = on; }

  BackendRun Finish() {
    BackendRun out;
    out.stats = std::move(stats_);
    out.first_nonfinite = first_nonfinite_;
    out.divergence = divergence_;
    if (!host_ops_.empty()) {
      std::string list;
      int64_t total = 0;
      for (const auto& [reason, count] : host_ops_) {
        list += Cat(list.empty() ? "" : "; ", reason,
                    count > 1 ? Cat(" (x", count, ")") : "");
        total += count;
      }
      out.notes.push_back(
          Cat(total, " instruction run", total > 1 ? "s" : "",
              " went to the CPU evaluator (no device kernel): ", list));
    }
    if (fused_runs_ + op_by_op_runs_ > 0) {
      std::string list;
      for (const auto& [reason, count] : op_by_op_)
        list += Cat(list.empty() ? "" : "; ", reason,
                    count > 1 ? Cat(" (x", count, ")") : "");
      out.notes.push_back(
          Cat("fusions: ", fused_runs_, " run", fused_runs_ == 1 ? "" : "s",
              " as fused kernels (", kernels_compiled_,
              " compiled with NVRTC in ", programs_compiled_, " program",
              programs_compiled_ == 1 ? "" : "s", "), ", op_by_op_runs_,
              " op by op",
              list.empty() ? "" : ": ", list));
    }
    out.notes.push_back(Cat("transfers: ", Bytes(to_device_bytes_),
                            " to the GPU, ", Bytes(to_host_bytes_), " back",
                            ""));
    return out;
  }

 private:
  static EvalOptions HostOptions(const BackendOptions& o) {
    EvalOptions e = o.eval;
    e.collect_stats = false;
    return e;
  }

  absl::StatusOr<GV> EvalNode(const Plan& plan, const Node& node,
                              std::vector<GV>& values, int depth);
  absl::StatusOr<GV> Structural(const Node& node, const std::vector<GV>& in,
                                int depth, bool* handled);
  absl::StatusOr<GV> OnHost(const Node& node, const std::vector<GV>& in,
                            int depth, const std::string& reason);
  absl::StatusOr<Value> CpuLeaf(const Node& node, const std::vector<Value>& in,
                                int depth);
  absl::StatusOr<GV> OnDevice(const Node& node, const std::vector<GV>& in);
  std::optional<absl::StatusOr<GV>> Fused(const Node& node, Id callee,
                                          const std::vector<GV>& in,
                                          int depth);
  void PrepareFusions();
  absl::StatusOr<GV> Elementwise(const Node& node, const std::vector<GV>& in);
  absl::StatusOr<GV> Copy(const LiteralShape& shape, const StridedCopy& c,
                          const GV& src);
  absl::StatusOr<GV> Alias(const LiteralShape& shape, const GV& src);
  absl::StatusOr<std::vector<int64_t>> Starts(
      const std::vector<GV>& in, size_t first, const std::vector<int64_t>& dims,
      const std::vector<int64_t>& sizes);
  absl::StatusOr<GV> Reduce(const Node& node, const std::vector<GV>& in);
  absl::StatusOr<GV> Dot(const Node& node, const std::vector<GV>& in);
  absl::StatusOr<GV> Permuted(const GV& g, const std::vector<int64_t>& perm);
  absl::Status RecordStats(Id instruction, const GV& g);
  void CompareStep(const Node& node, const GV& out, const std::vector<GV>& in,
                   int depth);
  const std::string& Reason(const Plan& plan, const Node& node);

  const ParsedFile& file_;
  Id module_;
  BackendOptions options_;
  Rendezvous rendezvous_;
  Evaluator cpu_;  // plans, and the ops without a device kernel
  const CublasApi* cublas_api_ = nullptr;  // loaded with the first dot
  cublasHandle_t cublas_ = nullptr;
  std::shared_ptr<DeviceBuffer> stats_buf_;  // LaunchStats' partial results
  std::map<Id, std::string> reasons_;
  std::vector<InstructionStats> stats_;
  std::map<Id, size_t> stats_index_;
  std::map<Id, int64_t> runs_;
  Id first_nonfinite_ = kNone;
  std::map<std::string, int64_t> host_ops_;
  // Fusions: the loaded kernel of each fused computation, or why it has
  // none (then it runs op by op); runs each way, reasons counted.
  struct FusedEntry {
    const void* kernel = nullptr;
    int64_t elements = 0;
    int results = 1;
    std::string declined;
  };
  std::map<Id, FusedEntry> fused_;
  std::map<std::string, int64_t> op_by_op_;
  int64_t fused_runs_ = 0, op_by_op_runs_ = 0, kernels_compiled_ = 0;
  int64_t programs_compiled_ = 0;
  bool fuse_ = true, fusions_prepared_ = false;
  int64_t to_device_bytes_ = 0, to_host_bytes_ = 0;
  int64_t steps_ = 0;
  bool comparing_;
  std::optional<Divergence> divergence_;
};

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
        return absl::InvalidArgumentError(
            Cat(Where(file_, node.id), "argument is ",
                arg ? ShapeString(arg->shape) : "missing",
                ", the parameter is ", ShapeString(node.shape)));
      values[i] = arg;
    } else {
      auto v = EvalNode(plan, node, values, depth);
      if (!v.ok()) {
        if (absl::StrContains(v.status().message(), "line ")) return v.status();
        return absl::Status(v.status().code(),
                            Cat(Where(file_, node.id), v.status().message()));
      }
      values[i] = *std::move(v);
      if (options_.eval.collect_stats) {
        absl::Status st = RecordStats(node.id, values[i]);
        if (!st.ok()) return st;
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
  auto [it, inserted] = stats_index_.try_emplace(instruction, stats_.size());
  if (inserted) {
    stats_.push_back({});
    stats_.back().instruction = instruction;
  }
  InstructionStats& s = stats_[it->second];
  s.runs++;
  s.elements += one.elements;
  s.nan_count += one.nan_count;
  s.inf_count += one.inf_count;
  s.min = std::min(s.min, one.min);
  s.max = std::max(s.max, one.max);
  s.sum += one.sum;
  if (one.nan_count + one.inf_count && first_nonfinite_ == kNone)
    first_nonfinite_ = instruction;
  return absl::OkStatus();
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

// Gives `g` and its tuple elements their CPU values.
void SetRefs(const GV& g, const Value& ref) {
  g->ref = ref;
  if (!ref->is_tuple() || ref->elements().size() != g->elements.size()) return;
  for (size_t k = 0; k < g->elements.size(); ++k)
    SetRefs(g->elements[k], ref->elements()[k]);
}

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
  if (options_.eval.collect_stats)
    return op_by_op("per-instruction statistics asked for");
  auto plan_or = cpu_.GetPlan(callee);
  if (!plan_or.ok()) return std::nullopt;  // Run reports it
  const Plan& plan = **plan_or;
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

// One instruction on the CPU evaluator's op functions (what its EvalNode
// does for every op that is not control flow).
absl::StatusOr<Value> Runner::CpuLeaf(const Node& node,
                                      const std::vector<Value>& in, int depth) {
  auto wrap = [](absl::StatusOr<Literal> lit) -> absl::StatusOr<Value> {
    if (!lit.ok()) return lit.status();
    return std::make_shared<const Literal>(*std::move(lit));
  };
  auto need = [&](size_t n) -> absl::Status {
    if (in.size() < n)
      return absl::InvalidArgumentError(
          Cat(OpcodeName(node.op), " needs ", n, " operands"));
    return absl::OkStatus();
  };
  if (IsElementwise(node.op)) return wrap(EvalElementwise(node, in));
  if (IsShapeOp(node.op)) return wrap(EvalShapeOp(file_, node, in));
  if (IsCollective(node.op)) return EvalCollective(cpu_, node, in, depth);
  if (IsBatchNorm(node.op)) return EvalBatchNorm(node, in);
  switch (node.op) {
    case O::kRngGetAndUpdateState:
      return EvalRngGetAndUpdateState(cpu_, node);
    case O::kDot:
      RETURN_IF_ERROR(need(2));
      if (!node.attrs.dot_dimension_numbers)
        return absl::InvalidArgumentError("dot without dimension numbers");
      return wrap(
          EvalDot(node, *in[0], *in[1], *node.attrs.dot_dimension_numbers));
    case O::kConvolution:
      RETURN_IF_ERROR(need(2));
      return wrap(EvalConvolution(node, *in[0], *in[1]));
    case O::kGather:
      RETURN_IF_ERROR(need(2));
      return wrap(EvalGather(node, *in[0], *in[1]));
    case O::kScatter:
      return EvalScatter(cpu_, node, in, depth);
    case O::kFft:
      RETURN_IF_ERROR(need(1));
      return wrap(EvalFft(node, *in[0]));
    case O::kCholesky:
      RETURN_IF_ERROR(need(1));
      return wrap(EvalCholesky(node, *in[0]));
    case O::kTriangularSolve:
      RETURN_IF_ERROR(need(2));
      return wrap(EvalTriangularSolve(node, *in[0], *in[1]));
    case O::kReduce:
    case O::kReduceWindow:
    case O::kSelectAndScatter:
    case O::kSort:
    case O::kMap:
    case O::kRng:
    case O::kRngBitGenerator:
    case O::kTopk:
      return EvalReduceFamily(cpu_, node, in, depth);
    case O::kCustomCall:
      return EvalCustomCall(cpu_, node, in, depth);
    case O::kAsyncStart: {  // sugared (all-to-all-start, custom-call-start)
      if (node.wrapped == O::kUnknown || node.wrapped == O::kAsyncStart)
        return absl::InvalidArgumentError("async-start without calls=");
      Node inner = node;
      inner.op = node.wrapped;
      inner.wrapped = O::kUnknown;
      if (node.shape.is_tuple() && node.shape.tuple_elements.size() >= 2)
        inner.shape = node.shape.tuple_elements[1];
      auto r = CpuLeaf(inner, in, depth);
      if (!r.ok()) return r;
      std::vector<Value> parts = {
          std::make_shared<const Literal>(Literal::MakeTuple(in)), *r};
      for (size_t k = 2; k < node.shape.tuple_elements.size(); ++k) {
        auto z = Literal::Create(node.shape.tuple_elements[k]);
        if (!z.ok()) return z.status();
        parts.push_back(std::make_shared<const Literal>(*std::move(z)));
      }
      return std::make_shared<const Literal>(
          Literal::MakeTuple(std::move(parts)));
    }
    default:
      return absl::UnimplementedError(
          Cat("the GPU backend cannot run ", OpcodeName(node.op)));
  }
}

// ------------------------------------------------------------- device ops --

absl::StatusOr<GV> Runner::Alias(const LiteralShape& shape, const GV& src) {
  if (Count(shape) != Count(src->shape) || shape.type != src->shape.type)
    return absl::UnimplementedError("reshape changes the element count");
  auto p = Dev(src);
  if (!p.ok()) return p.status();
  auto g = std::make_shared<GVal>();
  g->shape = shape;
  g->dev = src->dev;
  return g;
}

absl::StatusOr<GV> Runner::Copy(const LiteralShape& shape, const StridedCopy& c,
                                const GV& src) {
  auto s = Dev(src);
  if (!s.ok()) return s.status();
  auto out = NewArray(shape);
  if (!out.ok()) return out;
  RETURN_IF_ERROR(CudaStatus(
      LaunchStridedCopy(c, StorageBytes(shape.type), *s, (*out)->dev->data()),
      "a copy kernel"));
  return out;
}

absl::StatusOr<std::vector<int64_t>> Runner::Starts(
    const std::vector<GV>& in, size_t first, const std::vector<int64_t>& dims,
    const std::vector<int64_t>& sizes) {
  std::vector<Value> host;
  for (size_t k = first; k < in.size(); ++k) {
    auto v = Host(in[k]);
    if (!v.ok()) return v.status();
    host.push_back(*v);
  }
  std::vector<int64_t> starts(dims.size(), 0);
  const bool vector_form =
      host.size() == 1 && host[0]->rank() == 1 && dims.size() != 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    int64_t v = 0;
    if (vector_form) {
      if (static_cast<int64_t>(d) < host[0]->count()) v = host[0]->GetInt(d);
    } else if (d < host.size()) {
      v = host[d]->GetInt(0);
    }
    starts[d] =
        std::clamp<int64_t>(v, 0, std::max<int64_t>(0, dims[d] - sizes[d]));
  }
  return starts;
}

absl::StatusOr<GV> Runner::Elementwise(const Node& node,
                                       const std::vector<GV>& in) {
  const int64_t n = Count(node.shape);
  std::vector<const void*> ptr;
  std::vector<bool> scalar;
  for (const GV& g : in) {
    auto p = Dev(g);
    if (!p.ok()) return p.status();
    ptr.push_back(*p);
    scalar.push_back(Count(g->shape) != n);
  }
  auto out = NewArray(node.shape);
  if (!out.ok()) return out;
  void* o = (*out)->dev->data();
  const auto t = DeviceType(node.shape.type);
  int err = 0;
  switch (node.op) {
    case O::kSelect:
      err = LaunchSelect(StorageBytes(node.shape.type), n,
                         static_cast<const uint8_t*>(ptr[0]), scalar[0], ptr[1],
                         scalar[1], ptr[2], scalar[2], o);
      break;
    case O::kClamp:
      err = LaunchClamp(*t, n, ptr[0], scalar[0], ptr[1], scalar[1], ptr[2],
                        scalar[2], o);
      break;
    case O::kCompare:
      err = LaunchCompare(
          static_cast<int>(node.attrs.comparison_direction.value_or(
              ComparisonDirection::kEq)),
          node.attrs.comparison_type == ComparisonType::kTotalOrder,
          *DeviceType(in[0]->shape.type), n, ptr[0], scalar[0], ptr[1],
          scalar[1], static_cast<uint8_t*>(o));
      break;
    case O::kIsFinite:
      err = LaunchIsFinite(*DeviceType(in[0]->shape.type), n, ptr[0],
                           static_cast<uint8_t*>(o));
      break;
    default: {
      const auto op = ElementwiseOp(node.op);
      if (!op || !t) return absl::UnimplementedError("no device kernel");
      if (in.size() == 1) {
        err = LaunchUnary(*op, *t, n, ptr[0], o);
      } else {
        err = LaunchBinary(*op, *t, n, ptr[0], scalar[0], ptr[1], scalar[1], o);
      }
    }
  }
  RETURN_IF_ERROR(CudaStatus(err, Cat(OpcodeName(node.op), " kernel")));
  return out;
}

absl::StatusOr<GV> Runner::Reduce(const Node& node, const std::vector<GV>& in) {
  auto plan = cpu_.GetPlan(node.Call("to_apply"));
  if (!plan.ok()) return plan.status();
  const auto op = SimpleReduceOp(**plan);
  const auto t = DeviceType(node.shape.type);
  if (!op || !t) return absl::UnimplementedError("no device reduce");
  const std::vector<int64_t>& dims = in[0]->shape.dims;
  std::vector<int64_t> rd =
      node.attrs.dimensions.value_or(std::vector<int64_t>{});
  std::sort(rd.begin(), rd.end());
  std::vector<bool> reduced(dims.size(), false);
  for (int64_t d : rd) {
    if (d < 0 || d >= static_cast<int64_t>(dims.size()) || reduced[d])
      return absl::InvalidArgumentError("reduce dimension out of range");
    reduced[d] = true;
  }
  const std::vector<int64_t> strides = Strides(dims);
  ReduceShape s;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (reduced[d]) {
      s.reduced_dims[s.reduced_rank] = dims[d];
      s.reduced_strides[s.reduced_rank++] = strides[d];
    } else {
      s.kept_dims[s.kept_rank] = dims[d];
      s.kept_strides[s.kept_rank++] = strides[d];
    }
  }
  std::vector<int64_t> kept(s.kept_dims, s.kept_dims + s.kept_rank);
  if (kept != node.shape.dims)
    return absl::InvalidArgumentError(
        "reduce result shape differs from the kept dims");
  auto x = Dev(in[0]);
  if (!x.ok()) return x.status();
  auto init = Dev(in[1]);
  if (!init.ok()) return init.status();
  auto out = NewArray(node.shape);
  if (!out.ok()) return out;
  RETURN_IF_ERROR(
      CudaStatus(LaunchReduce(*op, *t, s, *x, *init, (*out)->dev->data()),
                 "reduce kernel"));
  return out;
}

// `g` transposed so that out dim i is g's dim perm[i] (no copy when perm is
// the identity).
absl::StatusOr<GV> Runner::Permuted(const GV& g,
                                    const std::vector<int64_t>& perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity) {
    auto p = Dev(g);
    if (!p.ok()) return p.status();
    return g;
  }
  const std::vector<int64_t> in_strides = Strides(g->shape.dims);
  LiteralShape shape = g->shape;
  StridedCopy c;
  c.rank = static_cast<int>(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    shape.dims[i] = g->shape.dims[perm[i]];
    c.dims[i] = shape.dims[i];
    c.src_strides[i] = in_strides[perm[i]];
  }
  const std::vector<int64_t> out_strides = Strides(shape.dims);
  for (size_t i = 0; i < perm.size(); ++i) c.dst_strides[i] = out_strides[i];
  return Copy(shape, c, g);
}

absl::StatusOr<GV> Runner::Dot(const Node& node, const std::vector<GV>& in) {
  const DotDimensionNumbers& dn = *node.attrs.dot_dimension_numbers;
  const std::vector<int64_t>& ld = in[0]->shape.dims;
  const std::vector<int64_t>& rd = in[1]->shape.dims;
  if (dn.lhs_batch_dimensions.size() != dn.rhs_batch_dimensions.size() ||
      dn.lhs_contracting_dimensions.size() !=
          dn.rhs_contracting_dimensions.size())
    return absl::InvalidArgumentError("dot dimension numbers do not pair up");
  auto free_dims = [](const std::vector<int64_t>& dims,
                      const std::vector<int64_t>& batch,
                      const std::vector<int64_t>& contracting) {
    std::vector<int64_t> free;
    for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d)
      if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
          std::find(contracting.begin(), contracting.end(), d) ==
              contracting.end())
        free.push_back(d);
    return free;
  };
  const auto lfree =
      free_dims(ld, dn.lhs_batch_dimensions, dn.lhs_contracting_dimensions);
  const auto rfree =
      free_dims(rd, dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions);
  int64_t batch = 1, m = 1, n = 1, k = 1;
  for (size_t i = 0; i < dn.lhs_batch_dimensions.size(); ++i) {
    const int64_t a = dn.lhs_batch_dimensions[i],
                  b = dn.rhs_batch_dimensions[i];
    if (a < 0 || a >= static_cast<int64_t>(ld.size()) || b < 0 ||
        b >= static_cast<int64_t>(rd.size()) || ld[a] != rd[b])
      return absl::InvalidArgumentError("dot batch dimensions differ");
    batch *= ld[a];
  }
  for (size_t i = 0; i < dn.lhs_contracting_dimensions.size(); ++i) {
    const int64_t a = dn.lhs_contracting_dimensions[i],
                  b = dn.rhs_contracting_dimensions[i];
    if (a < 0 || a >= static_cast<int64_t>(ld.size()) || b < 0 ||
        b >= static_cast<int64_t>(rd.size()) || ld[a] != rd[b])
      return absl::InvalidArgumentError("dot contracting dimensions differ");
    k *= ld[a];
  }
  for (int64_t d : lfree) m *= ld[d];
  for (int64_t d : rfree) n *= rd[d];
  if (batch * m * n != Count(node.shape))
    return absl::InvalidArgumentError(
        "dot result size differs from its operands");
  // lhs as [batch, m, k], rhs as [batch, k, n], both row-major.
  std::vector<int64_t> lperm = dn.lhs_batch_dimensions,
                       rperm = dn.rhs_batch_dimensions;
  lperm.insert(lperm.end(), lfree.begin(), lfree.end());
  lperm.insert(lperm.end(), dn.lhs_contracting_dimensions.begin(),
               dn.lhs_contracting_dimensions.end());
  rperm.insert(rperm.end(), dn.rhs_contracting_dimensions.begin(),
               dn.rhs_contracting_dimensions.end());
  rperm.insert(rperm.end(), rfree.begin(), rfree.end());
  auto a = Permuted(in[0], lperm);
  if (!a.ok()) return a;
  auto b = Permuted(in[1], rperm);
  if (!b.ok()) return b;
  auto out = NewArray(node.shape);
  if (!out.ok()) return out;
  void* c = (*out)->dev->data();
  if (batch * m * n == 0) return out;
  if (k == 0) {
    RETURN_IF_ERROR(CudaStatus(
        cudaMemsetAsync(c, 0, static_cast<size_t>((*out)->dev->bytes()), 0),
        "zeroing a dot"));
    return out;
  }
  if (!cublas_) {
    absl::StatusOr<const CublasApi*> api = Cublas();
    if (!api.ok()) return api.status();
    cublas_api_ = *api;
    RETURN_IF_ERROR(CublasStatus(*cublas_api_, cublas_api_->create(&cublas_),
                                 "cublasCreate"));
    RETURN_IF_ERROR(CublasStatus(
        *cublas_api_, cublas_api_->set_math_mode(cublas_, CUBLAS_DEFAULT_MATH),
        "cublasSetMathMode"));
  }
  const CublasApi& blas = *cublas_api_;
  // Row-major C[m,n] = A[m,k] B[k,n] is column-major C^T = B^T A^T: cuBLAS
  // sees B as an n x k matrix (ld n) and A as k x m (ld k).
  const void* A = (*a)->dev->data();
  const void* B = (*b)->dev->data();
  const int im = static_cast<int>(m), in_ = static_cast<int>(n),
            ik = static_cast<int>(k), ib = static_cast<int>(batch);
  const PrimitiveType at = in[0]->shape.type, ct = node.shape.type;
  cublasStatus_t st;
  if (at == PrimitiveType::kF32 && ct == PrimitiveType::kF32) {
    const float alpha = 1, beta = 0;
    st = blas.sgemm_strided_batched(
        cublas_, CUBLAS_OP_N, CUBLAS_OP_N, in_, im, ik, &alpha,
        static_cast<const float*>(B), in_, k * n, static_cast<const float*>(A),
        ik, m * k, &beta, static_cast<float*>(c), in_, m * n, ib);
  } else if (at == PrimitiveType::kF64 && ct == PrimitiveType::kF64) {
    const double alpha = 1, beta = 0;
    st = blas.dgemm_strided_batched(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, in_, im,
                                   ik, &alpha, static_cast<const double*>(B),
                                   in_, k * n, static_cast<const double*>(A),
                                   ik, m * k, &beta, static_cast<double*>(c),
                                   in_, m * n, ib);
  } else {
    const cudaDataType_t ab =
        at == PrimitiveType::kBF16 ? CUDA_R_16BF : CUDA_R_16F;
    const cudaDataType_t cc = ct == PrimitiveType::kF32 ? CUDA_R_32F : ab;
    const float alpha = 1, beta = 0;
    st = blas.gemm_strided_batched_ex(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, in_, im,
                                    ik, &alpha, B, ab, in_, k * n, A, ab, ik,
                                    m * k, &beta, c, cc, in_, m * n, ib,
                                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  RETURN_IF_ERROR(CublasStatus(blas, st, "gemm"));
  return out;
}

absl::StatusOr<GV> Runner::OnDevice(const Node& node,
                                    const std::vector<GV>& in) {
  const LiteralShape& shape = node.shape;
  const std::vector<int64_t> out_strides = Strides(shape.dims);
  const int rank = static_cast<int>(shape.dims.size());
  auto dense_dst = [&](StridedCopy& c) {
    c.rank = rank;
    for (int d = 0; d < rank; ++d) {
      c.dims[d] = shape.dims[d];
      c.dst_strides[d] = out_strides[d];
    }
  };
  if (IsElementwise(node.op)) return Elementwise(node, in);
  switch (node.op) {
    case O::kReshape:
    case O::kCopy:
    case O::kBitcast:
      return Alias(shape, in[0]);
    case O::kConvert: {
      if (in[0]->shape.type == shape.type) return Alias(shape, in[0]);
      auto p = Dev(in[0]);
      if (!p.ok()) return p.status();
      auto out = NewArray(shape);
      if (!out.ok()) return out;
      RETURN_IF_ERROR(CudaStatus(
          LaunchConvert(*DeviceType(in[0]->shape.type), *DeviceType(shape.type),
                        Count(shape), *p, (*out)->dev->data()),
          "convert kernel"));
      return out;
    }
    case O::kIota: {
      auto out = NewArray(shape);
      if (!out.ok()) return out;
      RETURN_IF_ERROR(CudaStatus(
          LaunchIota(*DeviceType(shape.type), rank, shape.dims.data(),
                     static_cast<int>(*node.attrs.iota_dimension),
                     (*out)->dev->data()),
          "iota kernel"));
      return out;
    }
    case O::kBroadcast: {
      const std::vector<int64_t> map =
          node.attrs.dimensions.value_or(std::vector<int64_t>{});
      const std::vector<int64_t>& id = in[0]->shape.dims;
      if (map.size() != id.size())
        return absl::InvalidArgumentError(
            "broadcast dimensions= do not match the operand");
      StridedCopy c;
      dense_dst(c);
      const std::vector<int64_t> s = Strides(id);
      for (size_t k = 0; k < map.size(); ++k) {
        if (map[k] < 0 || map[k] >= rank || id[k] != shape.dims[map[k]])
          return absl::InvalidArgumentError("broadcast dimension mismatch");
        c.src_strides[map[k]] = s[k];
      }
      return Copy(shape, c, in[0]);
    }
    case O::kTranspose: {
      const std::vector<int64_t> perm =
          node.attrs.dimensions.value_or(std::vector<int64_t>{});
      if (static_cast<int>(perm.size()) != rank ||
          in[0]->shape.dims.size() != perm.size())
        return absl::InvalidArgumentError("transpose dimensions= do not match");
      for (int d = 0; d < rank; ++d)
        if (perm[d] < 0 || perm[d] >= rank ||
            in[0]->shape.dims[perm[d]] != shape.dims[d])
          return absl::InvalidArgumentError(
              "transpose dimensions= do not match");
      return Permuted(in[0], perm);
    }
    case O::kSlice: {
      const SliceSpec& sl = *node.attrs.slice;
      const std::vector<int64_t>& id = in[0]->shape.dims;
      if (sl.starts.size() != id.size() || static_cast<int>(id.size()) != rank)
        return absl::InvalidArgumentError(
            "slice= rank differs from the operand");
      const std::vector<int64_t> s = Strides(id);
      StridedCopy c;
      dense_dst(c);
      for (int d = 0; d < rank; ++d) {
        const int64_t stride =
            d < static_cast<int>(sl.strides.size()) ? sl.strides[d] : 1;
        if (sl.starts[d] < 0 || sl.limits[d] > id[d] || stride <= 0)
          return absl::InvalidArgumentError("slice out of bounds");
        const int64_t n =
            sl.limits[d] > sl.starts[d]
                ? (sl.limits[d] - sl.starts[d] + stride - 1) / stride
                : 0;
        if (n != shape.dims[d])
          return absl::InvalidArgumentError(
              "slice size differs from the result");
        c.src_offset += sl.starts[d] * s[d];
        c.src_strides[d] = stride * s[d];
      }
      return Copy(shape, c, in[0]);
    }
    case O::kReverse: {
      const std::vector<int64_t>& id = in[0]->shape.dims;
      if (id != shape.dims)
        return absl::InvalidArgumentError("reverse changes the shape");
      const std::vector<int64_t> s = Strides(id);
      StridedCopy c;
      dense_dst(c);
      for (int d = 0; d < rank; ++d) c.src_strides[d] = s[d];
      for (int64_t d : node.attrs.dimensions.value_or(std::vector<int64_t>{})) {
        if (d < 0 || d >= rank)
          return absl::InvalidArgumentError("reverse dimension out of range");
        c.src_offset += (id[d] - 1) * s[d];
        c.src_strides[d] = -s[d];
      }
      if (Count(shape) == 0) c.src_offset = 0;
      return Copy(shape, c, in[0]);
    }
    case O::kConcatenate: {
      const int64_t dim = (*node.attrs.dimensions)[0];
      if (dim < 0 || dim >= rank)
        return absl::InvalidArgumentError("concatenate dimension out of range");
      auto out = NewArray(shape);
      if (!out.ok()) return out;
      int64_t at = 0;
      for (const GV& g : in) {
        if (static_cast<int>(g->shape.dims.size()) != rank)
          return absl::InvalidArgumentError("concatenate operand rank differs");
        auto p = Dev(g);
        if (!p.ok()) return p.status();
        StridedCopy c;
        c.rank = rank;
        const std::vector<int64_t> s = Strides(g->shape.dims);
        for (int d = 0; d < rank; ++d) {
          c.dims[d] = g->shape.dims[d];
          c.src_strides[d] = s[d];
          c.dst_strides[d] = out_strides[d];
        }
        c.dst_offset = at * out_strides[dim];
        at += g->shape.dims[dim];
        if (at > shape.dims[dim])
          return absl::InvalidArgumentError("concatenate sizes do not add up");
        RETURN_IF_ERROR(
            CudaStatus(LaunchStridedCopy(c, StorageBytes(shape.type), *p,
                                         (*out)->dev->data()),
                       "concatenate kernel"));
      }
      if (at != shape.dims[dim])
        return absl::InvalidArgumentError("concatenate sizes do not add up");
      return out;
    }
    case O::kPad: {
      const PaddingConfig& pc = *node.attrs.padding;
      const std::vector<int64_t>& id = in[0]->shape.dims;
      if (static_cast<int>(pc.dimensions.size()) != rank ||
          static_cast<int>(id.size()) != rank)
        return absl::InvalidArgumentError(
            "padding= rank differs from the operand");
      auto p = Dev(in[0]);
      if (!p.ok()) return p.status();
      auto v = Dev(in[1]);
      if (!v.ok()) return v.status();
      auto out = NewArray(shape);
      if (!out.ok()) return out;
      const int eb = StorageBytes(shape.type);
      RETURN_IF_ERROR(
          CudaStatus(LaunchFill((*out)->dev->data(), Count(shape), eb, *v),
                     "pad fill kernel"));
      // Operand index j lands at low + j * (interior + 1) when that is
      // inside the result: a contiguous range [j0, j1) per dim.
      const std::vector<int64_t> s = Strides(id);
      StridedCopy c;
      c.rank = rank;
      bool empty = false;
      for (int d = 0; d < rank; ++d) {
        const PaddingDimension& pd = pc.dimensions[d];
        const int64_t step = pd.interior_padding + 1;
        if (step <= 0)
          return absl::InvalidArgumentError("negative interior padding");
        int64_t j0 = 0;
        if (pd.edge_padding_low < 0)
          j0 = (-pd.edge_padding_low + step - 1) / step;
        int64_t j1 = id[d];
        const int64_t last =
            shape.dims[d] - 1 - pd.edge_padding_low;  // j*step <= last
        j1 = last < 0 ? 0 : std::min(j1, last / step + 1);
        if (j1 <= j0) {
          empty = true;
          break;
        }
        c.dims[d] = j1 - j0;
        c.src_offset += j0 * s[d];
        c.src_strides[d] = s[d];
        c.dst_offset += (pd.edge_padding_low + j0 * step) * out_strides[d];
        c.dst_strides[d] = step * out_strides[d];
      }
      if (!empty && Count(in[0]->shape) > 0)
        RETURN_IF_ERROR(CudaStatus(
            LaunchStridedCopy(c, eb, *p, (*out)->dev->data()), "pad kernel"));
      return out;
    }
    case O::kDynamicSlice: {
      const std::vector<int64_t>& id = in[0]->shape.dims;
      if (static_cast<int>(id.size()) != rank)
        return absl::InvalidArgumentError("dynamic-slice rank mismatch");
      auto starts = Starts(in, 1, id, shape.dims);
      if (!starts.ok()) return starts.status();
      const std::vector<int64_t> s = Strides(id);
      StridedCopy c;
      dense_dst(c);
      for (int d = 0; d < rank; ++d) {
        c.src_offset += (*starts)[d] * s[d];
        c.src_strides[d] = s[d];
      }
      return Copy(shape, c, in[0]);
    }
    case O::kDynamicUpdateSlice: {
      if (in.size() < 2)
        return absl::InvalidArgumentError(
            "dynamic-update-slice needs 2 operands");
      const std::vector<int64_t>& id = in[0]->shape.dims;
      const std::vector<int64_t>& ud = in[1]->shape.dims;
      if (ud.size() != id.size() || id != shape.dims)
        return absl::InvalidArgumentError("dynamic-update-slice rank mismatch");
      for (int d = 0; d < rank; ++d)
        if (ud[d] > id[d])
          return absl::InvalidArgumentError("update larger than operand");
      auto starts = Starts(in, 2, id, ud);
      if (!starts.ok()) return starts.status();
      auto p = Dev(in[0]);
      if (!p.ok()) return p.status();
      auto u = Dev(in[1]);
      if (!u.ok()) return u.status();
      auto out = NewArray(shape);
      if (!out.ok()) return out;
      if ((*out)->dev->bytes() > 0)
        RETURN_IF_ERROR(CudaStatus(
            cudaMemcpyAsync((*out)->dev->data(), *p,
                            static_cast<size_t>((*out)->dev->bytes()),
                            cudaMemcpyDeviceToDevice, 0),
            "copying the operand"));
      const std::vector<int64_t> s = Strides(ud);
      StridedCopy c;
      c.rank = rank;
      for (int d = 0; d < rank; ++d) {
        c.dims[d] = ud[d];
        c.src_strides[d] = s[d];
        c.dst_strides[d] = out_strides[d];
        c.dst_offset += (*starts)[d] * out_strides[d];
      }
      RETURN_IF_ERROR(CudaStatus(LaunchStridedCopy(c, StorageBytes(shape.type),
                                                   *u, (*out)->dev->data()),
                                 "dynamic-update-slice kernel"));
      return out;
    }
    case O::kReduce:
      return Reduce(node, in);
    case O::kDot:
      return Dot(node, in);
    default:
      return absl::UnimplementedError(
          Cat("no device kernel for ", OpcodeName(node.op)));
  }
}

// Ops CpuLeaf runs (what the CPU evaluator's EvalNode does outside control
// flow); keep in step with it.
bool HostCanRun(Opcode op) {
  if (IsElementwise(op) || IsShapeOp(op) || IsCollective(op) || IsBatchNorm(op))
    return true;
  switch (op) {
    case O::kRngGetAndUpdateState:
    case O::kDot:
    case O::kConvolution:
    case O::kGather:
    case O::kScatter:
    case O::kFft:
    case O::kCholesky:
    case O::kTriangularSolve:
    case O::kReduce:
    case O::kReduceWindow:
    case O::kSelectAndScatter:
    case O::kSort:
    case O::kMap:
    case O::kRng:
    case O::kRngBitGenerator:
    case O::kTopk:
    case O::kCustomCall:
    case O::kAsyncStart:
      return true;
    default:
      return false;
  }
}

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
            Cat("needs about ", Bytes(*estimate), " of GPU memory, ",
                Bytes(static_cast<int64_t>(free_bytes)), " free"));
    }
    BackendRun out;
    {
      Runner runner(file, module, options);
      std::vector<GV> gargs;
      for (const Value& a : args) {
        GV g = runner.FromHost(a);
        if (options.compare_with_cpu) g->ref = a;
        gargs.push_back(g);
      }
      auto r = runner.Run(file.modules[module].entry, gargs, 0);
      if (!r.ok()) return r.status();
      auto host = runner.Host(*r);
      if (!host.ok()) return host.status();
      RETURN_IF_ERROR(CudaStatus(cudaDeviceSynchronize(), "the last kernels"));
      out = runner.Finish();
      out.result = *host;
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
}  // namespace gpu

std::unique_ptr<Backend> MakeGpuBackend() {
  return std::make_unique<gpu::GpuBackend>();
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

// ---------------------------------------------------------- benchmarks --

namespace hlo::exec::gpu {
namespace {

struct Events {
  cudaEvent_t start = nullptr, stop = nullptr;
  Events() {
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  float Elapsed() {
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    return ms;
  }
};

// Device arrays of `shapes`, each element 0.5 (through a device scalar).
absl::StatusOr<std::vector<GV>> DeviceArgs(
    Runner& runner, const std::vector<LiteralShape>& shapes) {
  auto half = std::make_shared<const Literal>(
      Literal::ScalarFromDouble(PrimitiveType::kF32, 0.5));
  GV h = runner.FromHost(half);
  auto hp = runner.Dev(h);
  if (!hp.ok()) return hp.status();
  std::vector<GV> args;
  for (const LiteralShape& s : shapes) {
    auto g = runner.NewArray(s);
    if (!g.ok()) return g.status();
    RETURN_IF_ERROR(
        CudaStatus(LaunchFill((*g)->dev->data(), Count(s), 4, *hp), "fill"));
    args.push_back(*g);
  }
  RETURN_IF_ERROR(CudaStatus(cudaDeviceSynchronize(), "fill"));
  return args;
}

}  // namespace

absl::StatusOr<DotBench> BenchDot(int64_t m, int64_t n, int64_t k,
                                  int iterations) {
  if (!QueryGpu().available())
    return absl::FailedPreconditionError(QueryGpu().Describe());
  const std::string text = Cat(
      "HloModule bench_dot\nENTRY e {\n  a = f32[", m, ",", k,
      "] parameter(0)\n", "  b = f32[", k, ",", n,
      "] parameter(1)\n  ROOT d = f32[", m, ",", n,
      "] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
  auto file = Parse(text);
  if (file->HasErrors() || file->modules.empty())
    return absl::InternalError("the benchmark module does not parse");
  BackendOptions options;
  Runner runner(*file, 0, options);
  auto args =
      DeviceArgs(runner, {LiteralShape::Array(PrimitiveType::kF32, {m, k}),
                          LiteralShape::Array(PrimitiveType::kF32, {k, n})});
  if (!args.ok()) return args.status();
  const Id entry = file->modules[0].entry;
  DotBench out{m, n, k, 0, 0};
  Events ev;
  for (int pass = 0; pass < 2; ++pass) {  // the first pass warms up
    cudaEventRecord(ev.start, 0);
    for (int i = 0; i < iterations; ++i) {
      auto r = runner.Run(entry, *args, 0);
      if (!r.ok()) return r.status();
    }
    cudaEventRecord(ev.stop, 0);
    out.ours_ms = ev.Elapsed() / iterations;
  }
  absl::StatusOr<const CublasApi*> api = Cublas();
  if (!api.ok()) return api.status();
  const CublasApi& blas = **api;
  cublasHandle_t handle;
  RETURN_IF_ERROR(CublasStatus(blas, blas.create(&handle), "cublasCreate"));
  auto c = runner.NewArray(LiteralShape::Array(PrimitiveType::kF32, {m, n}));
  if (!c.ok()) return c.status();
  const float alpha = 1, beta = 0;
  const float* A = static_cast<const float*>((*args)[0]->dev->data());
  const float* B = static_cast<const float*>((*args)[1]->dev->data());
  float* C = static_cast<float*>((*c)->dev->data());
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  for (int pass = 0; pass < 2; ++pass) {
    cudaEventRecord(ev.start, 0);
    for (int i = 0; i < iterations && st == CUBLAS_STATUS_SUCCESS; ++i)
      st = blas.sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n),
                       static_cast<int>(m), static_cast<int>(k), &alpha, B,
                       static_cast<int>(n), A, static_cast<int>(k), &beta, C,
                       static_cast<int>(n));
    cudaEventRecord(ev.stop, 0);
    out.cublas_ms = ev.Elapsed() / iterations;
  }
  blas.destroy(handle);
  RETURN_IF_ERROR(CublasStatus(blas, st, "cublasSgemm"));
  RETURN_IF_ERROR(CudaStatus(cudaDeviceSynchronize(), "the benchmark"));
  return out;
}

absl::StatusOr<ChainBench> BenchElementwiseChain(int64_t elements,
                                                 int iterations) {
  if (!QueryGpu().available())
    return absl::FailedPreconditionError(QueryGpu().Describe());
  const std::string s = Cat("f32[", elements, "]");
  const std::string text = Cat(
      "HloModule bench_chain\nfused {\n  x = ", s, " parameter(0)\n  y = ", s,
      " parameter(1)\n  a = ", s, " multiply(x, y)\n  b = ", s,
      " add(a, x)\n  c = ", s, " maximum(b, y)\n  ROOT d = ", s,
      " subtract(c, x)\n}\nENTRY e {\n  x = ", s, " parameter(0)\n  y = ", s,
      " parameter(1)\n  ROOT f = ", s,
      " fusion(x, y), kind=kLoop, calls=fused\n}\n");
  auto file = Parse(text);
  if (file->HasErrors() || file->modules.empty())
    return absl::InternalError("the benchmark module does not parse");
  BackendOptions options;
  Runner runner(*file, 0, options);
  const LiteralShape shape =
      LiteralShape::Array(PrimitiveType::kF32, {elements});
  auto args = DeviceArgs(runner, {shape, shape});
  if (!args.ok()) return args.status();
  const Id entry = file->modules[0].entry;
  ChainBench out;
  out.elements = elements;
  out.ops = 4;
  Events ev;
  // Op by op, then as one generated kernel (the first pass of each warms
  // up; it compiles the kernel).
  for (const bool fused : {false, true}) {
    runner.set_fusion(fused);
    for (int pass = 0; pass < 2; ++pass) {
      cudaEventRecord(ev.start, 0);
      for (int i = 0; i < iterations; ++i) {
        auto r = runner.Run(entry, *args, 0);
        if (!r.ok()) return r.status();
      }
      cudaEventRecord(ev.stop, 0);
      (fused ? out.chain_ms : out.op_by_op_ms) = ev.Elapsed() / iterations;
    }
  }
  for (const std::string& note : runner.Finish().notes)
    if (note.rfind("fusions:", 0) == 0) out.fused = note;
  // The copy moves the chain's bytes: 1.5 arrays read and written.
  const size_t bytes = static_cast<size_t>(elements) * 4;
  const LiteralShape copy_shape =
      LiteralShape::Array(PrimitiveType::kF32, {elements + elements / 2});
  const size_t copy_bytes = static_cast<size_t>(Count(copy_shape)) * 4;
  auto src = runner.NewArray(copy_shape);
  if (!src.ok()) return src.status();
  auto dst = runner.NewArray(copy_shape);
  if (!dst.ok()) return dst.status();
  RETURN_IF_ERROR(CudaStatus(
      cudaMemsetAsync((*src)->dev->data(), 0, copy_bytes, 0), "memset"));
  for (int pass = 0; pass < 2; ++pass) {
    cudaEventRecord(ev.start, 0);
    for (int i = 0; i < iterations; ++i)
      cudaMemcpyAsync((*dst)->dev->data(), (*src)->dev->data(), copy_bytes,
                      cudaMemcpyDeviceToDevice, 0);
    cudaEventRecord(ev.stop, 0);
    out.copy_ms = ev.Elapsed() / iterations;
  }
  RETURN_IF_ERROR(CudaStatus(cudaDeviceSynchronize(), "the benchmark"));
  out.chain_gbps = 3.0 * bytes / (out.chain_ms * 1e6);
  out.op_by_op_gbps = 3.0 * bytes / (out.op_by_op_ms * 1e6);
  out.copy_gbps = 2.0 * copy_bytes / (out.copy_ms * 1e6);
  return out;
}

}  // namespace hlo::exec::gpu
