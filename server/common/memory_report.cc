#include "server/common/memory_report.h"

#include <algorithm>
#include <memory>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "base/whole_file.h"
#include "hlo/parser.h"
#include "index/module_files.h"
#include "server/common/file_reader.h"

namespace hlo_lsp {
namespace {

using hlo::index::DumpFile;
using hlo::index::DumpFileKind;

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == path.npos ? path : path.substr(slash + 1);
}

std::string Folder(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// A module dump starts with its "HloModule" line: such a file is known by
// its head, without reading the module (which may be 100 MB).
bool IsModuleText(const std::string& path) {
  absl::StatusOr<hlo::base::WholeFile> head =
      hlo::base::WholeFile::ReadHead(path, 4096);
  if (!head.ok()) return false;
  std::string_view text = head->bytes();
  const size_t start = text.find_first_not_of(" \t\r\n");
  return start != text.npos && text.substr(start).starts_with("HloModule ");
}

// The memory dump of the module at `path`, found beside it.
absl::StatusOr<MemoryReport> LoadMemoryOfModule(const std::string& path) {
  std::string memory_file = MemoryFileOfModule(path);
  if (memory_file.empty()) {
    return absl::NotFoundError(
        path +
        ": no buffer assignment beside the module (XLA writes "
        "*-buffer-assignment.txt with --xla_dump_hlo_as_text)");
  }
  return LoadMemoryReport(memory_file, "");
}

// The optimized stage of each module in the log's folder: a module whose
// name the log mentions comes first.
std::vector<std::string> CandidateModules(const std::string& log_path,
                                          std::string_view log_text) {
  std::vector<std::pair<bool, std::string>> found;
  for (const hlo::index::ModuleDumpFiles& m :
       hlo::index::ModulesInFolder(Folder(log_path))) {
    const DumpFile* optimized = nullptr;
    for (const DumpFile& f : m.files) {
      if (f.kind == DumpFileKind::kStage &&
          f.label.find("after_optimizations") != std::string::npos) {
        optimized = &f;
      }
    }
    if (optimized == nullptr) continue;
    const bool named = !m.module_name.empty() &&
                       log_text.find(m.module_name) != std::string_view::npos;
    found.emplace_back(!named, optimized->path);
  }
  std::stable_sort(
      found.begin(), found.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> paths;
  for (auto& [unnamed, path] : found) paths.push_back(std::move(path));
  return paths;
}

// Matches every buffer against the module at `path`; returns how many
// buffers found an instruction (-1 when the module cannot be read).
int MatchModule(const std::string& path, MemoryReport& report) {
  absl::StatusOr<FileContents> contents = FileContents::Read(path);
  if (!contents.ok()) return -1;
  std::unique_ptr<hlo::ParsedFile> file = hlo::Parse(contents->text());
  std::vector<std::vector<OomMatch>> matches;
  int matched = 0;
  for (const hlo::OomBuffer& b : report.oom.buffers) {
    std::vector<OomMatch> list;
    for (hlo::Id id : hlo::MatchOomBuffer(*file, b)) {
      const hlo::Instruction& inst = file->instructions[id];
      OomMatch m;
      m.name = std::string(file->Name(inst));
      if (inst.computation != hlo::kNone) {
        m.computation =
            std::string(file->Name(file->computations[inst.computation]));
      }
      m.line = file->lines().LineOf(inst.name.begin) + 1;
      list.push_back(std::move(m));
    }
    matched += !list.empty();
    matches.push_back(std::move(list));
  }
  if (matched > 0 || report.module_path.empty()) {
    report.matches = std::move(matches);
    report.module_path = path;
  }
  return matched;
}

// Modules beside a log are tried in turn; the first that explains every
// buffer wins, else the one that explains most.
constexpr size_t kMaxModulesTried = 16;

void MatchOomLog(const std::string& module, std::string_view text,
                 MemoryReport& report) {
  if (!module.empty()) {
    if (MatchModule(module, report) < 0) {
      report.note = "cannot read the module " + module;
    }
    return;
  }
  std::vector<std::string> candidates = CandidateModules(report.path, text);
  int best = 0;
  std::string best_path;
  std::vector<std::vector<OomMatch>> best_matches;
  for (size_t i = 0; i < candidates.size() && i < kMaxModulesTried; ++i) {
    MemoryReport trial;
    trial.oom = report.oom;
    int matched = MatchModule(candidates[i], trial);
    if (matched > best) {
      best = matched;
      best_path = trial.module_path;
      best_matches = std::move(trial.matches);
    }
    if (best == static_cast<int>(report.oom.buffers.size())) break;
  }
  if (best == 0) {
    report.note =
        "no optimized module beside the log names these buffers: give it "
        "with --module FILE";
    report.matches.assign(report.oom.buffers.size(), {});
    return;
  }
  report.module_path = best_path;
  report.matches = std::move(best_matches);
}

}  // namespace

const char* MemoryReport::SourceName() const {
  switch (source) {
    case Source::kBufferAssignment:
      return "buffer-assignment";
    case Source::kMemoryReport:
      return "memory-report";
    case Source::kOomLog:
      return "oom-log";
  }
  return "";
}

hlo::AllocationTotals MemoryReport::Totals() const {
  if (source != Source::kOomLog) return dump.Totals();
  hlo::AllocationTotals t;
  for (const auto& [kind, bytes] : oom.stats) {
    if (kind == "parameter") t.parameter = bytes;
    if (kind == "constant") t.constant = bytes;
    if (kind == "maybe_live_out") t.maybe_live_out = bytes;
    if (kind == "preallocated temp") t.preallocated_temp = bytes;
    if (kind == "total") t.total = bytes;
  }
  return t;
}

std::string MemoryFileOfModule(const std::string& path) {
  hlo::index::ModuleDumpFiles module = hlo::index::ModuleFilesOfPath(path);
  std::string self_label;
  for (const DumpFile& f : module.files) {
    if (f.path == path || BaseName(f.path) == BaseName(path)) {
      self_label = f.label;
    }
  }
  std::string best;
  int best_rank = 0;
  for (const DumpFile& f : module.files) {
    int rank = 0;
    if (f.kind == DumpFileKind::kBufferAssignment) rank = 2;
    if (f.kind == DumpFileKind::kMemoryReport) rank = 1;
    if (rank == 0) continue;
    if (!self_label.empty() && f.label.starts_with(self_label + "-")) {
      rank += 2;  // this stage's own
    }
    if (rank > best_rank) {
      best_rank = rank;
      best = f.path;
    }
  }
  return best;
}

absl::StatusOr<MemoryReport> LoadMemoryReport(const std::string& path,
                                              const std::string& module) {
  const std::string_view name = BaseName(path);
  const bool named_dump = name.ends_with("-buffer-assignment.txt") ||
                          name.find("-memory-usage-report.") != name.npos;
  if (!named_dump && IsModuleText(path)) return LoadMemoryOfModule(path);
  absl::StatusOr<FileContents> contents = FileContents::Read(path);
  if (!contents.ok()) return contents.status();
  MemoryReport report;
  report.contents = std::make_shared<const FileContents>(std::move(*contents));
  std::string_view text = report.contents->text();
  report.path = path;
  const bool assignment = name.ends_with("-buffer-assignment.txt") ||
                          text.starts_with("BufferAssignment:");
  const bool memory_report = name.find("-memory-usage-report.") != name.npos ||
                             text.starts_with("Total bytes used:");
  if (assignment) {
    report.dump = hlo::ReadBufferAssignment(text);
    return report;
  }
  if (memory_report) {
    report.source = MemoryReport::Source::kMemoryReport;
    report.dump = hlo::ReadMemoryUsageReport(text);
    return report;
  }
  if (hlo::LooksLikeOomLog(text)) {
    report.source = MemoryReport::Source::kOomLog;
    report.oom = hlo::ReadOomLog(text);
    if (report.oom.buffers.empty()) {
      return absl::InvalidArgumentError(path +
                                        ": an OOM report without peak buffers");
    }
    MatchOomLog(module, text, report);
    return report;
  }
  if (text.find("HloModule") == std::string_view::npos) {
    return absl::InvalidArgumentError(
        path +
        ": neither a module, a buffer assignment, a memory report nor an "
        "OOM log");
  }
  return LoadMemoryOfModule(path);
}

}  // namespace hlo_lsp
