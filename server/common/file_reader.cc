#include "server/common/file_reader.h"

#include <cstdio>
#include <utility>

#include "absl/status/status.h"

namespace hlo_lsp {

absl::StatusOr<FileContents> FileContents::Read(const std::string& path) {
  hlo::base::WholeFile::Options options;
  options.allow_stream = path == "-";
  absl::StatusOr<hlo::base::WholeFile> file =
      hlo::base::WholeFile::Read(path == "-" ? "/dev/stdin" : path, options);
  if (!file.ok()) return file.status();
  return FileContents(*std::move(file));
}

void PrintError(const absl::Status& status) {
  std::string_view message(status.message().data(), status.message().size());
  std::fprintf(stderr, "hlo-lsp: %.*s\n", static_cast<int>(message.size()),
               message.data());
}

}  // namespace hlo_lsp
