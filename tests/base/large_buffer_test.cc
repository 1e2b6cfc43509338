#include "base/large_buffer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

#include "gtest/gtest.h"
#include "tests/sanitizers.h"

namespace hlo::base {
namespace {

TEST(LargeBufferTest, SmallAndLargeBuffersHoldTheirBytes) {
  for (size_t size : {size_t{0}, size_t{100}, LargeBuffer::kMapFrom - 1,
                      LargeBuffer::kMapFrom, LargeBuffer::kMapFrom * 3 + 5}) {
    LargeBuffer buffer = LargeBuffer::Allocate(size);
    ASSERT_NE(buffer.data(), nullptr) << size;
    EXPECT_EQ(buffer.size(), size);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % 16, 0u);
    if (size == 0) continue;
    std::memset(buffer.data(), 'x', size);
    EXPECT_EQ(buffer.data()[size - 1], 'x');
  }
}

TEST(LargeBufferTest, MovesHandOverOwnership) {
  LargeBuffer a = LargeBuffer::Allocate(LargeBuffer::kMapFrom);
  char* bytes = a.data();
  bytes[0] = 'a';
  LargeBuffer b = std::move(a);
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(b.data(), bytes);
  LargeBuffer c = LargeBuffer::Allocate(10);
  c = std::move(b);
  EXPECT_EQ(c.data()[0], 'a');
  EXPECT_EQ(c.size(), LargeBuffer::kMapFrom);
}

// The VmFlags line of the mapping holding `address`, from /proc/self/smaps.
std::string VmFlagsAt(uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2) {
      inside = begin <= address && address < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

TEST(LargeBufferTest, AdvisesHugePagesForAStringsReserve) {
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
    GTEST_SKIP() << "no transparent huge pages";
  }
  std::string text = "kept";
  text.reserve(size_t{8} << 20);
  AdviseHugePages(text.data(), text.capacity());
  EXPECT_EQ(text, "kept");
  const uintptr_t huge = uintptr_t{2} << 20;
  const uintptr_t inside =
      (reinterpret_cast<uintptr_t>(text.data()) + huge - 1) / huge * huge;
  EXPECT_NE(VmFlagsAt(inside).find(" hg"), std::string::npos)
      << VmFlagsAt(inside);
  text.append(size_t{6} << 20, 'x');
  EXPECT_EQ(text.back(), 'x');
  // Less than a whole huge page: nothing to advise, nothing breaks.
  char small[100] = {};
  AdviseHugePages(small, sizeof(small));
  AdviseHugePages(nullptr, 0);
}

bool CanObserveHeapAdvice() {
  return std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled") &&
         !hlo_lsp::testing::kUnderAddressSanitizer;
}

// The flags of the VMA holding a fresh block of a worker thread's heap,
// after the worker asked for huge pages.
std::string AdvisedWorkerHeapFlags() {
  std::string flags;
  std::thread worker([&] {
    AdviseThreadHeapHugePages();
    void* block = std::malloc(4096);
    if (block == nullptr) return;
    flags = VmFlagsAt(reinterpret_cast<uintptr_t>(block));
    std::free(block);
  });
  worker.join();
  return flags;
}

// Declared before the tests that configure the heap, which stays
// configured for the rest of the process.
TEST(LargeBufferTest, ThreadHeapAdviceWaitsForTheOneShotHeap) {
  if (!CanObserveHeapAdvice()) {
    GTEST_SKIP() << "no transparent huge pages, or ASan's allocator";
  }
  const std::string flags = AdvisedWorkerHeapFlags();
  ASSERT_FALSE(flags.empty());
  EXPECT_EQ(flags.find(" hg"), std::string::npos) << flags;
}

// Once configured, a worker thread's malloc arena takes the advice: its
// small blocks sit in memory that takes huge pages.
TEST(LargeBufferTest, OneShotHeapAdvisesAThreadsHeapForHugePages) {
  if (!CanObserveHeapAdvice()) {
    GTEST_SKIP() << "no transparent huge pages, or ASan's allocator";
  }
  ConfigureOneShotHeap();
  const std::string flags = AdvisedWorkerHeapFlags();
  EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
}

// The worker's heap is padded up to its next 2 MB page: a large block
// allocated after starts past the heap's first, which holds the arena's
// own header and so never takes a huge page.
TEST(LargeBufferTest, OneShotHeapPadsAThreadsHeapPastItsFirstHugePage) {
  if (!CanObserveHeapAdvice()) {
    GTEST_SKIP() << "no transparent huge pages, or ASan's allocator";
  }
  ConfigureOneShotHeap();
  constexpr uintptr_t kArenaHeapBytes = uintptr_t{64} << 20;
  uintptr_t offset = 0;
  std::thread worker([&] {
    AdviseThreadHeapHugePages();
    void* block = std::malloc(size_t{512} << 10);
    if (block == nullptr) return;
    offset = reinterpret_cast<uintptr_t>(block) & (kArenaHeapBytes - 1);
    std::free(block);
  });
  worker.join();
  EXPECT_GE(offset, uintptr_t{2} << 20);
}

// And the main thread's heap: a large block, which would otherwise be
// mapped on its own, comes from the heap's advised step.
TEST(LargeBufferTest, OneShotHeapAdvisesTheMainHeap) {
  if (!CanObserveHeapAdvice()) {
    GTEST_SKIP() << "no transparent huge pages, or ASan's allocator";
  }
  ConfigureOneShotHeap();
  constexpr size_t kBlock = size_t{8} << 20;
  char* block = static_cast<char*>(std::malloc(kBlock));
  ASSERT_NE(block, nullptr);
  const std::string flags =
      VmFlagsAt(reinterpret_cast<uintptr_t>(block + kBlock / 2));
  std::free(block);
  EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
}

}  // namespace
}  // namespace hlo::base
