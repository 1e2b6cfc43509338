// The worker pool: N-1 detached threads (never joined, never destroyed, so
// process exit does not wait on them) that sleep on a condition variable
// between jobs. One job at a time: Run() try-locks; a busy pool means the
// caller runs every task itself.
#include "exec/parallel.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace hlo::exec {
namespace {

class Pool {
 public:
  explicit Pool(int workers) {
    for (int i = 0; i < workers; ++i) {
      try {
        std::thread(&Pool::Loop, this, i + 1).detach();
        ++workers_;
      } catch (const std::system_error&) {  // thread limits: use fewer
        break;
      }
    }
  }

  // False when another caller holds the pool.
  bool TryRun(int tasks, const std::function<void(int)>& fn) {
    std::unique_lock<std::mutex> run(run_mu_, std::try_to_lock);
    if (!run.owns_lock()) return false;
    const int on_workers = std::min(tasks - 1, workers_);
    {
      std::lock_guard<std::mutex> lock(mu_);
      fn_ = &fn;
      active_ = on_workers;
      pending_ = on_workers;
      ++generation_;
    }
    cv_.notify_all();
    fn(0);
    // Tasks the workers do not take run here.
    for (int t = on_workers + 1; t < tasks; ++t) fn(t);
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [&] { return pending_ == 0; });
    fn_ = nullptr;
    return true;
  }

 private:
  void Loop(int index) {
    uint64_t seen = 0;
    while (true) {
      const std::function<void(int)>* fn;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (index > active_) continue;
        fn = fn_;
      }
      (*fn)(index);
      std::lock_guard<std::mutex> lock(mu_);
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }

  std::mutex run_mu_;
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(int)>* fn_ = nullptr;
  uint64_t generation_ = 0;
  int active_ = 0, pending_ = 0, workers_ = 0;
};

// The pool of this process: after fork() the child finds a pid that is not
// its own and starts a new pool (the parent's threads do not exist there; the
// old object is leaked on purpose).
std::atomic<Pool*> g_pool{nullptr};
std::atomic<pid_t> g_pool_pid{0};
std::mutex g_create_mu;

Pool* GetPool() {
  const pid_t pid = getpid();
  Pool* pool = g_pool.load(std::memory_order_acquire);
  if (pool != nullptr && g_pool_pid.load(std::memory_order_acquire) == pid)
    return pool;
  std::unique_lock<std::mutex> lock(g_create_mu, std::try_to_lock);
  if (!lock.owns_lock()) return nullptr;  // being created (or held at fork)
  pool = g_pool.load(std::memory_order_acquire);
  if (pool == nullptr || g_pool_pid.load(std::memory_order_acquire) != pid) {
    pool = new Pool(ExecThreads() - 1);
    g_pool.store(pool, std::memory_order_release);
    g_pool_pid.store(pid, std::memory_order_release);
  }
  return pool;
}

}  // namespace

int ExecThreads() {
  static const int threads = [] {
    if (const char* env = std::getenv("HLO_LSP_THREADS")) {
      int n = std::atoi(env);
      if (n > 0) return std::min(n, 256);
    }
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }();
  return threads;
}

void ParallelFor(int tasks, const std::function<void(int)>& fn) {
  if (tasks <= 0) return;
  if (tasks > 1 && ExecThreads() > 1) {
    if (Pool* pool = GetPool(); pool != nullptr && pool->TryRun(tasks, fn))
      return;
  }
  for (int t = 0; t < tasks; ++t) fn(t);
}

Range SplitRange(int64_t n, int parts, int64_t grain, int index) {
  const int64_t units = (n + grain - 1) / grain;
  const int64_t per = units / parts, extra = units % parts;
  const int64_t b = index * per + std::min<int64_t>(index, extra);
  const int64_t e = b + per + (index < extra ? 1 : 0);
  return {std::min(n, b * grain), std::min(n, e * grain)};
}

}  // namespace hlo::exec
