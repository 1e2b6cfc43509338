#include "server/features/replay_jobs.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "exec/literal.h"
#include "exec/platform.h"
#include "exec/replay.h"
#include "exec/stats.h"
#include "hlo/parser.h"
#include "server/common/file_reader.h"
#include "server/common/proto_files.h"
#include "server/common/snapshot.h"
#include "server/documents.h"

namespace hlo_lsp {

struct ReplayJobs::Job {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  ReplayReport report;
  std::atomic<bool> cancel{false};
  std::thread thread;
  ~Job() {
    cancel = true;
    if (thread.joinable()) thread.join();
  }
};

namespace {

std::string Summary(const std::string& module_name, const std::string& platform,
                    const hlo::exec::ReplayResult& r,
                    const std::string& arg_source,
                    const std::vector<std::string>* mismatches) {
  if (r.outcome != hlo::exec::ReplayOutcome::kOk) {
    return "replay of " + module_name + " failed: " + r.error;
  }
  char buf[256];
  std::snprintf(
      buf, sizeof buf,
      "replayed %s on %s in %.3f s (%lld participant%s), arguments: %s",
      module_name.c_str(), platform.c_str(), r.seconds,
      static_cast<long long>(r.participants), r.participants == 1 ? "" : "s",
      arg_source.c_str());
  std::string summary = buf;
  if (r.first_nonfinite) {
    summary += "; first NaN/Inf at line " +
               std::to_string(r.first_nonfinite->line) + ": %" +
               r.first_nonfinite->name;
  } else {
    summary += "; no NaN or Inf produced";
  }
  const std::string reference =
      platform == "gpu" ? "the CPU run's" : "the snapshot's";
  if (mismatches) {
    summary += mismatches->empty() ? "; matches " + reference + " result"
                                   : "; differs from " + reference + " result";
  }
  if (r.divergence) {
    summary += "; first divergence at line " +
               std::to_string(r.divergence->gpu.line) + ": %" +
               r.divergence->gpu.name + " (" + r.divergence->detail + ")";
  }
  return summary;
}

ReplayStatEntry StatEntry(const hlo::exec::NamedStats& s) {
  ReplayStatEntry entry{s.name,
                        s.opcode,
                        static_cast<int64_t>(s.line),
                        static_cast<int64_t>(s.stats.elements),
                        static_cast<int64_t>(s.stats.nan_count),
                        static_cast<int64_t>(s.stats.inf_count)};
  if (s.stats.elements > s.stats.nan_count + s.stats.inf_count) {
    entry.min = s.stats.min;
    entry.max = s.stats.max;
    entry.mean = s.stats.mean();
  }
  return entry;
}

ReplayReport MakeReport(const std::string& module_name,
                        const std::string& platform,
                        const hlo::exec::ReplayResult& r,
                        const std::string& arg_source,
                        const std::vector<std::string>* mismatches,
                        bool cancelled) {
  ReplayReport report;
  for (const auto& [name, v] : r.outputs) {
    // Each output's own statistics: the results view shows them beside its
    // first values.
    const ReplayStatEntry s =
        StatEntry({hlo::exec::StatsOf(hlo::kNone, *v), name, "", 0});
    report.outputs.push_back({name, hlo::exec::ShapeString(v->shape()),
                              v->ToString(8), s.elements, s.nan, s.inf, s.min,
                              s.max, s.mean});
  }
  for (const auto& s : r.stats) report.stats.push_back(StatEntry(s));
  if (r.first_nonfinite)
    report.first_non_finite = StatEntry(*r.first_nonfinite);
  report.summary = Summary(module_name, platform, r, arg_source, mismatches);
  report.outcome = r.outcome == hlo::exec::ReplayOutcome::kOk        ? "ok"
                   : r.outcome == hlo::exec::ReplayOutcome::kRefused ? "refused"
                   : cancelled ? "cancelled"
                               : "failed";
  report.notes = r.notes;
  report.seconds = r.seconds;
  report.error = r.error;
  if (mismatches) report.mismatches = *mismatches;
  if (r.divergence) {
    report.divergence =
        ReplayDivergence{r.divergence->gpu.name, r.divergence->gpu.opcode,
                         static_cast<int64_t>(r.divergence->gpu.line),
                         r.divergence->run, r.divergence->detail};
  }
  return report;
}

absl::StatusOr<SnapshotContents> LoadSnapshotFile(const std::string& path) {
  auto bytes = FileContents::Read(path);
  if (!bytes.ok()) return bytes.status();
  auto s = LoadSnapshot(bytes->text());
  if (!s.ok())
    return absl::Status(s.status().code(),
                        path + ": " + std::string(s.status().message()));
  return s;
}

}  // namespace

ReplayJobs::~ReplayJobs() { Shutdown(); }

void ReplayJobs::Shutdown() {
  std::map<int64_t, std::shared_ptr<Job>> jobs;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs.swap(jobs_);
  }
  jobs.clear();  // each job's destructor cancels and joins its run
}

