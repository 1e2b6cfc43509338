// A fixed pool of worker threads running queued tasks in FIFO order.
// Workers wait on a semaphore, not a condition variable: glibc's
// pthread_cond_signal may block the submitter until the waiters woken
// before have run, so on a busy machine the reader thread stalled behind
// a preempted worker (the 100 ms outliers of hover in bench/lsp_bench.js).
#ifndef HLO_LSP_SERVER_THREAD_POOL_H_
#define HLO_LSP_SERVER_THREAD_POOL_H_

#include <deque>
#include <functional>
#include <mutex>
#include <semaphore>
#include <thread>
#include <vector>

namespace hlo_lsp {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);
  ~ThreadPool();  // runs what is queued, then joins
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Submit(std::function<void()> task);
  // Finishes queued tasks and joins the workers; Submit is a no-op after.
  void Stop();

 private:
  void Work();

  std::mutex mutex_;
  std::counting_semaphore<> ready_{0};  // one token per task, one per worker
                                        // at Stop
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

// Puts the calling thread, and the threads it starts after, in Linux's
// SCHED_IDLE class: it runs only when no normal thread wants the CPU. Nice
// 19 still took a tenth of a core from each request thread it shared a core
// with (definition's p99 went from 1 to 20 ms while a pass timeline parsed).
// Falls back to nice 19 where the class is refused.
void RunThisThreadWhenIdle();

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_THREAD_POOL_H_
