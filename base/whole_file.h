// The bytes of a whole file, read into memory: never mapped, because a
// mapped file that shrinks under us (a dump being rewritten) turns every
// read past its new end into SIGBUS. Only regular files are read unless a
// stream is asked for (`check -` reads stdin); a device or FIFO named by a
// path is refused, and every read stops at a byte limit.
#ifndef HLO_LSP_BASE_WHOLE_FILE_H_
#define HLO_LSP_BASE_WHOLE_FILE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "base/large_buffer.h"

namespace hlo::base {

class WholeFile {
 public:
  // The largest file any part of hlo-lsp reads (positions are 32-bit).
  static constexpr uint64_t kMaxBytes = uint64_t{4} << 30;

  struct Options {
    uint64_t max_bytes = kMaxBytes;
    // Pipes, terminals and character devices are read up to max_bytes.
    bool allow_stream = false;
    // When set, the first head_bytes are read and passed to it, with the
    // file's size (0 for a stream), before the rest: false ends the read
    // with DataLoss (a cache file with a wrong header costs one small read,
    // not the whole file).
    size_t head_bytes = 0;
    std::function<bool(std::string_view head, uint64_t file_size)> accept_head;
    // Read no more than head_bytes (of a regular file).
    bool head_only = false;
  };

  // Fails with "cannot read PATH: reason": NotFound when it does not exist,
  // InvalidArgument for a folder or a non-regular file (unless
  // allow_stream), ResourceExhausted over max_bytes or out of memory,
  // Unavailable for other I/O errors. The open never blocks (a FIFO with
  // no writer is refused, not waited on).
  static absl::StatusOr<WholeFile> Read(const std::string& path,
                                        const Options& options);
  static absl::StatusOr<WholeFile> Read(const std::string& path) {
    return Read(path, Options());
  }

  // The first `max_bytes` of a regular file (all of a shorter one), under
  // the same rules as Read: to sniff a file's kind without reading it all.
  static absl::StatusOr<WholeFile> ReadHead(const std::string& path,
                                            size_t max_bytes);

  WholeFile() = default;
  WholeFile(WholeFile&&) noexcept = default;
  WholeFile& operator=(WholeFile&&) noexcept = default;

  // 16-byte aligned (operator new[] or a mapping), so binary caches can be
  // cast in place.
  std::string_view bytes() const { return {data_.data(), size_}; }

 private:
  LargeBuffer data_;
  size_t size_ = 0;
};

}  // namespace hlo::base

#endif  // HLO_LSP_BASE_WHOLE_FILE_H_
