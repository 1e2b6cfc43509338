// The request pool: FIFO tasks on a semaphore; Stop runs what is queued,
// then joins; Submit after Stop is a no-op.
#include "server/thread_pool.h"

#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "gtest/gtest.h"

namespace hlo_lsp {
namespace {

TEST(ThreadPoolTest, StopRunsQueuedTasksThenJoins) {
  std::atomic<int> ran{0};
  ThreadPool pool(2);
  for (int i = 0; i < 200; ++i) {
    pool.Submit([&ran, i] {
      if (i % 50 == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      ran.fetch_add(1);
    });
  }
  pool.Stop();
  EXPECT_EQ(ran.load(), 200);
  pool.Submit([&ran] { ran.fetch_add(1); });
  pool.Stop();  // twice is fine
  EXPECT_EQ(ran.load(), 200);
}

TEST(ThreadPoolTest, SubmitReturnsWhileEveryWorkerIsBusy) {
  std::atomic<bool> release{false};
  std::atomic<int> ran{0};
  ThreadPool pool(2);
  auto busy = [&] {
    while (!release.load()) std::this_thread::yield();
    ran.fetch_add(1);
  };
  pool.Submit(busy);
  pool.Submit(busy);
  for (int i = 0; i < 100; ++i) pool.Submit([&ran] { ran.fetch_add(1); });
  // Queued, not run: both workers are held.
  EXPECT_EQ(ran.load(), 0);
  release = true;
  pool.Stop();
  EXPECT_EQ(ran.load(), 102);
}

// Background work (pass timelines) must not take CPU from requests: the
// idle class, for the thread and the threads it starts, never the caller's.
TEST(ThreadPoolTest, RunThisThreadWhenIdleIsInheritedAndPerThread) {
  const int before = sched_getscheduler(0);
  int self = -1, child = -1;
  std::thread t([&] {
    RunThisThreadWhenIdle();
    self = sched_getscheduler(0);
    std::thread inner([&] { child = sched_getscheduler(0); });
    inner.join();
  });
  t.join();
  EXPECT_EQ(self, SCHED_IDLE);
  EXPECT_EQ(child, SCHED_IDLE);
  EXPECT_EQ(sched_getscheduler(0), before);
}

}  // namespace
}  // namespace hlo_lsp
