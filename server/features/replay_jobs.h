// Replay as an editor job: hlo.replay and hlo.compare start a run on a
// thread of its own (the evaluator itself runs in a child process with
// limits) and answer its id at once; hlo/replayResult waits for the report.
// Cancelling that wait ($/cancelRequest) stops the run: its child is killed,
// the request answers "cancelled" and the kept report's outcome says so.
// The latest runs' reports are kept.
#ifndef HLO_LSP_SERVER_FEATURES_REPLAY_JOBS_H_
#define HLO_LSP_SERVER_FEATURES_REPLAY_JOBS_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "server/client.h"
#include "server/protocol_workspace.h"
#include "server/result.h"

namespace hlo_lsp {

class ReplayJobs {
 public:
  explicit ReplayJobs(Client* client) : client_(client) {}
  ~ReplayJobs();  // cancels and joins every run

  // hlo.replay (compare false) and hlo.compare (true).
  Result<ReplayStarted> Start(const ReplayArgs& args, bool compare);
  // hlo/replayResult: waits for the run's report; `cancelled` also cancels
  // the run.
  Result<ReplayReport> Report(const ReplayResultParams& params,
                              const std::atomic<bool>* cancelled);
  void Shutdown();

 private:
  struct Job;

  Client* client_;
  std::mutex mutex_;
  int64_t next_job_ = 1;
  std::map<int64_t, std::shared_ptr<Job>> jobs_;
};

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_FEATURES_REPLAY_JOBS_H_
