// The persisted index and the indexer's reads against files that change
// under them: a rewrite that restores the mtime, a FIFO or a sparse garbage
// file where the cache file should be, an indexed file that shrinks.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "index/workspace_index.h"
#include "test_dir.h"
#include "tests/sanitizers.h"

namespace hlo::index {
namespace {

namespace fs = std::filesystem;
using index_test::CacheIn;
using index_test::MakeModule;
using index_test::TempDir;
using index_test::WriteFile;

size_t Count(const WorkspaceIndex& index, std::string_view query) {
  absl::StatusOr<std::vector<SymbolMatch>> r = index.Query(query, 0);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->size() : 0;
}

// The one cache file the folder's index wrote.
fs::path OnlyCacheFile(const fs::path& cache) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(cache)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  EXPECT_EQ(files.size(), 1u);
  return files.empty() ? fs::path() : files[0];
}

// Writes module jit_f into `dir`, indexes it once with the cache in `cache`,
// and returns the cache file that wrote.
fs::path IndexOneModuleWithCache(const fs::path& dir, const fs::path& cache) {
  WriteFile(dir / "module_0001.jit_f.before_optimizations.txt",
            MakeModule("jit_f", 2, 10, 1));
  WorkspaceIndex first(CacheIn(cache));
  first.AddFolder(dir);
  return OnlyCacheFile(cache);
}

// Same size, new content, the old mtime put back (touch -r, rsync -t): the
// ctime in the key still tells the cache entry is stale.
TEST(CacheSafetyTest, RewriteWithTheMtimeRestoredIsNotStale) {
  TempDir dir, cache;
  fs::path file = dir.path() / "module_0001.jit_aaaa.before_optimizations.txt";
  WriteFile(file, MakeModule("jit_aaaa", 2, 10, 1));
  struct stat before;
  ASSERT_EQ(::stat(file.c_str(), &before), 0);
  {
    WorkspaceIndex first(CacheIn(cache.path()));
    first.AddFolder(dir.path());
    EXPECT_EQ(Count(first, "kind:module module:jit_aaaa"), 1u);
  }
  // ctime ticks with the kernel's coarse clock: let it move on.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::string renamed = MakeModule("jit_bbbb", 2, 10, 1);
  ASSERT_EQ(renamed.size(), fs::file_size(file));
  WriteFile(file, renamed);
  struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, file.c_str(), times, 0), 0);
  struct stat after;
  ASSERT_EQ(::stat(file.c_str(), &after), 0);
  ASSERT_EQ(after.st_size, before.st_size);
  ASSERT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);

  WorkspaceIndex second(CacheIn(cache.path()));
  second.AddFolder(dir.path());
  EXPECT_EQ(second.stats().shards_stale, 1u);
  EXPECT_EQ(Count(second, "kind:module module:jit_bbbb"), 1u);
  EXPECT_EQ(Count(second, "kind:module module:jit_aaaa"), 0u);
}

// A FIFO where the cache file should be: opening it for reading must not
// wait for a writer that never comes. It is a miss, and the index is built.
TEST(CacheSafetyTest, AFifoInTheCacheFolderIsAMiss) {
  TempDir dir, cache;
  fs::path idx = IndexOneModuleWithCache(dir.path(), cache.path());
  fs::remove(idx);
  ASSERT_EQ(::mkfifo(idx.c_str(), 0600), 0);
  WorkspaceIndex second(CacheIn(cache.path()));
  second.AddFolder(dir.path());
  EXPECT_EQ(second.stats().shards_loaded, 0u);
  EXPECT_EQ(second.stats().files_scanned, 1u);
  EXPECT_EQ(Count(second, "kind:module module:jit_f"), 1u);
}

// Bytes of address space this process has mapped now.
uint64_t AddressSpaceInUse() {
  std::ifstream status("/proc/self/status");
  std::string key;
  uint64_t kb = 0;
  while (status >> key) {
    if (key == "VmSize:") {
      status >> kb;
      break;
    }
  }
  return kb * 1024;
}

// A 2 GB sparse file of zeros as the cache: its header is refused after 40
// bytes, so indexing fits in 512 MB more address space (mapping it with
// MAP_POPULATE cost 2 GB). Checked in a child under RLIMIT_AS.
TEST(CacheSafetyTest, AGarbageCacheFileIsRefusedByItsHeader) {
  if (hlo_lsp::testing::kUnderAddressSanitizer) {
    GTEST_SKIP() << "ASan reserves terabytes of address space";
  }
  TempDir dir, cache;
  fs::path idx = IndexOneModuleWithCache(dir.path(), cache.path());
  fs::resize_file(idx, 0);
  fs::resize_file(idx, uint64_t{2} << 30);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    struct rlimit limit;
    limit.rlim_cur = limit.rlim_max = AddressSpaceInUse() + (512 << 20);
    ::setrlimit(RLIMIT_AS, &limit);
    IndexOptions options = CacheIn(cache.path());
    options.threads = 1;
    WorkspaceIndex index(options);
    index.AddFolder(dir.path());
    IndexStats stats = index.stats();
    size_t found = Count(index, "kind:module module:jit_f");
    bool ok =
        stats.shards_corrupt == 1 && stats.files_scanned == 1 && found == 1;
    if (!ok) {
      std::fprintf(stderr, "corrupt %zu, scanned %zu, found %zu\n",
                   stats.shards_corrupt, stats.files_scanned, found);
      for (const std::string& w : index.TakeWarnings()) {
        std::fprintf(stderr, "warning: %s\n", w.c_str());
      }
    }
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status))
      << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// An indexed file over the read buffer (16 MB) truncated and rewritten
// while it is indexed: a mapping took SIGBUS; reads end early, and every
// pass finishes.
TEST(CacheSafetyTest, AFileThatShrinksWhileIndexedIsNoSignal) {
  TempDir dir;
  fs::path file = dir.path() / "module_0001.jit_big.before_optimizations.txt";
  std::string big = MakeModule("jit_big", 40, 5000, 7);
  ASSERT_GT(big.size(), size_t{17} << 20);
  WriteFile(file, big);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    while (!stop) {
      [[maybe_unused]] int rc = ::truncate(file.c_str(), 0);
      std::ofstream(file, std::ios::binary | std::ios::trunc) << big;
    }
  });
  const IndexOptions options = index_test::NoCache();
  for (int i = 0; i < 12; ++i) {
    WorkspaceIndex index(options);
    index.AddFolder(dir.path());
    EXPECT_LE(index.stats().files, 1u);
  }
  stop = true;
  writer.join();
}

}  // namespace
}  // namespace hlo::index
