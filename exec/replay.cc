#include "exec/replay.h"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "exec/fake_data.h"
#include "exec/platform.h"
#include "exec/stats.h"
#include "exec/strings.h"
#include "exec/wire.h"
#include "hlo/attributes.h"

#if defined(__SANITIZE_ADDRESS__)
#define HLO_LSP_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HLO_LSP_UNDER_ASAN 1
#endif
#endif
#ifndef HLO_LSP_UNDER_ASAN
#define HLO_LSP_UNDER_ASAN 0
#endif
namespace hlo::exec {
namespace {

constexpr bool kUnderAddressSanitizer = HLO_LSP_UNDER_ASAN;

using Clock = std::chrono::steady_clock;

struct RunOutput {
  absl::Status status = absl::OkStatus();
  Value result;  // participant 0
  std::vector<InstructionStats> stats;
  Id first_nonfinite = kNone;
  std::string extras;  // a device backend's EncodeRunExtras
};

RunOutput RunHere(const ParsedFile& file, Id module,
                  const std::vector<Value>& args, const ReplayOptions& options,
                  int64_t limit) {
  RunOutput out;
  SetMemoryLimit(limit);
  EvalOptions eo;
  eo.collect_stats = options.collect_stats;
  eo.origin_only = options.origin_only;
  if (options.platform == Platform::kGpu) {
    std::unique_ptr<Backend> gpu = MakeGpuBackend();
    if (!gpu) {
      out.status =
          absl::FailedPreconditionError("no GPU backend in this build");
      return out;
    }
    BackendOptions bo;
    bo.eval = eo;
    bo.compare_with_cpu = options.compare_with_cpu;
    bo.atol = options.atol;
    bo.rtol = options.rtol;
    auto run = gpu->Run(file, module, args, bo);
    if (!run.ok()) {
      out.status = run.status();
      return out;
    }
    out.result = std::move(run->result);
    out.stats = std::move(run->stats);
    out.first_nonfinite = run->first_nonfinite;
    out.extras = EncodeRunExtras(*run);
    return out;
  }
  auto r = Evaluate(file, module, {args}, eo);
  if (!r.ok()) {
    out.status = r.status();
    return out;
  }
  out.result = r->results[0];
  out.stats = std::move(r->stats);
  out.first_nonfinite = r->first_nonfinite;
  return out;
}

// The child's result as bytes, in the wire format of wire.h.
std::string Serialize(const RunOutput& run) {
  WireWriter w;
  w.U64(static_cast<uint64_t>(run.status.code()));
  w.Str(std::string(run.status.message()));
  w.Str(run.status.ok() ? NpzBytesOf(run.result) : "");
  w.U64(run.stats.size());
  for (const InstructionStats& s : run.stats) w.Stats(s);
  w.U64(run.first_nonfinite);
  w.Str(run.extras);
  return w.out;
}

bool Deserialize(std::string_view bytes, RunOutput* run, NamedArrays* outputs) {
  WireReader r{bytes};
  auto code = static_cast<absl::StatusCode>(r.U64());
  std::string message = r.Str();
  run->status = absl::Status(code, message);
  std::string npz = r.Str();
  uint64_t n = r.U64();
  if (!r.ok || n > (1u << 26)) return false;
  for (uint64_t i = 0; i < n && r.ok; ++i) run->stats.push_back(r.Stats());
  run->first_nonfinite = static_cast<Id>(r.U64());
  run->extras = r.Str();
  if (!r.ok) return false;
  if (run->status.ok()) {
    auto arrays = DecodeNpz(npz);
    if (!arrays.ok()) return false;
    *outputs = *std::move(arrays);
  }
  return true;
}

std::string SignalText(int sig) {
  const char* name = strsignal(sig);
  std::string s = Cat("signal ", sig, " (", name ? name : "?", ")");
  if (sig == SIGKILL) s += ", likely out of memory";
  if (sig == SIGXCPU) s += ", the CPU time limit";
  if (sig == SIGABRT) s += ", possibly out of memory";
  return s;
}

// clang-14's AddressSanitizer does not lock its allocator around fork(): a
// child forked while another thread held an allocator lock blocks at its
// first allocation that needs it, for good. Under it, the child allocates
// in every size class first and then sends one byte; a parent that gets
// none within kChildStartSeconds kills that child and forks another.
constexpr double kChildStartSeconds = 10;
constexpr int kChildStarts = 3;
constexpr char kChildStarted = 'S';

void WarmUpAllocator() {
  std::vector<void*> blocks;
  blocks.reserve(257);
  // One size per size class region (up to 128 KiB), each allocated more
  // often than a thread's cache holds of it (about 2 x 64 KiB worth), so
  // that the shared region, and its lock, are reached; then one block
  // from the large-allocation path. A few MiB in all.
  for (size_t size = 16; size <= (size_t{1} << 17); size += size / 2) {
    const size_t count = std::min<size_t>(257, 2 * (65536 / size) + 3);
    for (size_t i = 0; i < count; ++i) blocks.push_back(std::malloc(size));
    for (void* block : blocks) std::free(block);
    blocks.clear();
  }
  std::free(std::malloc(size_t{1} << 20));
}

// Whether the child sent kChildStarted (true) or ended (also true: its
// end is read later) within kChildStartSeconds. A cancel also answers
// true at once: the read that follows sees it and ends the child.
bool ChildStarted(int fd, const std::atomic<bool>* cancel) {
  const auto start = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - start).count() <
         kChildStartSeconds) {
    if (cancel != nullptr && cancel->load()) return true;
    pollfd pfd{fd, POLLIN, 0};
    const int ready = poll(&pfd, 1, 100);
    if (ready < 0 && errno != EINTR) return true;
    if (ready <= 0) continue;
    char byte = 0;
    const ssize_t n = read(fd, &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    return true;
  }
  return false;
}

// Runs in a forked child; `*failed` is set when the child died or timed out.
bool RunInChild(const ParsedFile& file, Id module,
                const std::vector<Value>& args, const ReplayOptions& options,
                int64_t limit, RunOutput* run, NamedArrays* outputs,
                std::string* failure) {
  int fds[2];
  pid_t pid = -1;
  // Under AddressSanitizer the last child's start byte may still be ahead
  // in the pipe when its start was not waited for.
  bool start_byte_ahead = false;
  for (int start = 1;; ++start) {
    if (pipe(fds) != 0) {
      *failure = Cat("pipe failed: ", std::strerror(errno));
      return false;
    }
    pid = fork();
    if (pid == 0) {
      if (kUnderAddressSanitizer) {
        WarmUpAllocator();
        if (!WriteAll(fds[1], std::string_view(&kChildStarted, 1))) _exit(5);
      }
      break;
    }
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      *failure = Cat("fork failed: ", std::strerror(errno));
      return false;
    }
    close(fds[1]);
    if (!kUnderAddressSanitizer) break;
    if (start == kChildStarts) {
      start_byte_ahead = true;
      break;
    }
    if (ChildStarted(fds[0], options.cancel)) break;
    kill(pid, SIGKILL);
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    close(fds[0]);
  }
  if (pid == 0) {
    close(fds[0]);
    // Address space: the evaluator's own limit plus room for code, stacks
    // and allocator slack; CPU time a little past the wall-clock limit.
    rlimit as{};
    const int64_t slack =
        (int64_t{2} << 30) +
        ModuleDevices(file, module).total() * (int64_t{16} << 20);
    as.rlim_cur = as.rlim_max = static_cast<rlim_t>(
        limit > INT64_MAX - slack ? RLIM_INFINITY : limit + slack);
    // AddressSanitizer maps terabytes of shadow memory up front, so an
    // address-space limit kills a sanitized child at its first allocation;
    // there the up-front memory estimate is the only guard.
    // CUDA reserves far more address space than it uses: no limit there.
    if (!kUnderAddressSanitizer && options.platform != Platform::kGpu)
      setrlimit(RLIMIT_AS, &as);
    if (options.timeout_seconds > 0) {
      rlimit cpu{};
      // Threads add up CPU time: allow every participant thread its share.
      cpu.rlim_cur = cpu.rlim_max =
          static_cast<rlim_t>(std::ceil(options.timeout_seconds * 4)) + 2;
      setrlimit(RLIMIT_CPU, &cpu);
    }
    if (options.crash_signal_for_testing)
      raise(options.crash_signal_for_testing);
    RunOutput r = RunHere(file, module, args, options, limit);
    if (!WriteAll(fds[1], Serialize(r))) _exit(5);
    close(fds[1]);
    _exit(0);
  }
  std::string bytes;
  const PipeRead read =
      ReadUntilEnd(fds[0], options.timeout_seconds, options.cancel, &bytes);
  if (start_byte_ahead && !bytes.empty() && bytes[0] == kChildStarted) {
    bytes.erase(0, 1);
  }
  const bool timed_out = read == PipeRead::kTimedOut;
  const bool cancelled = read == PipeRead::kCancelled;
  close(fds[0]);
  if (timed_out || cancelled) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    *failure = Cat("timed out after ", options.timeout_seconds, " s");
    return false;
  }
  if (cancelled) {
    *failure = "cancelled";
    return false;
  }
  if (WIFSIGNALED(status)) {
    *failure =
        Cat("the replay process crashed: ", SignalText(WTERMSIG(status)));
    return false;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *failure =
        Cat("the replay process exited with status ", WEXITSTATUS(status));
    return false;
  }
  if (!Deserialize(bytes, run, outputs)) {
    *failure = "the replay process sent a malformed result";
    return false;
  }
  return true;
}

