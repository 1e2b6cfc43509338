// Reads a whole file (both faces): mmap when it can (no copy of a
// 1 GB dump), a plain read otherwise (pipes, /dev/stdin, special files).
// A thin face over base::MappedFile.
#ifndef HLO_LSP_SERVER_COMMON_FILE_READER_H_
#define HLO_LSP_SERVER_COMMON_FILE_READER_H_

#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "base/mapped_file.h"

namespace hlo_lsp {

class FileContents {
 public:
  // Error messages read "cannot read PATH: reason".
  static absl::StatusOr<FileContents> Read(const std::string& path);

  FileContents(FileContents&& other) noexcept;
  FileContents& operator=(FileContents&& other) noexcept;
  FileContents(const FileContents&) = delete;
  FileContents& operator=(const FileContents&) = delete;
  ~FileContents();

  std::string_view text() const { return file_.bytes(); }

 private:
  explicit FileContents(hlo::base::MappedFile file) : file_(std::move(file)) {}

  hlo::base::MappedFile file_;
};

// Prints the status message to stderr as "hlo-lsp: MESSAGE".
void PrintError(const absl::Status& status);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_COMMON_FILE_READER_H_
