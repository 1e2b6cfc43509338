#include "index/file_bytes.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "index/dump_name.h"

namespace hlo::index {

FileBytes::Buffer::~Buffer() {
  if (data_ != nullptr) ::munmap(data_, kReadLimit);
}

char* FileBytes::Buffer::data() {
  if (data_ == nullptr) {
    void* p = ::mmap(nullptr, kReadLimit, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    ::madvise(p, kReadLimit, MADV_HUGEPAGE);  // advice: may be refused
    data_ = static_cast<char*>(p);
  }
  return data_;
}

FileBytes::~FileBytes() {
  if (fd_ >= 0) ::close(fd_);
}

bool FileBytes::Open(const std::string& path, FileKey* key, Buffer* buffer,
                     bool* is_hlo, std::string* error) {
  path_ = &path;
  // O_NONBLOCK: a file replaced by a FIFO since discovery must not block.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st;
  if (fd_ < 0 || ::fstat(fd_, &st) != 0) {
    *error = path + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    *error = path + ": not a regular file";
    return false;
  }
  size_ = static_cast<size_t>(st.st_size);
  FillKeyFromStat(st, key);
  if (size_ >= (uint64_t{1} << 32)) {
    *error = path + ": larger than 4 GiB, not indexed";
    return false;
  }
  *is_hlo = false;
  if (size_ == 0) return true;
  // Read, never mapped: a mapped file that shrinks while it is scanned
  // raises SIGBUS; a read just ends early.
  if (size_ > kReadLimit) {
    large_ = base::LargeBuffer::Allocate(size_);
    data_ = large_.data();
  } else {
    data_ = buffer->data();
  }
  if (data_ == nullptr) {
    *error = path + ": no memory to read it";
    return false;
  }
  // The head first: most files that are not HLO stop there.
  if (!ReadUpTo(std::min(size_, kSniffBytes), error)) return false;
  *is_hlo = LooksLikeHloText(bytes_);
  return true;
}

bool FileBytes::ReadAll(ChunkCutter* cutter, std::string* error) {
  // Pieces small enough to still be in cache when they are cut.
  constexpr size_t kPiece = 256 << 10;
  if (cutter != nullptr) cutter->Advance(bytes_.size());
  while (bytes_.size() < size_) {
    size_t before = bytes_.size();
    if (!ReadUpTo(std::min(size_, before + kPiece), error)) return false;
    if (bytes_.size() == before) break;  // shrank since fstat
    if (cutter != nullptr) cutter->Advance(bytes_.size());
  }
  return true;
}

bool FileBytes::ReadUpTo(size_t want, std::string* error) {
  size_t have = bytes_.size();
  while (have < want) {
    ssize_t n = ::read(fd_, data_ + have, want - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = *path_ + ": " + std::strerror(errno);
      return false;
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  bytes_ = std::string_view(data_, have);
  return true;
}

}  // namespace hlo::index