bool HasElidedConstant(const ParsedFile& file, const Instruction& in) {
  return in.opcode == Opcode::kConstant &&
         file.Text(in.operand_list).find("...") != std::string_view::npos;
}

}  // namespace

int64_t DefaultMemoryLimit() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || size <= 0) return int64_t{8} << 30;
  return static_cast<int64_t>(static_cast<double>(pages) * size * 0.8);
}

ReplayResult Replay(const ParsedFile& file, Id module,
                    const ReplayOptions& options) {
  const auto start = Clock::now();
  ReplayResult result;
  auto refuse = [&](std::string message) {
    result.outcome = ReplayOutcome::kRefused;
    result.error = std::move(message);
    return result;
  };
  if (options.platform == Platform::kGpu) {
    // Asked in a child: this process must not initialize CUDA before it
    // forks the replay's child.
    const GpuInfo gpu = QueryGpuInChild();
    if (!gpu.available()) return refuse(gpu.Describe());
  }
  if (module >= file.modules.size()) return refuse("no such module");
  const int64_t limit =
      options.memory_limit > 0 ? options.memory_limit : DefaultMemoryLimit();
  if (absl::Status s = CheckSupported(file, module); !s.ok()) {
    std::string message(s.message());
    auto estimate = EstimatePeakMemory(file, module);
    const int64_t n = ModuleDevices(file, module).total();
    if (!estimate || *estimate > limit)
      message +=
          Cat("; it would also need about ",
              estimate ? HumanBytes(*estimate)
                       : std::string("more than 2^62 bytes"),
              n > 1 && estimate ? Cat(" (", HumanBytes(*estimate / n),
                                      " for each of ", n, " participants)")
                                : std::string(),
              ", over the memory limit of ", HumanBytes(limit));
    return refuse(std::move(message));
  }
  result.memory_limit = limit;
  DeviceCount devices = ModuleDevices(file, module);
  result.participants = devices.total();
  auto estimate = EstimatePeakMemory(file, module);
  if (!estimate)
    return refuse("the module's buffers overflow a 64-bit byte count");
  result.estimated_bytes = *estimate;
  if (*estimate > limit)
    return refuse(
        Cat("needs about ", HumanBytes(*estimate), " (", *estimate, " bytes",
            devices.total() > 1
                ? Cat("; ", HumanBytes(*estimate / devices.total()),
                      " for each of ", devices.total(), " participants")
                : "",
            "), over the memory limit of ", HumanBytes(limit), " (", limit,
            " bytes)"));
  // Arguments.
  auto shapes = EntryParameterShapes(file, module);
  if (!shapes.ok()) return refuse(std::string(shapes.status().message()));
  std::vector<Value> args;
  SetMemoryLimit(limit);
  if (options.arguments_given || !options.arguments.empty()) {
    if (options.arguments.size() != shapes->size())
      return refuse(Cat("the module takes ", shapes->size(), " arguments, ",
                        options.arguments.size(), " given",
                        options.arguments.size() < shapes->size()
                            ? Cat(" (no arg", options.arguments.size(), ")")
                            : std::string()));
    for (size_t k = 0; k < shapes->size(); ++k) {
      const std::string want = ShapeString((*shapes)[k]);
      const std::string got = ShapeString(options.arguments[k]->shape());
      if (want != got)
        return refuse(
            Cat("argument ", k, " is ", got, ", the module wants ", want));
    }
    args = options.arguments;
  } else {
    auto fake = MakeFakeArguments(file, module, options.seed, &result.notes);
    if (!fake.ok()) return refuse(std::string(fake.status().message()));
    args = *std::move(fake);
  }
  for (size_t k = 0; k < args.size(); ++k)
    result.arguments.push_back({Cat("arg", k), args[k]});
  int64_t elided = 0;
  for (const Instruction& in : file.instructions)
    if (HasElidedConstant(file, in)) ++elided;
  if (elided)
    result.notes.push_back(Cat(elided, " elided constant",
                               elided > 1 ? "s" : "",
                               " ({...}) filled with fake data"));
  for (const Instruction& in : file.instructions) {
    if (in.opcode == Opcode::kRngBitGenerator || in.opcode == Opcode::kRng) {
      result.notes.push_back(
          "rng ops draw from this evaluator's generator, not XLA's "
          "Philox/ThreeFry bits");
      break;
    }
  }
  // Run.
  RunOutput run;
  std::string failure;
  if (options.use_child_process) {
    if (!RunInChild(file, module, args, options, limit, &run, &result.outputs,
                    &failure)) {
      result.outcome = ReplayOutcome::kFailed;
      result.error = failure;
      result.seconds =
          std::chrono::duration<double>(Clock::now() - start).count();
      return result;
    }
  } else {
    run = RunHere(file, module, args, options, limit);
    if (run.status.ok()) result.outputs = FlattenResult(run.result);
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!run.status.ok()) {
    const absl::StatusCode c = run.status.code();
    result.outcome = c == absl::StatusCode::kInvalidArgument ||
                             c == absl::StatusCode::kUnimplemented
                         ? ReplayOutcome::kRefused
                         : ReplayOutcome::kFailed;
    result.error = std::string(run.status.message());
    if (c == absl::StatusCode::kResourceExhausted)
      result.error = "memory limit hit: " + result.error;
    return result;
  }
  auto describe = [&](const InstructionStats& s) {
    NamedStats n;
    n.stats = s;
    if (s.instruction < file.instructions.size()) {
      const Instruction& in = file.instructions[s.instruction];
      n.name = std::string(file.Name(in));
      n.opcode = std::string(file.Text(in.opcode_span));
      n.line = file.lines().LineOf(in.span.begin) + 1;
    }
    return n;
  };
  for (const InstructionStats& s : run.stats)
    result.stats.push_back(describe(s));
  if (!run.extras.empty()) {
    BackendRun extra;
    if (!DecodeRunExtras(run.extras, &extra)) {
      result.notes.push_back("the device run's notes did not decode");
    } else {
      for (std::string& n : extra.notes) result.notes.push_back(std::move(n));
      if (extra.reference)
        result.reference_outputs = FlattenResult(extra.reference);
      if (extra.divergence) {
        DivergenceReport d;
        d.cpu = describe(extra.divergence->cpu);
        d.gpu = describe(extra.divergence->device);
        d.run = extra.divergence->run;
        d.detail = extra.divergence->detail;
        result.divergence = std::move(d);
      }
    }
  }
  if (run.first_nonfinite != kNone) {
    InstructionStats s;
    for (const InstructionStats& x : run.stats)
      if (x.instruction == run.first_nonfinite) s = x;
    s.instruction = run.first_nonfinite;
    result.first_nonfinite = describe(s);
  }
  return result;
}

std::vector<std::string> CompareOutputs(const NamedArrays& expected,
                                        const NamedArrays& actual, double atol,
                                        double rtol) {
  std::vector<std::string> out;
  if (expected.size() != actual.size())
    out.push_back(
        Cat("expected ", expected.size(), " outputs, got ", actual.size()));
  for (size_t k = 0; k < std::min(expected.size(), actual.size()); ++k) {
    const Literal& e = *expected[k].second;
    const Literal& a = *actual[k].second;
    if (ShapeString(e.shape()) != ShapeString(a.shape())) {
      out.push_back(Cat(actual[k].first, ": shape ", ShapeString(a.shape()),
                        ", expected ", ShapeString(e.shape())));
      continue;
    }
    const Differences d = CountDifferences(e, a, atol, rtol);
    if (d.count)
      out.push_back(Cat(actual[k].first, ": ", d.count, " of ", e.count(),
                        " elements differ (first at ", d.first, ": expected ",
                        e.GetDouble(d.first), ", got ", a.GetDouble(d.first),
                        "; largest difference ", d.worst, ")"));
  }
  return out;
}

}  // namespace hlo::exec
