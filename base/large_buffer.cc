#include "base/large_buffer.h"

#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <utility>

namespace hlo::base {
namespace {

constexpr size_t kHeapStepBytes = size_t{64} << 20;

constexpr uintptr_t kHugePageBytes = uintptr_t{2} << 20;

std::atomic<bool> one_shot_heap{false};

// Blocks kept for the life of the process (reachable, so no leak).
constexpr int kMaxPads = 64;
std::atomic<void*> pads[kMaxPads];
std::atomic<int> pad_count{0};

// Where the calling thread's next large block starts: a block past the
// small-size caches, allocated and freed, leaves its place to the next.
uintptr_t NextLargeBlock() {
  void* probe = std::malloc(size_t{256} << 10);
  if (probe == nullptr) return 0;
  std::free(probe);
  return reinterpret_cast<uintptr_t>(probe);
}

// Moves the calling thread's heap top up to the next 2 MB boundary with a
// block kept for good, so that what is allocated after sits in whole huge
// pages. A heap's first 2 MB page holds blocks already written (4 KB
// pages), and the megabytes of blocks that followed them were faulted in
// 4 KB at a time too. The block's pages past its first are never touched.
void PadHeapToHugePage(uintptr_t next) {
  const uintptr_t boundary =
      (next + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  // glibc's block header (16 bytes) precedes `next`: a request of
  // boundary - next - 8 bytes takes a block ending 16 bytes short of the
  // boundary, where the next header goes.
  if (next == 0 || boundary - next < 64) return;
  const int slot = pad_count.fetch_add(1);
  if (slot >= kMaxPads) return;
  void* pad = std::malloc(boundary - next - 8);
  if (pad != reinterpret_cast<void*>(next)) {  // not the heap's top: no use
    std::free(pad);
    return;
  }
  pads[slot] = pad;
}

}  // namespace

LargeBuffer LargeBuffer::Allocate(size_t size) {
  LargeBuffer buffer;
  if (size >= kMapFrom) {
    const size_t huge = size_t{2} << 20;
    size_t rounded = (size + huge - 1) / huge * huge;
    void* p = ::mmap(nullptr, rounded, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return buffer;
    ::madvise(p, rounded, MADV_HUGEPAGE);  // advice: may be refused
    buffer.data_ = static_cast<char*>(p);
    buffer.mapped_size_ = rounded;
  } else {
    buffer.data_ = new (std::nothrow) char[size == 0 ? 1 : size];
    if (buffer.data_ == nullptr) return buffer;
  }
  buffer.size_ = size;
  return buffer;
}

void AdviseHugePages(void* data, size_t size) {
  const uintptr_t huge = kHugePageBytes;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (begin + huge - 1) / huge * huge;
  const uintptr_t last = (begin + size) / huge * huge;
  if (first < last) {
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  }
}

void ConfigureOneShotHeap() {
  // Under an address-space limit (ulimit -v) the 64 MB steps count against
  // it, and glibc does not retry a failed step smaller: keep its defaults.
  struct rlimit limit;
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    return;
  }
  ::mallopt(M_MMAP_THRESHOLD, 256 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
  ::mallopt(M_TOP_PAD, static_cast<int>(kHeapStepBytes));
  one_shot_heap = true;
  // A large block past the main heap's top grows it (brk) by a step: the
  // whole 2 MB pages between there and the new top take the advice.
  const uintptr_t next = NextLargeBlock();
  const uintptr_t top = reinterpret_cast<uintptr_t>(::sbrk(0));
  if (next == 0 || top == ~uintptr_t{0} || next >= top ||
      top - next > 2 * kHeapStepBytes) {
    return;  // not glibc's brk heap
  }
  AdviseHugePages(reinterpret_cast<void*>(next), top - next);
  PadHeapToHugePage(next);
}

void AdviseThreadHeapHugePages() {
  if (!one_shot_heap) return;
  constexpr uintptr_t kArenaHeapBytes = uintptr_t{64} << 20;  // glibc's
  const uintptr_t next = NextLargeBlock();
  if (next == 0) return;
  const uintptr_t heap = next & ~(kArenaHeapBytes - 1);
  ::madvise(reinterpret_cast<void*>(heap), kArenaHeapBytes, MADV_HUGEPAGE);
  PadHeapToHugePage(next);
}

LargeBuffer::LargeBuffer(LargeBuffer&& other) noexcept {
  *this = std::move(other);
}

LargeBuffer& LargeBuffer::operator=(LargeBuffer&& other) noexcept {
  if (this == &other) return *this;
  Release();
  data_ = std::exchange(other.data_, nullptr);
  size_ = std::exchange(other.size_, 0);
  mapped_size_ = std::exchange(other.mapped_size_, 0);
  return *this;
}

LargeBuffer::~LargeBuffer() { Release(); }

void LargeBuffer::Release() {
  if (data_ != nullptr) {
    if (mapped_size_ != 0) {
      ::munmap(data_, mapped_size_);
    } else {
      delete[] data_;
    }
  }
  data_ = nullptr;
  size_ = 0;
  mapped_size_ = 0;
}

}  // namespace hlo::base
