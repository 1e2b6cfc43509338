// How WorkspaceIndex reads an indexed file's bytes, once, in pieces that are
// cut into chunks while they are in the CPU's cache: files up to kReadLimit
// into a buffer reused by the thread, larger ones into a buffer of their
// own. Never mapped: a mapped file that shrinks under us raises SIGBUS. A
// file that does not start like HLO is read no further than its first
// kSniffBytes.
//
// Not base::WholeFile: this reads in pieces into a per-thread buffer, stops
// after the head of non-HLO files, and takes the file's key (size, times,
// inode) from the same descriptor it reads.
#ifndef HLO_LSP_INDEX_FILE_BYTES_H_
#define HLO_LSP_INDEX_FILE_BYTES_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "base/large_buffer.h"
#include "index/chunking.h"
#include "index/shard.h"

namespace hlo::index {

// Bytes sniffed for "is this HLO?" before scanning the whole file.
constexpr size_t kSniffBytes = 64 << 10;

class FileBytes {
 public:
  static constexpr size_t kReadLimit = 16 << 20;
  // One per thread, reused by each file it reads: kReadLimit bytes of
  // address space, backed only as far as files reach, in huge pages where
  // the kernel allows (4 KB pages would each cost a fault on first use).
  class Buffer {
   public:
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer();
    char* data();

   private:
    char* data_ = nullptr;
  };

  FileBytes() = default;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  ~FileBytes();
  // On success `key` is refreshed from the open descriptor, `is_hlo` set,
  // and bytes() holds the head of the file.
  bool Open(const std::string& path, FileKey* key, Buffer* buffer, bool* is_hlo,
            std::string* error);

  // Where the whole file will be, and how long fstat said it is.
  const char* data() const { return data_; }
  size_t expected_size() const { return size_; }

  // Reads the rest of the file, cutting it into chunks piece by piece (a
  // null `cutter`: just reading, as for a proto, decoded whole).
  bool ReadAll(ChunkCutter* cutter, std::string* error);
  std::string_view bytes() const { return bytes_; }

 private:
  // Reads on until bytes() reaches `want` or the file ends (it may have
  // shrunk since fstat).
  bool ReadUpTo(size_t want, std::string* error);

  const std::string* path_ = nullptr;
  char* data_ = nullptr;
  int fd_ = -1;
  base::LargeBuffer large_;  // a file over kReadLimit
  size_t size_ = 0;
  std::string_view bytes_;
};

}  // namespace hlo::index

#endif  // HLO_LSP_INDEX_FILE_BYTES_H_
