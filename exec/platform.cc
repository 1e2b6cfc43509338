#include "exec/platform.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "exec/npz.h"
#include "exec/strings.h"

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

// A little wire format for the child -> parent pipe (native endianness:
// both ends are this binary).
struct Out {
  std::string s;
  void U64(uint64_t v) { s.append(reinterpret_cast<const char*>(&v), 8); }
  void F64(double v) { s.append(reinterpret_cast<const char*>(&v), 8); }
  void Str(std::string_view v) {
    U64(v.size());
    s.append(v);
  }
  void Stats(const InstructionStats& x) {
    U64(x.instruction);
    U64(x.runs);
    U64(x.elements);
    U64(x.nan_count);
    U64(x.inf_count);
    F64(x.min);
    F64(x.max);
    F64(x.sum);
  }
};
struct In {
  std::string_view s;
  bool ok = true;
  uint64_t U64() {
    if (s.size() < 8) {
      ok = false;
      return 0;
    }
    uint64_t v;
    std::memcpy(&v, s.data(), 8);
    s.remove_prefix(8);
    return v;
  }
  double F64() {
    uint64_t u = U64();
    double d;
    std::memcpy(&d, &u, 8);
    return d;
  }
  std::string Str() {
    uint64_t n = U64();
    if (!ok || n > s.size()) {
      ok = false;
      return "";
    }
    std::string v(s.substr(0, n));
    s.remove_prefix(n);
    return v;
  }
  InstructionStats Stats() {
    InstructionStats x;
    x.instruction = static_cast<Id>(U64());
    x.runs = static_cast<int64_t>(U64());
    x.elements = static_cast<int64_t>(U64());
    x.nan_count = static_cast<int64_t>(U64());
    x.inf_count = static_cast<int64_t>(U64());
    x.min = F64();
    x.max = F64();
    x.sum = F64();
    return x;
  }
};

std::string EncodeInfo(const GpuInfo& g) {
  Out o;
  o.U64(g.built);
  o.U64(static_cast<uint64_t>(g.device_count));
  o.Str(g.name);
  o.U64(static_cast<uint64_t>(g.compute_major));
  o.U64(static_cast<uint64_t>(g.compute_minor));
  o.U64(static_cast<uint64_t>(g.memory_bytes));
  o.Str(g.error);
  return o.s;
}

bool DecodeInfo(std::string_view bytes, GpuInfo* g) {
  In in{bytes};
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
    std::string bytes = EncodeInfo(QueryGpu());
    const char* p = bytes.data();
    size_t left = bytes.size();
    while (left > 0) {
      ssize_t w = write(fds[1], p, left);
      if (w <= 0) {
        if (errno == EINTR) continue;
        _exit(5);
      }
      p += w;
      left -= static_cast<size_t>(w);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string bytes;
  char buf[4096];
  const auto start = std::chrono::steady_clock::now();
  bool timed_out = false;
  while (true) {
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(60)) {
      timed_out = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    int pr = poll(&pfd, 1, 100);
    if (pr < 0 && errno != EINTR) break;
    if (pr <= 0) continue;
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    bytes.append(buf, static_cast<size_t>(n));
  }
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

InstructionStats StatsOf(Id instruction, const Literal& value) {
  InstructionStats s;
  s.instruction = instruction;
  if (value.is_tuple() || value.type() == PrimitiveType::kToken) return s;
  s.runs = 1;
  s.elements = value.count();
  VisitType(value.type(), [&]<typename T>() {
    const auto* d = value.data<typename T::S>();
    for (int64_t i = 0; i < value.count(); ++i) {
      double v;
      if constexpr (T::kKind == Kind::kComplex) {
        v = std::abs(T::Load(d[i]));
      } else {
        v = static_cast<double>(T::Load(d[i]));
      }
      if (std::isnan(v)) {
        ++s.nan_count;
      } else if (std::isinf(v)) {
        ++s.inf_count;
      } else {
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
        s.sum += v;
      }
    }
  });
  return s;
}

std::optional<std::string> DescribeDifference(const Literal& cpu,
                                              const Literal& device,
                                              double atol, double rtol) {
  if (cpu.is_tuple() || device.is_tuple()) return std::nullopt;
  if (ShapeString(cpu.shape()) != ShapeString(device.shape()))
    return Cat("shape ", ShapeString(device.shape()), ", the CPU has ",
               ShapeString(cpu.shape()));
  int64_t bad = 0, first = -1;
  double worst = 0;
  for (int64_t i = 0; i < cpu.count(); ++i) {
    const double x = cpu.GetDouble(i), y = device.GetDouble(i);
    if (std::isnan(x) && std::isnan(y)) continue;
    if (x == y) continue;
    const double diff = std::fabs(x - y);
    if (std::isnan(diff) || (diff > atol && diff > rtol * std::fabs(x))) {
      if (first < 0) first = i;
      ++bad;
      worst = std::max(worst, std::isnan(diff) ? INFINITY : diff);
    }
  }
  if (!bad) return std::nullopt;
  return Cat(bad, " of ", cpu.count(), " elements differ (first at ", first,
             ": cpu ", Number(cpu.GetDouble(first)), ", gpu ",
             Number(device.GetDouble(first)), "; largest difference ",
             Number(worst), ")");
}

std::string EncodeRunExtras(const BackendRun& run) {
  Out o;
  o.U64(run.notes.size());
  for (const std::string& n : run.notes) o.Str(n);
  std::string npz;
  if (run.reference) {
    auto bytes = EncodeNpz(FlattenResult(run.reference));
    if (bytes.ok()) npz = *std::move(bytes);
  }
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
  return o.s;
}

bool DecodeRunExtras(std::string_view bytes, BackendRun* run) {
  In in{bytes};
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
