// The GPU backend's shared parts, internal to exec/gpu: status helpers,
// device buffers, the walk's values and the Runner class, whose methods are
// defined in backend.cc (the walk, control flow, compare mode),
// runner_fusion.cc (fused kernels, ops on the CPU evaluator) and
// device_ops.cc (ops with a device kernel); bench.cc drives it.
#ifndef HLO_LSP_EXEC_GPU_RUNNER_H_
#define HLO_LSP_EXEC_GPU_RUNNER_H_

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "exec/evaluator_internal.h"
#include "exec/gpu/cublas.h"
#include "exec/gpu/kernels.h"
#include "exec/platform.h"
#include "exec/rendezvous.h"
#include "exec/strings.h"

namespace hlo::exec::gpu::internal {

using O = Opcode;

inline absl::Status CudaStatus(int err, std::string_view what) {
  if (err == 0) return absl::OkStatus();
  const auto e = static_cast<cudaError_t>(err);
  std::string message = Cat("CUDA error in ", what, ": ", cudaGetErrorName(e),
                            " (", cudaGetErrorString(e), ")");
  if (e == cudaErrorMemoryAllocation)
    return absl::ResourceExhaustedError("GPU memory: " + message);
  return absl::InternalError(message);
}

inline absl::Status CublasStatus(const CublasApi& api, cublasStatus_t s,
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

inline absl::StatusOr<std::shared_ptr<DeviceBuffer>> Allocate(int64_t bytes) {
  void* p = nullptr;
  if (bytes > 0) {
    RETURN_IF_ERROR(
        CudaStatus(cudaMallocAsync(&p, static_cast<size_t>(bytes), 0),
                   Cat("allocating ", HumanBytes(bytes))));
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

inline int64_t Count(const LiteralShape& s) {
  int64_t n = 1;
  for (int64_t d : s.dims) n *= d;
  return n;
}

inline std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
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
  // origin_only: the origin turned up in a computation that had run fused
  // (no statistics inside); the run stopped and must start again op by op.
  bool restart_needed() const { return stats_.restart_needed(); }

  BackendRun Finish() {
    BackendRun out;
    out.stats = stats_.Take();
    out.first_nonfinite = stats_.first_nonfinite();
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
      out.notes.push_back(Cat(
          "fusions: ", fused_runs_, " run", fused_runs_ == 1 ? "" : "s",
          " as fused kernels (", kernels_compiled_, " compiled with NVRTC in ",
          programs_compiled_, " program", programs_compiled_ == 1 ? "" : "s",
          "), ", op_by_op_runs_, " op by op", list.empty() ? "" : ": ", list));
    }
    out.notes.push_back(Cat("transfers: ", HumanBytes(to_device_bytes_),
                            " to the GPU, ", HumanBytes(to_host_bytes_),
                            " back", ""));
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
                                          const std::vector<GV>& in, int depth);
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
  absl::StatusOr<InstructionStats> ValueStats(Id instruction, const GV& g);
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
  StatsLog stats_;
  std::map<Id, int64_t> runs_;
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

}  // namespace hlo::exec::gpu::internal

#endif  // HLO_LSP_EXEC_GPU_RUNNER_H_
