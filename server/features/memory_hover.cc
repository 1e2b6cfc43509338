#include "server/features/memory_hover.h"

#include <sys/stat.h>

#include <filesystem>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "hlo/query.h"
#include "index/module_files.h"
#include "server/features/index_locations.h"

namespace hlo_lsp {
namespace {

// A module without an assignment is looked up again after this long (a
// dump being written), not on every hover.
constexpr time_t kRecheckSeconds = 5;
constexpr size_t kKeptModules = 16;

// Only the optimized stage's names are the assignment's.
bool IsOptimizedStage(const std::string& path) {
  for (const hlo::index::DumpFile& f :
       hlo::index::ModuleFilesOfPath(path).files) {
    if (f.path == path) {
      return f.kind == hlo::index::DumpFileKind::kStage &&
             f.label.find("after_optimizations") != std::string::npos;
    }
  }
  return false;
}

std::string MemoryCode(const std::string& s) { return "`" + s + "`"; }

}  // namespace

std::shared_ptr<const MemoryReport> MemoryAssignments::ForModule(
    const std::string& path, bool* would_block) {
  std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
  if (would_block == nullptr) {
    lock.lock();
  } else if (!lock.try_lock() || entries_.count(path) == 0) {
    *would_block = true;  // another thread loads, or nothing looked up yet
    return nullptr;
  }
  if (entries_.size() >= kKeptModules && entries_.count(path) == 0) {
    entries_.clear();
  }
  Entry& e = entries_[path];
  const time_t now = time(nullptr);
  struct stat folder;
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const bool have_folder =
      ::stat(dir.empty() ? "." : dir.c_str(), &folder) == 0;
  if (e.memory_path.empty() && e.checked != 0) {
    if (e.none_in_folder && have_folder &&
        e.folder_mtime.tv_sec == folder.st_mtim.tv_sec &&
        e.folder_mtime.tv_nsec == folder.st_mtim.tv_nsec) {
      return nullptr;
    }
    if (!e.none_in_folder && now - e.checked < kRecheckSeconds) return nullptr;
  }
  struct stat st;
  if (!e.memory_path.empty() && ::stat(e.memory_path.c_str(), &st) == 0 &&
      st.st_size == e.size && st.st_mtim.tv_sec == e.mtime.tv_sec &&
      st.st_mtim.tv_nsec == e.mtime.tv_nsec) {
    return e.report;
  }
  if (would_block != nullptr) {
    *would_block = true;  // to look up or load again
    return nullptr;
  }
  e = Entry();
  e.checked = now;
  if (have_folder) e.folder_mtime = folder.st_mtim;
  e.none_in_folder = have_folder;
  if (!IsOptimizedStage(path)) return nullptr;
  e.memory_path = MemoryFileOfModule(path);
  if (e.memory_path.empty() || ::stat(e.memory_path.c_str(), &st) != 0) {
    e.memory_path.clear();
    return nullptr;
  }
  e.none_in_folder = false;  // there is one: a partial file is retried
  absl::StatusOr<MemoryReport> report = LoadMemoryReport(e.memory_path, "");
  if (!report.ok()) {
    e.memory_path.clear();
    return nullptr;
  }
  e.size = st.st_size;
  e.mtime = st.st_mtim;
  e.report = std::make_shared<const MemoryReport>(std::move(*report));
  return e.report;
}

std::optional<std::string> MemoryAssignments::Note(const Snapshot& snap,
                                                   Position position,
                                                   bool* would_block) {
  if (snap.file == nullptr) return std::nullopt;
  const hlo::ParsedFile& file = *snap.file;
  const hlo::Id id = hlo::NamedInstructionAt(file, snap.ToOffset(position));
  if (id == hlo::kNone) return std::nullopt;
  const std::string name(file.Name(file.instructions[id]));
  const std::string path = UriToPath(snap.uri);
  if (path.empty() || name.empty()) return std::nullopt;
  std::shared_ptr<const MemoryReport> report =
      ForModule(NormalPath(path), would_block);
  if (report == nullptr) return std::nullopt;
  std::vector<hlo::ValuePlace> places = hlo::PlacesOf(report->dump, name);
  if (places.empty()) return std::nullopt;
  std::string out = "**memory**:";
  for (const hlo::ValuePlace& p : places) {
    const hlo::Allocation& a = *p.allocation;
    if (p.alias) {
      out += "\n- " + MemoryCode(hlo::base::Cat(name, p.alias_index)) + " is " +
             MemoryCode(
                 hlo::base::Cat(p.value->instruction, p.value->shape_index)) +
             ":";
    } else if (places.size() > 1) {
      out += "\n- " + MemoryCode(hlo::base::Cat(name, p.value->shape_index));
    }
    out += " allocation " + std::to_string(a.index) + " (" +
           hlo::HumanBytes(a.size) + ", " + a.Kinds() + "), offset " +
           std::to_string(p.value->offset) + ", size " +
           hlo::HumanBytes(p.value->size);
  }
  if (!report->dump.peak.empty()) {
    out += hlo::LiveAtPeak(report->dump, name) ? "; live at the peak"
                                               : "; not live at the peak";
  }
  return out;
}

std::optional<CodeLens> MemoryAssignments::Lens(const Snapshot& snap) {
  if (snap.file == nullptr) return std::nullopt;
  const hlo::Computation* entry = nullptr;
  for (const hlo::Computation& c : snap.file->computations) {
    if (c.is_entry) entry = &c;
  }
  const std::string path = UriToPath(snap.uri);
  if (entry == nullptr || path.empty()) return std::nullopt;
  std::shared_ptr<const MemoryReport> report = ForModule(NormalPath(path));
  if (report == nullptr || report->dump.allocations.empty()) {
    return std::nullopt;
  }
  const hlo::Allocation* largest = report->dump.Largest();
  std::string title =
      "memory: " + hlo::HumanBytes(report->Totals().total) + " total";
  if (largest != nullptr) {
    title += ", largest allocation " + hlo::HumanBytes(largest->size);
  }
  const uint32_t line = snap.ToPosition(entry->span.begin).line;
  return CodeLens{Range{{line, 0}, {line, 5}},  // "ENTRY"
                  Command{title, "hlo.memory", CommandArgs{snap.uri}}};
}

Result<MemoryReply> MemoryAssignments::Reply(const UriParams& params) {
  const std::string path = UriToPath(params.uri);
  if (path.empty()) return InvalidParams("expected a file URI: " + params.uri);
  absl::StatusOr<MemoryReport> report = LoadMemoryReport(NormalPath(path), "");
  if (!report.ok())
    return RequestFailed(std::string(report.status().message()));
  return MemoryReply{params.uri,
                     std::make_shared<const MemoryReport>(std::move(*report))};
}

}  // namespace hlo_lsp
