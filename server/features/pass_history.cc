#include "server/features/pass_history.h"

#include <sys/stat.h>

#include <filesystem>
#include <new>
#include <system_error>
#include <utility>

#include "hlo/query.h"
#include "index/module_files.h"
#include "server/features/index_locations.h"
#include "server/thread_pool.h"

namespace hlo_lsp {
namespace {

// At most this many module timelines (and file listings) are kept.
constexpr size_t kKeptTimelines = 8;
constexpr size_t kKeptListings = 64;

std::string PassCode(const std::string& s) { return "`" + s + "`"; }

// "after `algsimp` (step 3)", or the stage's name for a stage dump.
std::string After(const hlo::history::TimelineStep& step) {
  if (step.file.kind == hlo::index::DumpFileKind::kPass) {
    return "after " + PassCode(step.pass_name()) + " (step " +
           std::to_string(step.file.dump.step) + ")";
  }
  return "in " + PassCode(step.file.label);
}

// "by `fusion` (step 7)", or the stage's name for a stage dump.
std::string By(const hlo::history::TimelineStep& step) {
  if (step.file.kind == hlo::index::DumpFileKind::kPass) {
    return "by " + PassCode(step.pass_name()) + " (step " +
           std::to_string(step.file.dump.step) + ")";
  }
  return "in " + PassCode(step.file.label);
}

}  // namespace

PassHistory::~PassHistory() { WaitForBackground(); }

void PassHistory::WaitForBackground() {
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    workers.swap(workers_);
  }
  for (std::thread& t : workers) t.join();
}

std::optional<std::string> PassHistory::Note(const Snapshot& snap,
                                             Position position,
                                             bool* would_block) {
  if (snap.file == nullptr) return std::nullopt;
  const hlo::ParsedFile& file = *snap.file;
  const hlo::Id id = hlo::NamedInstructionAt(file, snap.ToOffset(position));
  if (id == hlo::kNone) return std::nullopt;
  const hlo::Instruction& inst = file.instructions[id];
  if (inst.name.empty() || inst.computation == hlo::kNone) return std::nullopt;
  std::string path = UriToPath(snap.uri);
  if (path.empty()) return std::nullopt;
  return Describe(
      NormalPath(path),
      std::string(file.Text(file.computations[inst.computation].name)),
      std::string(file.Text(inst.name)), would_block);
}

std::vector<hlo::index::DumpFile> PassHistory::Dumps(const std::string& path,
                                                     bool* would_block) {
  struct stat st;
  const std::string folder = std::filesystem::path(path).parent_path().string();
  if (::stat(folder.empty() ? "." : folder.c_str(), &st) != 0) return {};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = listings_.find(path);
    if (it != listings_.end() &&
        it->second.folder_mtime.tv_sec == st.st_mtim.tv_sec &&
        it->second.folder_mtime.tv_nsec == st.st_mtim.tv_nsec) {
      return it->second.dumps;
    }
  }
  if (would_block != nullptr) {
    *would_block = true;
    return {};
  }
  Listing listing;
  listing.folder_mtime = st.st_mtim;
  listing.dumps =
      hlo::index::HloTextHistory(hlo::index::ModuleFilesOfPath(path));
  std::lock_guard<std::mutex> lock(mutex_);
  if (listings_.size() >= kKeptListings) listings_.clear();
  listings_[path] = listing;
  return listing.dumps;
}

void PassHistory::Warm(const std::string& path) { Find(path); }

