// Blame in hover: after which pass an instruction of a stage or pass dump
// first appeared and which pass last changed it (history/blame.h), from
// its module's timeline. Timelines are computed once per module and kept
// while the dumps' sizes and times stay the same: a tiny module's at once
// (hover runs on a worker thread), any other in the background at a low
// priority, the hover saying so until it is ready. Hover's p99 is a few
// milliseconds: a 3 MB module's dozen pass dumps (40 MB) parsed inline
// took a second, and so the folder listing is kept too, while the folder's
// mtime stays the same (a dump folder holds thousands of files).
#ifndef HLO_LSP_SERVER_FEATURES_PASS_HISTORY_H_
#define HLO_LSP_SERVER_FEATURES_PASS_HISTORY_H_

#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "history/blame.h"
#include "history/timeline.h"
#include "server/documents.h"
#include "server/protocol.h"

namespace hlo_lsp {

class PassHistory {
 public:
  // Modules whose dumps add up to more are timed in the background.
  static constexpr uint64_t kInlineBytes = uint64_t{1} << 20;

  PassHistory() = default;
  ~PassHistory();
  PassHistory(const PassHistory&) = delete;
  PassHistory& operator=(const PassHistory&) = delete;

  // A markdown line for the instruction under `position`, or nullopt when
  // there is none or its file has no pass history. With `would_block` (on
  // the reader thread): from what is listed and computed only; sets
  // *would_block instead of listing the folder or computing a timeline.
  std::optional<std::string> Note(const Snapshot& snap, Position position,
                                  bool* would_block = nullptr);
  // Lists the module's dumps and starts (or, for a tiny module, computes)
  // its timeline, so that the first hover finds both ready: at didOpen,
  // off the reader thread. The first hover on a pass dump of a 1 GB
  // folder cost 180 ms of listing and stats.
  void Warm(const std::string& path);
  // Waits for the timelines being computed in the background (tests).
  void WaitForBackground();

 private:
  struct Timeline {
    std::vector<std::string> signature;  // path, size, mtime of each dump
    std::vector<hlo::history::TimelineStep> steps;
    std::map<size_t, std::shared_ptr<hlo::history::Blame>> blames;
  };

  struct Listing {
    timespec folder_mtime{};
    std::vector<hlo::index::DumpFile> dumps;  // HloTextHistory of the file
  };

  struct Found {
    std::shared_ptr<Timeline> timeline;  // null: being computed
    size_t self = 0;                     // the file's step
    size_t dumps = 0;
  };
  // The timeline of the module of `path` (nullopt: it has no history),
  // started in the background if missing and big, computed here if tiny.
  // With `would_block`: nullopt and *would_block set instead of listing,
  // computing or starting a computation.
  std::optional<Found> Find(const std::string& path,
                            bool* would_block = nullptr);
  std::optional<std::string> Describe(const std::string& path,
                                      const std::string& computation,
                                      const std::string& name,
                                      bool* would_block);
  // The stage and pass dumps of the module of `path`, listed again only
  // when its folder changed (with `would_block`: not listed, see Find).
  std::vector<hlo::index::DumpFile> Dumps(const std::string& path,
                                          bool* would_block);

  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Timeline>> timelines_;  // by module
  std::set<std::string> computing_;
  std::map<std::string, Listing> listings_;  // by path
  std::vector<std::thread> workers_;
};

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_FEATURES_PASS_HISTORY_H_
