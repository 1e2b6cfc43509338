#include "server/common/file_reader.h"

#include <cstdio>
#include <utility>

#include "absl/status/status.h"

namespace hlo_lsp {

absl::StatusOr<FileContents> FileContents::Read(const std::string& path) {
  absl::StatusOr<hlo::base::MappedFile> file = hlo::base::MappedFile::Read(
      path, hlo::base::MappedFile::Access::kSequential);
  if (!file.ok()) return file.status();
  return FileContents(*std::move(file));
}

FileContents::FileContents(FileContents&& other) noexcept = default;
FileContents& FileContents::operator=(FileContents&& other) noexcept = default;
FileContents::~FileContents() = default;

void PrintError(const absl::Status& status) {
  std::string_view message(status.message().data(), status.message().size());
  std::fprintf(stderr, "hlo-lsp: %.*s\n", static_cast<int>(message.size()),
               message.data());
}

}  // namespace hlo_lsp
