#include "server/cli/replay_compare.h"

#include <utility>

#include "exec/strings.h"
#include "hlo/parser.h"
#include "hlo/proto/decode.h"
#include "server/cli/commands.h"
#include "server/common/file_reader.h"
#include "server/common/snapshot.h"

namespace hlo_lsp::cli {

using hlo::exec::Cat;

SecondModuleRun RunSecondModule(const std::string& path,
                                hlo::exec::ReplayOptions options,
                                const hlo::exec::ReplayResult& first,
                                double atol, double rtol) {
  SecondModuleRun run;
  auto fail = [&](int code, std::string error) {
    run.exit_code = code;
    run.error = std::move(error);
    return run;
  };
  absl::StatusOr<FileContents> contents = FileContents::Read(path);
  if (!contents.ok()) {
    return fail(kExitUsage, std::string(contents.status().message()));
  }
  std::string text(contents->text());
  // A proto (a snapshot, an HloProto, gzip'd or text) holds its module.
  if (hlo::proto::LooksLikeBinaryProto(text) || hlo::proto::IsGzip(text) ||
      (path.ends_with(".pbtxt") && !hlo::proto::StartsWithHloModule(text))) {
    absl::StatusOr<SnapshotContents> snapshot = LoadSnapshot(text);
    if (!snapshot.ok() || snapshot->module_text.empty()) {
      return fail(kExitNo, Cat(path, ": ",
                               snapshot.ok() ? "holds no module"
                                             : snapshot.status().message()));
    }
    text = snapshot->module_text;
  }
  std::unique_ptr<hlo::ParsedFile> file = hlo::Parse(text);
  if (file->HasErrors() || file->modules.empty()) {
    for (const hlo::Diagnostic& d : file->diagnostics) {
      if (d.severity != hlo::Severity::kError) continue;
      return fail(kExitNo,
                  Cat(path, ":", file->lines().LineOf(d.span.begin) + 1,
                      ": error: ", d.message));
    }
    return fail(kExitNo, Cat(path, ": no HLO module"));
  }
  options.arguments.clear();
  for (const auto& [name, value] : first.arguments) {
    options.arguments.push_back(value);
  }
  options.arguments_given = true;
  options.compare_with_cpu = false;
  hlo::exec::ReplayResult second = hlo::exec::Replay(*file, 0, options);
  if (second.outcome == hlo::exec::ReplayOutcome::kRefused) {
    return fail(kExitNo, Cat(path, ": ", second.error));
  }
  if (second.outcome == hlo::exec::ReplayOutcome::kFailed) {
    return fail(kExitFailed, Cat(path, ": ", second.error));
  }
  run.mismatches =
      hlo::exec::CompareOutputs(first.outputs, second.outputs, atol, rtol);
  return run;
}

}  // namespace hlo_lsp::cli
