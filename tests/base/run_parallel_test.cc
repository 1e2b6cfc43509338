#include "base/run_parallel.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/sanitizers.h"

namespace hlo::base {
namespace {

TEST(RunParallelTest, EveryPartRunsOncePartZeroOnTheCallingThread) {
  const std::thread::id caller = std::this_thread::get_id();
  std::mutex mutex;
  std::vector<int> runs(5, 0);
  std::vector<std::thread::id> ran_on(5);
  EXPECT_TRUE(RunInParallel(5, [&](int part) {
    std::lock_guard<std::mutex> lock(mutex);
    ++runs[part];
    ran_on[part] = std::this_thread::get_id();
  }));
  for (int part = 0; part < 5; ++part) {
    EXPECT_EQ(runs[part], 1) << part;
    // Each other part on a thread of its own: the system refuses none here.
    for (int other = 0; other < part; ++other) {
      EXPECT_NE(ran_on[part], ran_on[other]) << part << " " << other;
    }
  }
  EXPECT_EQ(ran_on[0], caller);
  EXPECT_TRUE(RunInParallel(0, [](int) { FAIL(); }));
}

TEST(RunParallelTest, APartOutOfMemoryFailsTheRunButNotTheOthers) {
  std::atomic<int> ran{0};
  EXPECT_FALSE(RunInParallel(3, [&](int part) {
    ++ran;
    if (part == 1) throw std::bad_alloc();
  }));
  EXPECT_EQ(ran, 3);
  EXPECT_FALSE(RunInParallel(1, [](int) { throw std::bad_alloc(); }));
}

// Under an address-space limit no thread stack fits: every part runs on
// the calling thread, none aborts the process. In a child process, whose
// limit the test leaves behind.
TEST(RunParallelTest, RefusedThreadsLeaveTheirPartsToTheCaller) {
  if (hlo_lsp::testing::kUnderAddressSanitizer) {
    GTEST_SKIP() << "an address-space limit breaks ASan";
  }
  std::fflush(nullptr);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    long pages = 0;
    if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(statm, "%ld", &pages) != 1) pages = 0;
      std::fclose(statm);
    }
    if (pages == 0) ::_exit(10);
    // Room for a few more small blocks, not for an 8 MB thread stack.
    const rlim_t limit = pages * ::sysconf(_SC_PAGESIZE) + (rlim_t{2} << 20);
    struct rlimit rl = {limit, limit};
    if (::setrlimit(RLIMIT_AS, &rl) != 0) ::_exit(11);
    const std::thread::id caller = std::this_thread::get_id();
    int runs[4] = {0, 0, 0, 0};
    bool all_on_caller = true;
    const bool ok = RunInParallel(4, [&](int part) {
      ++runs[part];
      all_on_caller &= std::this_thread::get_id() == caller;
    });
    const bool each_once =
        runs[0] == 1 && runs[1] == 1 && runs[2] == 1 && runs[3] == 1;
    ::_exit(ok && each_once && all_on_caller ? 0 : 12);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace hlo::base
