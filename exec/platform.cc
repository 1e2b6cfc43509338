#include "exec/platform.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <mutex>

#include "exec/npz.h"
#include "exec/strings.h"
#include "exec/wire.h"

namespace hlo::exec {
namespace {

class CpuBackend : public Backend {
 public:
  const char* name() const override { return "cpu"; }
  absl::StatusOr<BackendRun> Run(const ParsedFile& file, Id module,
                                 const std::vector<Value>& args,
                                 const BackendOptions& options) override {
    if (options.compare_with_cpu)
      return absl::InvalidArgumentError("the CPU backend compares with itself");
    auto r = Evaluate(file, module, {args}, options.eval);
    if (!r.ok()) return r.status();
    BackendRun run;
    run.result = r->results[0];
    run.stats = std::move(r->stats);
    run.first_nonfinite = r->first_nonfinite;
    return run;
  }
};

std::string Number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string EncodeInfo(const GpuInfo& g) {
  WireWriter o;
  o.U64(g.built);
  o.U64(static_cast<uint64_t>(g.device_count));
  o.Str(g.name);
  o.U64(static_cast<uint64_t>(g.compute_major));
  o.U64(static_cast<uint64_t>(g.compute_minor));
  o.U64(static_cast<uint64_t>(g.memory_bytes));
  o.Str(g.error);
  return o.out;
}

bool DecodeInfo(std::string_view bytes, GpuInfo* g) {
  WireReader in{bytes};
  g->built = in.U64() != 0;
  g->device_count = static_cast<int>(in.U64());
  g->name = in.Str();
  g->compute_major = static_cast<int>(in.U64());
  g->compute_minor = static_cast<int>(in.U64());
  g->memory_bytes = static_cast<int64_t>(in.U64());
  g->error = in.Str();
  return in.ok;
}

GpuInfo QueryInChildUncached() {
  if (!GpuBackendBuilt()) return QueryGpu();  // the stub: no CUDA to start
  GpuInfo info;
  info.built = true;
  int fds[2];
  if (pipe(fds) != 0) {
    info.error = Cat("pipe failed: ", std::strerror(errno));
    return info;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    info.error = Cat("fork failed: ", std::strerror(errno));
    return info;
  }
  if (pid == 0) {
    close(fds[0]);
    _exit(WriteAll(fds[1], EncodeInfo(QueryGpu())) ? 0 : 5);
  }
  close(fds[1]);
  std::string bytes;
  const bool timed_out =
      ReadUntilEnd(fds[0], 60, nullptr, &bytes) == PipeRead::kTimedOut;
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    info.error = "the GPU query timed out";
    return info;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      !DecodeInfo(bytes, &info)) {
    info.device_count = 0;
    info.error = WIFSIGNALED(status) ? Cat("the GPU query crashed (signal ",
                                           WTERMSIG(status), ")")
                                     : std::string("the GPU query failed");
  }
  return info;
}

}  // namespace

std::unique_ptr<Backend> MakeCpuBackend() {
  return std::make_unique<CpuBackend>();
}

#ifndef HLO_LSP_WITH_CUDA
// This build has no CUDA backend (exec/gpu/ defines these when it does).
std::unique_ptr<Backend> MakeGpuBackend() { return nullptr; }
bool GpuBackendBuilt() { return false; }
GpuInfo QueryGpu() {
  GpuInfo info;
  info.error =
      "this build has no GPU backend (CUDA was not found or "
      "HLO_LSP_WITH_CUDA=OFF)";
  return info;
}
#endif

GpuInfo QueryGpuInChild() {
  static std::once_flag once;
  static GpuInfo* cached = nullptr;
  std::call_once(once, [] { cached = new GpuInfo(QueryInChildUncached()); });
  return *cached;
}

std::string GpuInfo::Describe() const {
  if (!available())
    return "no GPU: " + (error.empty() ? "no CUDA device" : error);
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s (sm_%d%d, %.1f GiB)", name.c_str(),
                compute_major, compute_minor,
                static_cast<double>(memory_bytes) / (int64_t{1} << 30));
  return buf;
}

std::optional<std::string> DescribeDifference(const Literal& cpu,
                                              const Literal& device,
                                              double atol, double rtol) {
  if (cpu.is_tuple() || device.is_tuple()) return std::nullopt;
  if (ShapeString(cpu.shape()) != ShapeString(device.shape()))
    return Cat("shape ", ShapeString(device.shape()), ", the CPU has ",
               ShapeString(cpu.shape()));
  const Differences d = CountDifferences(cpu, device, atol, rtol);
  if (!d.count) return std::nullopt;
  return Cat(d.count, " of ", cpu.count(), " elements differ (first at ",
             d.first, ": cpu ", Number(cpu.GetDouble(d.first)), ", gpu ",
             Number(device.GetDouble(d.first)), "; largest difference ",
             Number(d.worst), ")");
}

std::string EncodeRunExtras(const BackendRun& run) {
  WireWriter o;
  o.U64(run.notes.size());
  for (const std::string& n : run.notes) o.Str(n);
  const std::string npz = run.reference ? NpzBytesOf(run.reference) : "";
  o.U64(run.reference && !npz.empty());
  o.Str(npz);
  o.U64(run.divergence.has_value());
  if (run.divergence) {
    o.U64(run.divergence->instruction);
    o.U64(static_cast<uint64_t>(run.divergence->run));
    o.Str(run.divergence->detail);
    o.Stats(run.divergence->cpu);
    o.Stats(run.divergence->device);
  }
  return o.out;
}

bool DecodeRunExtras(std::string_view bytes, BackendRun* run) {
  WireReader in{bytes};
  const uint64_t notes = in.U64();
  if (!in.ok || notes > (1u << 20)) return false;
  for (uint64_t k = 0; k < notes && in.ok; ++k) run->notes.push_back(in.Str());
  const bool has_reference = in.U64() != 0;
  std::string npz = in.Str();
  if (!in.ok) return false;
  if (has_reference) {
    auto arrays = DecodeNpz(npz);
    if (!arrays.ok()) return false;
    std::vector<Value> elements;
    for (auto& [name, v] : *arrays) elements.push_back(v);
    // A tuple of the flattened arrays: it flattens to the same out0, ...
    run->reference = std::make_shared<const Literal>(
        Literal::MakeTuple(std::move(elements)));
  }
  if (in.U64()) {
    Divergence d;
    d.instruction = static_cast<Id>(in.U64());
    d.run = static_cast<int64_t>(in.U64());
    d.detail = in.Str();
    d.cpu = in.Stats();
    d.device = in.Stats();
    run->divergence = std::move(d);
  }
  return in.ok;
}

}  // namespace hlo::exec
