// Uninitialised bytes for reading a whole file into. Big ones are anonymous
// mappings advised to use huge pages: a 4 KB page costs a fault on first
// touch, tens of microseconds on a virtual machine, so a 20 MB buffer in
// 4 KB pages cost 5,000 faults (more than the read) where 2 MB pages cost
// ten. Small ones come from the heap.
#ifndef HLO_LSP_BASE_LARGE_BUFFER_H_
#define HLO_LSP_BASE_LARGE_BUFFER_H_

#include <cstddef>

namespace hlo::base {

class LargeBuffer {
 public:
  // Buffers from this size on are mapped (and 2 MB aligned in size).
  static constexpr size_t kMapFrom = size_t{2} << 20;

  // An empty buffer (data() is null) when memory is short: never throws.
  static LargeBuffer Allocate(size_t size);

  LargeBuffer() = default;
  LargeBuffer(LargeBuffer&& other) noexcept;
  LargeBuffer& operator=(LargeBuffer&& other) noexcept;
  LargeBuffer(const LargeBuffer&) = delete;
  LargeBuffer& operator=(const LargeBuffer&) = delete;
  ~LargeBuffer();

  char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void Release();

  char* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_size_ = 0;  // 0: from the heap
};

// Advises huge pages for the whole 2 MB pages inside [data, data + size),
// memory not yet touched (a string's fresh reserve): the same fault saving
// for a buffer another owner allocated. Advice only; may be refused.
void AdviseHugePages(void* data, size_t size);

// For a command that runs once and exits: freed memory stays with malloc
// for reuse instead of going back to the kernel (to be faulted in again),
// heaps grow 64 MB at a time, and the main thread's first 64 MB step is
// advised huge pages, its top moved up to a 2 MB boundary first (the
// blocks below it are in 4 KB pages already). A 4 KB page's first-touch
// fault costs about as much as printing or parsing it; one 2 MB fault
// replaces 512 of them (a third of `convert`'s CPU time on a 5 MB module
// went to faults). Nothing under an address-space limit (ulimit -v), which
// the 64 MB steps would count against.
void ConfigureOneShotHeap();

// Advises huge pages for the calling thread's malloc heap and moves its
// top up to the heap's second 2 MB page, once ConfigureOneShotHeap has run
// (a no-op before: a thread's heap then grows 132 KB at a time and whole
// 2 MB pages rarely fit). glibc gives each thread past the first its own
// arena, reserved as a 64 MB region aligned to its size, and a worker that
// parses file after file faults it in 4 KB at a time: thousands of faults
// per process (a tenth of `check`'s CPU time on a dump folder). Advice
// only: under another allocator or layout it is refused or advises memory
// that is reserved anyway.
void AdviseThreadHeapHugePages();

}  // namespace hlo::base

#endif  // HLO_LSP_BASE_LARGE_BUFFER_H_
