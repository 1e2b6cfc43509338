// The bytes of a whole file, read-only: mapped when it is a regular file
// (no copy of a 1 GB dump), read into memory otherwise (pipes, /dev/stdin,
// character devices, or a file the kernel will not map).
#ifndef HLO_LSP_BASE_MAPPED_FILE_H_
#define HLO_LSP_BASE_MAPPED_FILE_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace hlo::base {

class MappedFile {
 public:
  // How the mapping will be read.
  enum class Access {
    kSequential,  // once, front to back: the kernel reads ahead
    kPopulate,    // all of it soon: fault every page in up front
  };

  // Fails with "cannot read PATH: reason" (NotFound when the file does not
  // exist, Unavailable otherwise; a folder is an error).
  static absl::StatusOr<MappedFile> Read(const std::string& path,
                                         Access access = Access::kSequential);

  MappedFile() = default;  // empty
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view bytes() const { return bytes_; }
  // Whether bytes() lies in a mapping (else in a copy).
  bool mapped() const { return mapping_ != nullptr; }

 private:
  void Release();

  std::string_view bytes_;
  void* mapping_ = nullptr;  // munmap'ed by Release when set
  size_t mapping_size_ = 0;
  std::string buffer_;  // the fallback copy
};

}  // namespace hlo::base

#endif  // HLO_LSP_BASE_MAPPED_FILE_H_
