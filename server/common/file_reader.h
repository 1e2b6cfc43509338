// Reads a whole file for both faces: a thin face over base::WholeFile (read,
// never mapped; regular files only, except standard input when asked for;
// at most 4 GiB).
#ifndef HLO_LSP_SERVER_COMMON_FILE_READER_H_
#define HLO_LSP_SERVER_COMMON_FILE_READER_H_

#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "base/whole_file.h"

namespace hlo_lsp {

class FileContents {
 public:
  // `path` "-" reads standard input (a pipe or terminal too). Error messages
  // read "cannot read PATH: reason".
  static absl::StatusOr<FileContents> Read(const std::string& path);

  FileContents(FileContents&& other) noexcept = default;
  FileContents& operator=(FileContents&& other) noexcept = default;

  std::string_view text() const { return file_.bytes(); }

 private:
  explicit FileContents(hlo::base::WholeFile file) : file_(std::move(file)) {}

  hlo::base::WholeFile file_;
};

// Prints the status message to stderr as "hlo-lsp: MESSAGE".
void PrintError(const absl::Status& status);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_COMMON_FILE_READER_H_
