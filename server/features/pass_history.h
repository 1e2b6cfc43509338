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
  // there is none or its file has no pass history.
  std::optional<std::string> Note(const Snapshot& snap, Position position);

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

  std::optional<std::string> Describe(const std::string& path,
                                      const std::string& computation,
                                      const std::string& name);
  // The stage and pass dumps of the module of `path`, listed again only
  // when its folder changed.
  std::vector<hlo::index::DumpFile> Dumps(const std::string& path);

  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Timeline>> timelines_;  // by module
  std::set<std::string> computing_;
  std::map<std::string, Listing> listings_;  // by path
  std::vector<std::thread> workers_;
};

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_FEATURES_PASS_HISTORY_H_
