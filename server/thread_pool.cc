#include "server/thread_pool.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

namespace hlo_lsp {

ThreadPool::ThreadPool(int threads) {
  if (threads < 1) threads = 1;
  for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { Work(); });
}

ThreadPool::~ThreadPool() { Stop(); }

void ThreadPool::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    tasks_.push_back(std::move(task));
  }
  ready_.release();
}

void ThreadPool::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  // Queued tasks hold their tokens: they run first, then each worker takes
  // one of these and finds the queue empty.
  ready_.release(static_cast<std::ptrdiff_t>(workers_.size()));
  for (std::thread& t : workers_) {
    if (t.joinable()) t.join();
  }
  workers_.clear();
}

void ThreadPool::Work() {
  while (true) {
    ready_.acquire();
    std::function<void()> task;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (tasks_.empty()) return;  // a token of Stop
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

void RunThisThreadWhenIdle() {
  // Both are per thread on Linux (pid 0 / gettid: this thread only), and
  // std::thread inherits them.
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 19);
  sched_param param{};
  param.sched_priority = 0;
  ::sched_setscheduler(0, SCHED_IDLE, &param);
}

}  // namespace hlo_lsp
