// hlo_gpu_bench: the measurements scripts/gpu-check prints (GPU only).
//   dot: the backend's dot path vs a bare cublasSgemm (target: <= 10% over)
//   chain: a 4-op elementwise loop fusion, as one NVRTC-compiled kernel and
//          op by op, vs a device-to-device copy of the same bytes (target:
//          the fused kernel at >= 0.70x the copy's bandwidth)
#include <cstdio>
#include <cstdlib>

#include "exec/gpu/bench.h"
#include "exec/platform.h"

int main(int argc, char** argv) {
  const hlo::exec::GpuInfo gpu = hlo::exec::QueryGpu();
  if (!gpu.available()) {
    std::printf("skipped: %s\n", gpu.Describe().c_str());
    return 0;
  }
  std::printf("device: %s\n", gpu.Describe().c_str());
  const int64_t chain_elements =
      argc > 1 ? std::atoll(argv[1]) : (int64_t{1} << 28);
  int failures = 0;
  const int64_t shapes[][3] = {
      {1024, 1024, 1024}, {4096, 4096, 4096}, {8192, 1024, 4096}};
  for (const auto& s : shapes) {
    auto d = hlo::exec::gpu::BenchDot(s[0], s[1], s[2], 20);
    if (!d.ok()) {
      std::printf("dot %lldx%lldx%lld: error: %s\n",
                  static_cast<long long>(s[0]), static_cast<long long>(s[1]),
                  static_cast<long long>(s[2]),
                  std::string(d.status().message()).c_str());
      ++failures;
      continue;
    }
    const double overhead = (d->ours_ms / d->cublas_ms - 1) * 100;
    std::printf(
        "dot m=%lld n=%lld k=%lld: ours %.3f ms, cublasSgemm %.3f ms, "
        "overhead %+.1f%% (target <= 10%%): %s\n",
        static_cast<long long>(d->m), static_cast<long long>(d->n),
        static_cast<long long>(d->k), d->ours_ms, d->cublas_ms, overhead,
        overhead <= 10 ? "met" : "NOT met");
  }
  auto c = hlo::exec::gpu::BenchElementwiseChain(chain_elements, 10);
  if (!c.ok()) {
    std::printf("chain: error: %s\n",
                std::string(c.status().message()).c_str());
    ++failures;
  } else {
    const double ratio = c->chain_gbps / c->copy_gbps;
    std::printf(
        "elementwise chain (%d ops, %lld f32; 2 arrays in, 1 out): d2d "
        "copy of as many bytes %.3f ms = %.0f GB/s\n"
        "  op by op:     %.3f ms = %.0f GB/s = %.2fx the copy's bandwidth\n"
        "  fused kernel: %.3f ms = %.0f GB/s = %.2fx the copy's bandwidth "
        "(target >= 0.70): %s\n  (%s)\n",
        c->ops, static_cast<long long>(c->elements), c->copy_ms, c->copy_gbps,
        c->op_by_op_ms, c->op_by_op_gbps, c->op_by_op_gbps / c->copy_gbps,
        c->chain_ms, c->chain_gbps, ratio, ratio >= 0.70 ? "met" : "NOT met",
        c->fused.c_str());
    if (c->fused.find("no fused kernel") != std::string::npos) ++failures;
  }
  return failures ? 1 : 0;
}
