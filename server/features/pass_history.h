// Blame in hover: after which pass an instruction of a stage or pass dump
// first appeared and which pass last changed it (history/blame.h), from
// its module's timeline. Timelines are computed once per module and kept
// while the dumps' sizes and times stay the same: a small module's at once
// (hover runs on a worker thread), a large one's in the background, the
// hover saying so until it is ready.
#ifndef HLO_LSP_SERVER_FEATURES_PASS_HISTORY_H_
#define HLO_LSP_SERVER_FEATURES_PASS_HISTORY_H_

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
  static constexpr uint64_t kInlineBytes = uint64_t{32} << 20;

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

  std::optional<std::string> Describe(const std::string& path,
                                      const std::string& computation,
                                      const std::string& name);

  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Timeline>> timelines_;  // by module
  std::set<std::string> computing_;
  std::vector<std::thread> workers_;
};

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_FEATURES_PASS_HISTORY_H_