std::optional<PassHistory::Found> PassHistory::Find(const std::string& path,
                                                    bool* would_block) {
  std::vector<hlo::index::DumpFile> dumps = Dumps(path, would_block);
  std::optional<size_t> self;
  for (size_t i = 0; i < dumps.size(); ++i) {
    if (dumps[i].path == path) self = i;
  }
  if (!self || dumps.size() < 2) return std::nullopt;
  std::vector<std::string> signature;
  uint64_t bytes = 0;
  for (const hlo::index::DumpFile& d : dumps) {
    struct stat st;
    if (::stat(d.path.c_str(), &st) != 0) return std::nullopt;
    bytes += static_cast<uint64_t>(st.st_size);
    signature.push_back(d.path + "\n" + std::to_string(st.st_size) + "\n" +
                        std::to_string(st.st_mtim.tv_sec) + "." +
                        std::to_string(st.st_mtim.tv_nsec));
  }
  const std::string key = dumps.front().path;
  std::shared_ptr<Timeline> timeline;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = timelines_.find(key);
    if (it != timelines_.end() && it->second->signature == signature) {
      timeline = it->second;
    } else if (computing_.count(key)) {
      return Found{nullptr, *self, dumps.size()};
    }
  }
  if (!timeline && would_block != nullptr) {
    *would_block = true;
    return std::nullopt;
  }
  auto compute = [this, key, dumps, signature, self = *self] {
    auto built = std::make_shared<Timeline>();
    built->signature = signature;
    hlo::history::TimelineOptions options;
    options.keep_diffs = true;
    built->steps = hlo::history::BuildTimeline(dumps, options);
    // The opened file's blame too, here rather than under mutex_ in the
    // first hover, which every other hover would wait behind.
    built->blames[self] =
        std::make_shared<hlo::history::Blame>(built->steps, self + 1);
    // The evicted timelines (hundreds of MB of steps and diffs) are freed
    // after the unlock: this thread may run at SCHED_IDLE, and a hover
    // waiting on mutex_ would wait for it to get the CPU back.
    std::map<std::string, std::shared_ptr<Timeline>> evicted;
    std::lock_guard<std::mutex> lock(mutex_);
    computing_.erase(key);
    if (timelines_.size() >= kKeptTimelines) evicted.swap(timelines_);
    timelines_[key] = built;
    return built;
  };
  if (!timeline) {
    if (bytes > kInlineBytes) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (computing_.insert(key).second) {
        // Out of memory, or no thread: forgotten, so that a later request
        // tries again, and the server goes on.
        auto forget = [this, key] {
          std::lock_guard<std::mutex> lock(mutex_);
          computing_.erase(key);
        };
        try {
          workers_.emplace_back([compute, forget] {
            RunThisThreadWhenIdle();
            try {
              compute();
            } catch (const std::bad_alloc&) {
              forget();
            }
          });
        } catch (const std::system_error&) {
          computing_.erase(key);  // mutex_ is held here
        }
      }
      return Found{nullptr, *self, dumps.size()};
    }
    timeline = compute();
  }
  return Found{timeline, *self, dumps.size()};
}

std::optional<std::string> PassHistory::Describe(const std::string& path,
                                                 const std::string& computation,
                                                 const std::string& name,
                                                 bool* would_block) {
  std::optional<Found> found = Find(path, would_block);
  if (!found) return std::nullopt;
  if (!found->timeline) {
    return "**Pass history:** being computed over " +
           std::to_string(found->dumps) + " dumps…";
  }
  const std::shared_ptr<Timeline>& timeline = found->timeline;
  const size_t self = found->self;
  std::shared_ptr<hlo::history::Blame> blame;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::shared_ptr<hlo::history::Blame>& slot = timeline->blames[self];
    if (!slot && would_block != nullptr) {
      *would_block = true;
      return std::nullopt;
    }
    if (!slot) {
      slot = std::make_shared<hlo::history::Blame>(timeline->steps, self + 1);
    }
    blame = slot;
  }
  hlo::history::InstructionBlame b = blame->Of(computation, name);
  const auto& steps = timeline->steps;
  std::string note = "**Pass history:** ";
  note += b.first_seen == 0 ? "present since " + PassCode(steps[0].file.label)
                            : "first appeared " + After(steps[b.first_seen]);
  note += b.last_changed == b.first_seen
              ? " · unchanged since then"
              : " · last changed " + By(steps[b.last_changed]);
  return note;
}

}  // namespace hlo_lsp
