#include "history/timeline.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <new>
#include <set>
#include <thread>
#include <utility>

#include "base/run_parallel.h"
#include "base/whole_file.h"
#include "hlo/parser.h"
#include "xxhash.h"

namespace hlo::history {
namespace {

// A dump as read: its bytes and, unless identical to the one before, its
// parse. Shared because an identical successor reuses its predecessor's.
struct Loaded {
  std::shared_ptr<base::WholeFile> bytes;
  std::shared_ptr<ParsedFile> parsed;
  uint64_t hash = 0;
  std::string error;
};

// fn(0) .. fn(n - 1) on up to `threads` threads. A worker that runs out of
// memory fails the whole call as an allocation on this thread would:
// std::bad_alloc, here, where the caller's own handling sees it.
void ParallelFor(size_t n, int threads, const auto& fn) {
  if (n == 0) return;
  const size_t workers = std::min<size_t>(n, std::max(1, threads));
  if (workers == 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  if (!base::RunInParallel(static_cast<int>(workers), [&](int) {
        for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
      })) {
    throw std::bad_alloc();
  }
}

std::string FirstError(const std::string& path, const ParsedFile& parsed) {
  for (const Diagnostic& d : parsed.diagnostics) {
    if (d.severity != Severity::kError) continue;
    LineColumn at = parsed.lines().ToLineColumn(d.span.begin);
    return path + ":" + std::to_string(at.line + 1) + ":" +
           std::to_string(at.column + 1) + ": " + d.message;
  }
  return "";
}

void Read(const index::DumpFile& file, Loaded* out) {
  absl::StatusOr<base::WholeFile> read = base::WholeFile::Read(file.path);
  if (!read.ok()) {
    out->error = std::string(read.status().message());
    return;
  }
  out->bytes = std::make_shared<base::WholeFile>(std::move(*read));
  std::string_view text = out->bytes->bytes();
  out->hash = XXH3_64bits(text.data(), text.size());
}

void Parse(const index::DumpFile& file, Loaded* out) {
  ParseOptions options;
  options.max_diagnostics = 16;
  options.validate_attributes = false;  // the diff compares text
  out->parsed = Parse(out->bytes->bytes(), options);
  out->error = FirstError(file.path, *out->parsed);
}

}  // namespace

std::string TimelineStep::pass_name() const {
  if (file.dump.kind == index::DumpKind::kPassDump) return file.dump.after_pass;
  if (file.dump.kind == index::DumpKind::kPassStep) {
    return file.dump.pipeline + "." + file.dump.before_pass;
  }
  return file.label;
}

int64_t ChangedInstructions(const ModuleDiff& diff) {
  std::set<std::pair<std::string_view, std::string_view>> seen;
  for (const DiffChange& c : diff.changed) seen.emplace(c.computation, c.name);
  return static_cast<int64_t>(seen.size());
}

std::vector<TimelineStep> BuildTimeline(
    const std::vector<index::DumpFile>& dumps, const TimelineOptions& options) {
  const int threads = options.threads > 0
                          ? options.threads
                          : std::max(1u, std::thread::hardware_concurrency());
  const size_t window = std::max<size_t>(2, 2 * static_cast<size_t>(threads));
  // Sizes bound a window too: 100 MB dumps go two at a time (a parse holds
  // a few times its text), small ones `window` at a time.
  std::vector<uint64_t> sizes(dumps.size(), 0);
  for (size_t i = 0; i < dumps.size(); ++i) {
    std::error_code error;
    uintmax_t size = std::filesystem::file_size(dumps[i].path, error);
    if (!error) sizes[i] = size;
  }
  std::vector<TimelineStep> steps(dumps.size());
  DiffOptions diff_options;
  diff_options.metadata = options.metadata;
  std::shared_ptr<Loaded> base;  // the last dump read: the next one's base
  for (size_t begin = 0, end = 0; begin < dumps.size(); begin = end) {
    uint64_t bytes = 0;
    for (end = begin; end < dumps.size() && end - begin < window; ++end) {
      if (end - begin >= 2 && bytes + sizes[end] > options.window_bytes) break;
      bytes += sizes[end];
    }
    std::vector<std::shared_ptr<Loaded>> loaded(end - begin);
    ParallelFor(loaded.size(), threads, [&](size_t i) {
      loaded[i] = std::make_shared<Loaded>();
      Read(dumps[begin + i], loaded[i].get());
    });
    std::vector<std::shared_ptr<Loaded>> bases(loaded.size());
    for (size_t i = 0; i < loaded.size(); ++i) {
      bases[i] = base;
      if (loaded[i]->bytes) base = loaded[i];
    }
    std::vector<char> identical(loaded.size(), 0);
    ParallelFor(loaded.size(), threads, [&](size_t i) {
      Loaded& self = *loaded[i];
      if (!self.bytes) return;
      const Loaded* before = bases[i].get();
      if (before != nullptr && before->hash == self.hash &&
          before->bytes->bytes() == self.bytes->bytes()) {
        identical[i] = 1;
        return;
      }
      Parse(dumps[begin + i], &self);
    });
    // An identical dump takes over its base's bytes and parse (in order, so
    // a run of identical dumps all share the first one's).
    for (size_t i = 0; i < loaded.size(); ++i) {
      if (!identical[i]) continue;
      loaded[i]->bytes = bases[i]->bytes;
      loaded[i]->parsed = bases[i]->parsed;
      loaded[i]->error = bases[i]->error;
    }
    ParallelFor(loaded.size(), threads, [&](size_t i) {
      TimelineStep& step = steps[begin + i];
      step.file = dumps[begin + i];
      const Loaded& self = *loaded[i];
      step.error = self.error;
      const Loaded* before = bases[i].get();
      if (!self.bytes || before == nullptr) return;
      step.has_base = true;
      if (identical[i]) {
        step.same_as_before = true;
        return;
      }
      ModuleDiff diff =
          DiffModules(*before->parsed, *self.parsed, diff_options);
      step.added = static_cast<int64_t>(diff.added.size());
      step.removed = static_cast<int64_t>(diff.removed.size());
      step.renamed = static_cast<int64_t>(diff.renamed.size());
      step.changed = ChangedInstructions(diff);
      step.computations_added =
          static_cast<int64_t>(diff.computations_added.size());
      step.computations_removed =
          static_cast<int64_t>(diff.computations_removed.size());
      if (options.keep_diffs) step.diff = std::move(diff);
    });
  }
  return steps;
}

}  // namespace hlo::history
