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
  std::vector<bool> own(5, false), on_caller(5, false);
  EXPECT_TRUE(RunInParallel(5, [&](int part, bool own_thread) {
    std::lock_guard<std::mutex> lock(mutex);
    ++runs[part];
    own[part] = own_thread;
    on_caller[part] = std::this_thread::get_id() == caller;
  }));
  for (int part = 0; part < 5; ++part) {
    EXPECT_EQ(runs[part], 1) << part;
    EXPECT_EQ(own[part], !on_caller[part]) << part;
  }
  EXPECT_TRUE(on_caller[0]);
  EXPECT_TRUE(RunInParallel(0, [](int, bool) { FAIL(); }));
}

TEST(RunParallelTest, APartOutOfMemoryFailsTheRunButNotTheOthers) {
  std::atomic<int> ran{0};
  EXPECT_FALSE(RunInParallel(3, [&](int part, bool) {
    ++ran;
    if (part == 1) throw std::bad_alloc();
  }));
  EXPECT_EQ(ran, 3);
  EXPECT_FALSE(RunInParallel(1, [](int, bool) { throw std::bad_alloc(); }));
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
    int runs[4] = {0, 0, 0, 0};
    bool any_own_thread = false;
    const bool ok = RunInParallel(4, [&](int part, bool own_thread) {
      ++runs[part];
      any_own_thread |= own_thread;
    });
    const bool each_once =
        runs[0] == 1 && runs[1] == 1 && runs[2] == 1 && runs[3] == 1;
    ::_exit(ok && each_once && !any_own_thread ? 0 : 12);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace hlo::base