Result<ReplayStarted> ReplayJobs::Start(const ReplayArgs& given, bool compare) {
  ReplayArgs args = given;
  args.uri = ProtoViewSource(given.uri);  // a proto's text view: the proto
  std::string path = UriToPath(args.uri);
  if (path.empty()) return InvalidParams("expected {uri} with a file URI");
  std::vector<std::string> platforms =
      compare ? args.platforms : std::vector<std::string>{};
  if (!compare)
    platforms.push_back(args.platform.empty() ? "cpu" : args.platform);
  bool gpu = false;
  for (const std::string& p : platforms) {
    if (p != "cpu" && p != "gpu")
      return InvalidParams("unknown platform: " + p);
    gpu = gpu || p == "gpu";
  }
  std::string no_gpu;
  if (gpu) {
    const hlo::exec::GpuInfo info = hlo::exec::QueryGpuInChild();
    if (!info.available()) {
      if (!compare) return RequestFailed(info.Describe());
      no_gpu = info.Describe();
      gpu = false;  // compare the CPU run with a snapshot's result instead
    }
  }

  // The module: the document's text, or the module inside a proto.
  std::shared_ptr<const std::string> text;
  std::optional<SnapshotContents> snapshot;
  if (IsProtoPath(path)) {
    auto s = LoadSnapshotFile(path);
    if (!s.ok()) return RequestFailed(std::string(s.status().message()));
    if (s->module_text.empty()) return RequestFailed(path + " holds no module");
    text = std::make_shared<const std::string>(s->module_text);
    snapshot = *std::move(s);
  } else {
    text = client_->DocumentText(args.uri);
    if (!text) return RequestFailed("cannot read " + path);
  }
  if (!args.snapshot.empty()) {
    std::string snapshot_path = UriToPath(args.snapshot);
    if (snapshot_path.empty()) snapshot_path = args.snapshot;
    auto s = LoadSnapshotFile(snapshot_path);
    if (!s.ok()) return RequestFailed(std::string(s.status().message()));
    snapshot = *std::move(s);
  }
  if (compare && !gpu && (!snapshot || snapshot->results.empty())) {
    // CPU only: the reference must be a recorded result.
    return RequestFailed(
        "hlo.compare: " + (no_gpu.empty() ? std::string() : no_gpu + ", so ") +
        "it compares the CPU run with a snapshot's recorded result; pass "
        "{snapshot} naming an HloSnapshot with a result (none found for " +
        path + ")");
  }

  auto file = std::shared_ptr<const hlo::ParsedFile>(hlo::Parse(*text));
  if (file->HasErrors() || file->modules.empty()) {
    return RequestFailed(
        file->modules.empty()
            ? "no HloModule in " + path
            : "the module has syntax errors; fix them to replay");
  }
  auto job = std::make_shared<Job>();
  int64_t id;
  std::vector<std::shared_ptr<Job>> dropped;  // destroyed outside the lock
  {
    std::lock_guard<std::mutex> lock(mutex_);
    id = next_job_++;
    jobs_[id] = job;
    // Keep the latest results only: a result holds per-instruction stats.
    constexpr size_t kKeptJobs = 16;
    for (auto it = jobs_.begin();
         jobs_.size() > kKeptJobs && it != jobs_.end();) {
      std::lock_guard<std::mutex> job_lock(it->second->mutex);
      if (it->second->done) {
        dropped.push_back(it->second);
        it = jobs_.erase(it);
      } else {
        ++it;
      }
    }
  }
  std::string module_name =
      file->modules[0].name.empty()
          ? "module"
          : std::string(file->Text(file->modules[0].name));
  const bool fake = args.fake_data;
  const double timeout = args.timeout;
  const std::string uri = args.uri;
  Job* raw = job.get();
  job->thread = std::thread([raw, file, text, snapshot, fake, compare, gpu,
                             module_name, timeout, uri] {
    hlo::exec::ReplayOptions options;
    options.timeout_seconds = timeout;
    options.collect_stats = true;
    if (gpu) options.platform = hlo::exec::Platform::kGpu;
    options.compare_with_cpu = gpu && compare;
    options.cancel = &raw->cancel;
    std::string arg_source = "fake data";
    hlo::exec::ReplayResult r;
    bool have_arguments = true;
    if (snapshot && snapshot->has_arguments && !fake) {
      auto arguments = SnapshotArguments(*snapshot, *file, 0);
      if (arguments.ok()) {
        options.arguments = *std::move(arguments);
        options.arguments_given = true;
        arg_source = "snapshot";
      } else {
        have_arguments = false;
        r.outcome = hlo::exec::ReplayOutcome::kRefused;
        r.error =
            "snapshot arguments: " + std::string(arguments.status().message());
      }
    }
    if (have_arguments) r = hlo::exec::Replay(*file, 0, options);
    std::vector<std::string> mismatches;
    const bool compared = compare && r.outcome == hlo::exec::ReplayOutcome::kOk;
    if (compared) {
      mismatches =
          gpu ? hlo::exec::CompareOutputs(r.reference_outputs, r.outputs)
              : hlo::exec::CompareOutputs(snapshot->results, r.outputs);
    }
    ReplayReport report =
        MakeReport(module_name, gpu ? "gpu" : "cpu", r, arg_source,
                   compared ? &mismatches : nullptr, raw->cancel.load());
    report.uri = uri;
    std::lock_guard<std::mutex> lock(raw->mutex);
    raw->report = std::move(report);
    raw->done = true;
    raw->done_cv.notify_all();
  });
  return ReplayStarted{id, module_name};
}

Result<ReplayReport> ReplayJobs::Report(const ReplayResultParams& params,
                                        const std::atomic<bool>* cancelled) {
  std::shared_ptr<Job> job;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = jobs_.find(params.id);
    if (it != jobs_.end()) job = it->second;
  }
  if (!job)
    return InvalidParams("no replay with id " + std::to_string(params.id));
  std::unique_lock<std::mutex> lock(job->mutex);
  while (!job->done) {
    job->done_cv.wait_for(lock, std::chrono::milliseconds(100));
    // The editor cancelled its wait ($/cancelRequest): stop the run too,
    // which kills its child process.
    if (cancelled && cancelled->load()) {
      job->cancel = true;
      return Cancelled();
    }
  }
  return job->report;
}

}  // namespace hlo_lsp
