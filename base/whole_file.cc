#include "base/whole_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace hlo::base {
namespace {

absl::Status ErrnoError(const std::string& path, int error) {
  std::string message =
      absl::StrCat("cannot read ", path, ": ", std::strerror(error));
  return error == ENOENT ? absl::NotFoundError(message)
                         : absl::UnavailableError(message);
}

// Closes the descriptor on every path out of Read.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

// A buffer that grows (for streams) without zero-filling what read() fills.
class Buffer {
 public:
  bool Reserve(size_t capacity) {
    if (capacity <= capacity_) return true;
    LargeBuffer bigger = LargeBuffer::Allocate(capacity);
    if (bigger.data() == nullptr) return false;
    if (size_ > 0) std::memcpy(bigger.data(), data_.data(), size_);
    data_ = std::move(bigger);
    capacity_ = capacity;
    return true;
  }
  // Reads until `limit` bytes are held or the file ends; false on error.
  bool ReadUpTo(int fd, size_t limit, bool* at_end) {
    *at_end = false;
    while (size_ < limit) {
      ssize_t n = ::read(fd, data_.data() + size_, limit - size_);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return false;
      if (n == 0) {
        *at_end = true;
        break;
      }
      size_ += static_cast<size_t>(n);
    }
    return true;
  }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  LargeBuffer Take() { return std::move(data_); }
  std::string_view view() const { return {data_.data(), size_}; }

 private:
  LargeBuffer data_;
  size_t size_ = 0, capacity_ = 0;
};

absl::Status TooLarge(const std::string& path, uint64_t limit) {
  return absl::ResourceExhaustedError(
      absl::StrCat("cannot read ", path, ": larger than ", limit, " bytes"));
}

}  // namespace

absl::StatusOr<WholeFile> WholeFile::Read(const std::string& path,
                                          const Options& options) {
  // O_NONBLOCK: opening a FIFO with no writer returns at once.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return ErrnoError(path, errno);
  FdCloser closer{fd};
  struct stat info;
  if (::fstat(fd, &info) != 0) return ErrnoError(path, errno);
  if (S_ISDIR(info.st_mode)) {
    return absl::InvalidArgumentError("cannot read " + path + ": " +
                                      std::strerror(EISDIR));
  }
  const bool regular = S_ISREG(info.st_mode);
  if (!regular && !options.allow_stream) {
    return absl::InvalidArgumentError("cannot read " + path +
                                      ": not a regular file");
  }
  if (!regular) {
    // A stream the caller asked for (stdin): wait for its writer normally.
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  }
  const uint64_t limit = options.max_bytes;
  if (regular && static_cast<uint64_t>(info.st_size) > limit) {
    return TooLarge(path, limit);
  }
  uint64_t size = static_cast<uint64_t>(info.st_size);
  if (options.head_only) size = std::min<uint64_t>(size, options.head_bytes);

  Buffer buffer;
  // A regular file is read as long as it was when opened: one that grows
  // meanwhile is cut there, one that shrinks ends early.
  size_t want = regular
                    ? static_cast<size_t>(size)
                    : static_cast<size_t>(std::min<uint64_t>(limit, 1 << 16));
  auto reserve = [&](size_t bytes) -> absl::Status {
    if (buffer.Reserve(std::max<size_t>(bytes, 1))) return absl::OkStatus();
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot read ", path, ": no memory for ", bytes, " bytes"));
  };
  bool at_end = false;
  if (options.accept_head || options.head_only) {
    // The head alone first: a refused header costs no more memory.
    size_t head = std::min(want, options.head_bytes);
    if (absl::Status s = reserve(head); !s.ok()) return s;
    if (!buffer.ReadUpTo(fd, head, &at_end)) return ErrnoError(path, errno);
    at_end |= options.head_only;
  }
  if (options.accept_head &&
      !options.accept_head(buffer.view(),
                           regular ? static_cast<uint64_t>(info.st_size) : 0)) {
    return absl::DataLossError("cannot read " + path + ": unexpected header");
  }
  if (!at_end) {
    if (absl::Status s = reserve(want); !s.ok()) return s;
  }
  for (;;) {
    if (!at_end && !buffer.ReadUpTo(fd, buffer.capacity(), &at_end)) {
      return ErrnoError(path, errno);
    }
    if (regular || at_end) break;
    if (buffer.size() >= limit) {
      // Full at the limit: one more byte says whether the stream ends here.
      char probe;
      ssize_t n;
      do {
        n = ::read(fd, &probe, 1);
      } while (n < 0 && errno == EINTR);
      if (n > 0) return TooLarge(path, limit);
      break;
    }
    size_t next = static_cast<size_t>(
        std::min<uint64_t>(limit, uint64_t{buffer.capacity()} * 2));
    if (absl::Status s = reserve(next); !s.ok()) return s;
  }
  WholeFile file;
  file.size_ = buffer.size();
  file.data_ = buffer.Take();
  return file;
}

absl::StatusOr<WholeFile> WholeFile::ReadHead(const std::string& path,
                                              size_t max_bytes) {
  Options options;
  options.max_bytes = UINT64_MAX;  // the file may be larger than its head
  options.head_bytes = max_bytes;
  options.head_only = true;
  return Read(path, options);
}

}  // namespace hlo::base
