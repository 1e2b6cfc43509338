#include "server/cli/hlo_input.h"

#include <cstdio>
#include <string>

#include "absl/status/statusor.h"
#include "server/common/proto_files.h"

namespace hlo_lsp::cli {

HloInputError ReadHloInput(const std::string& path, HloInput* input) {
  absl::StatusOr<FileContents> contents = FileContents::Read(path);
  if (!contents.ok()) {
    PrintError(contents.status());
    return HloInputError::kRead;
  }
  input->contents.emplace(std::move(*contents));
  // A proto (by name or content: XLA's text snapshots are `.txt`) reads as
  // its text view, the text `convert` prints.
  absl::StatusOr<std::string_view> text =
      HloTextOf(path, input->contents->text(), &input->converted);
  if (!text.ok()) {
    std::fprintf(stderr, "hlo-lsp: %s: %s\n", path.c_str(),
                 std::string(text.status().message()).c_str());
    return HloInputError::kDecode;
  }
  input->text = *text;
  return HloInputError::kNone;
}

}  // namespace hlo_lsp::cli
