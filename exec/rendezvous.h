// Data exchange between the participants of a multi-device module, each
// evaluated on its own thread: every member of a group hands in its value
// for one collective and gets everyone's back.
#ifndef HLO_LSP_EXEC_RENDEZVOUS_H_
#define HLO_LSP_EXEC_RENDEZVOUS_H_

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/literal.h"

namespace hlo::exec {

class Rendezvous {
 public:
  // Returns the values of `group` (in group order) once all arrived.
  absl::StatusOr<std::vector<Value>> Exchange(uint64_t op, uint64_t occurrence,
                                              const std::vector<int64_t>& group,
                                              int64_t device, Value mine);
  // A participant failed: wake everyone with this error.
  void Abort(const absl::Status& status);

 private:
  struct Slot {
    std::map<int64_t, Value> values;
    size_t readers = 0;
  };
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::tuple<uint64_t, uint64_t, int64_t>, Slot> slots_;
  absl::Status aborted_ = absl::OkStatus();
};

}  // namespace hlo::exec

#endif  // HLO_LSP_EXEC_RENDEZVOUS_H_
