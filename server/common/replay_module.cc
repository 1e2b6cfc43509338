#include "server/common/replay_module.h"

#include <utility>

#include "exec/strings.h"
#include "server/common/file_reader.h"
#include "server/common/proto_files.h"
#include "server/common/snapshot.h"

namespace hlo_lsp {

using hlo::exec::Cat;

absl::StatusOr<ParsedModule> ReadModuleFile(const std::string& path) {
  absl::StatusOr<FileContents> contents = FileContents::Read(path);
  if (!contents.ok()) return contents.status();
  ParsedModule parsed;
  parsed.text = std::make_unique<std::string>(contents->text());
  if (HoldsProto(path, *parsed.text)) {
    absl::StatusOr<SnapshotContents> snapshot = LoadSnapshot(*parsed.text);
    if (!snapshot.ok() || snapshot->module_text.empty()) {
      return absl::FailedPreconditionError(
          Cat(path, ": ",
              snapshot.ok() ? "holds no module" : snapshot.status().message()));
    }
    *parsed.text = std::move(snapshot->module_text);
  }
  parsed.file = hlo::Parse(*parsed.text);
  if (parsed.file->HasErrors() || parsed.file->modules.empty()) {
    for (const hlo::Diagnostic& d : parsed.file->diagnostics) {
      if (d.severity != hlo::Severity::kError) continue;
      return absl::FailedPreconditionError(
          Cat(path, ":", parsed.file->lines().LineOf(d.span.begin) + 1,
              ": error: ", d.message));
    }
    return absl::FailedPreconditionError(Cat(path, ": no HLO module"));
  }
  return parsed;
}

}  // namespace hlo_lsp
