// The request pool: FIFO tasks on a semaphore; Stop runs what is queued,
// then joins; Submit after Stop is a no-op.
#include "server/thread_pool.h"

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

}  // namespace
}  // namespace hlo_lsp
