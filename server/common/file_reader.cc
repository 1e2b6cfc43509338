#include "server/common/file_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/status/status.h"

namespace hlo_lsp {
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

absl::StatusOr<FileContents> FileContents::Read(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(path, errno);
  FdCloser closer{fd};
  struct stat info;
  if (::fstat(fd, &info) != 0) return ErrnoError(path, errno);
  if (S_ISDIR(info.st_mode)) return ErrnoError(path, EISDIR);

  FileContents contents;
  if (S_ISREG(info.st_mode) && info.st_size > 0) {
    size_t size = static_cast<size_t>(info.st_size);
    void* mapping = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping != MAP_FAILED) {
      ::madvise(mapping, size, MADV_SEQUENTIAL);
      contents.mapping_ = mapping;
      contents.mapping_size_ = size;
      contents.text_ = std::string_view(static_cast<const char*>(mapping), size);
      return contents;
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
    contents.buffer_.append(chunk, static_cast<size_t>(n));
  }
  contents.text_ = contents.buffer_;
  return contents;
}

FileContents::FileContents(FileContents&& other) noexcept {
  *this = std::move(other);
}

FileContents& FileContents::operator=(FileContents&& other) noexcept {
  if (this == &other) return *this;
  Release();
  mapping_ = std::exchange(other.mapping_, nullptr);
  mapping_size_ = std::exchange(other.mapping_size_, 0);
  buffer_ = std::move(other.buffer_);
  // The view points into the mapping (stable) or into buffer_ (moved: re-point).
  text_ = mapping_ ? std::exchange(other.text_, {}) : std::string_view(buffer_);
  other.text_ = {};
  return *this;
}

FileContents::~FileContents() { Release(); }

void FileContents::Release() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_size_);
  mapping_ = nullptr;
  mapping_size_ = 0;
  text_ = {};
}

void PrintError(const absl::Status& status) {
  std::string_view message(status.message().data(), status.message().size());
  std::fprintf(stderr, "hlo-lsp: %.*s\n", static_cast<int>(message.size()),
               message.data());
}

}  // namespace hlo_lsp
