// A fixed pool of worker threads running queued tasks in FIFO order.
#ifndef HLO_LSP_SERVER_THREAD_POOL_H_
#define HLO_LSP_SERVER_THREAD_POOL_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
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
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_THREAD_POOL_H_
