#include "base/large_buffer.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <utility>

namespace hlo::base {
namespace {

constexpr size_t kHeapStepBytes = size_t{64} << 20;

std::atomic<bool> one_shot_heap{false};

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
  const uintptr_t huge = uintptr_t{2} << 20;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (begin + huge - 1) / huge * huge;
  const uintptr_t last = (begin + size) / huge * huge;
  if (first < last) {
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  }
}

void PrefaultForWrite(void* data, size_t size) {
#ifdef MADV_POPULATE_WRITE
  const uintptr_t page = 4096;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data) / page * page;
  const uintptr_t end =
      (reinterpret_cast<uintptr_t>(data) + size + page - 1) / page * page;
  if (data != nullptr && begin < end) {
    ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
  }
#else
  (void)data;
  (void)size;
#endif
}

void ConfigureOneShotHeap() {
  ::mallopt(M_MMAP_THRESHOLD, 256 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
  ::mallopt(M_TOP_PAD, static_cast<int>(kHeapStepBytes));
  one_shot_heap = true;
  // An allocation past the main heap's top grows it (brk) by a step: the
  // whole 2 MB pages between here and the new top take the advice.
  void* probe = std::malloc(size_t{256} << 10);
  if (probe == nullptr) return;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(probe);
  const uintptr_t top = reinterpret_cast<uintptr_t>(::sbrk(0));
  std::free(probe);
  if (top != ~uintptr_t{0} && begin < top &&
      top - begin <= 2 * kHeapStepBytes) {
    AdviseHugePages(reinterpret_cast<void*>(begin), top - begin);
  }
}

void AdviseThreadHeapHugePages() {
  if (!one_shot_heap) return;
  constexpr uintptr_t kArenaHeapBytes = uintptr_t{64} << 20;  // glibc's
  void* probe = std::malloc(64);
  if (probe == nullptr) return;
  const uintptr_t heap =
      reinterpret_cast<uintptr_t>(probe) & ~(kArenaHeapBytes - 1);
  std::free(probe);
  ::madvise(reinterpret_cast<void*>(heap), kArenaHeapBytes, MADV_HUGEPAGE);
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
