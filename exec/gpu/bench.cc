// The GPU measurements of bench.h: the backend's Runner on device operands
// against cuBLAS and a device-to-device copy, timed with CUDA events.
#include "exec/gpu/bench.h"

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "exec/gpu/cublas.h"
#include "exec/gpu/kernels.h"
#include "exec/gpu/runner.h"
#include "exec/platform.h"
#include "exec/strings.h"
#include "hlo/parser.h"

namespace hlo::exec::gpu {

using internal::Count;
using internal::CublasStatus;
using internal::CudaStatus;
using internal::GV;
using internal::Runner;

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
