#include "base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"

namespace hlo::base {
namespace {

absl::Status ErrnoError(const std::string& path, int error) {
  std::string message = "cannot read " + path + ": " + std::strerror(error);
  return error == ENOENT ? absl::NotFoundError(message)
                         : absl::UnavailableError(message);
}

// Closes the descriptor on every path out of Read.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

}  // namespace

absl::StatusOr<MappedFile> MappedFile::Read(const std::string& path,
                                            Access access) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(path, errno);
  FdCloser closer{fd};
  struct stat info;
  if (::fstat(fd, &info) != 0) return ErrnoError(path, errno);
  if (S_ISDIR(info.st_mode)) return ErrnoError(path, EISDIR);

  MappedFile file;
  if (S_ISREG(info.st_mode) && info.st_size > 0) {
    size_t size = static_cast<size_t>(info.st_size);
    int flags = MAP_PRIVATE;
    if (access == Access::kPopulate) flags |= MAP_POPULATE;
    void* mapping = ::mmap(nullptr, size, PROT_READ, flags, fd, 0);
    if (mapping != MAP_FAILED) {
      if (access == Access::kSequential) {
        ::madvise(mapping, size, MADV_SEQUENTIAL);
      }
      file.mapping_ = mapping;
      file.mapping_size_ = size;
      file.bytes_ = std::string_view(static_cast<const char*>(mapping), size);
      return file;
    }
  }
  // Pipes, character devices, empty files, or mmap refused: read it all.
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(path, errno);
    }
    file.buffer_.append(chunk, static_cast<size_t>(n));
  }
  file.bytes_ = file.buffer_;
  return file;
}

MappedFile::MappedFile(MappedFile&& other) noexcept {
  *this = std::move(other);
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this == &other) return *this;
  Release();
  mapping_ = std::exchange(other.mapping_, nullptr);
  mapping_size_ = std::exchange(other.mapping_size_, 0);
  buffer_ = std::move(other.buffer_);
  // The view points into the mapping (stable) or into buffer_ (moved:
  // re-point it).
  bytes_ = mapping_ ? other.bytes_ : std::string_view(buffer_);
  other.bytes_ = {};
  return *this;
}

MappedFile::~MappedFile() { Release(); }

void MappedFile::Release() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_size_);
  mapping_ = nullptr;
  mapping_size_ = 0;
  bytes_ = {};
}

}  // namespace hlo::base
