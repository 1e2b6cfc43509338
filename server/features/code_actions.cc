// Code actions: convert a proto to text; export text as a proto; replay on
// CPU, and on GPU where a device answers.
#include "exec/platform.h"
#include "server/common/proto_files.h"
#include "server/documents.h"
#include "server/features/workspace_features.h"

namespace hlo_lsp {
namespace {

CodeAction Action(const std::string& title, const std::string& command,
                  CommandArgs argument) {
  return CodeAction{title, "source",
                    Command{title, command, std::move(argument)}};
}

}  // namespace

std::vector<CodeAction> CodeActions(const CodeActionParams& params) {
  const std::string& uri = params.uri;
  if (IsProtoPath(UriToPath(uri))) {
    return {Action("Convert to HLO text", "hlo.convertToText", {uri})};
  }
  std::vector<CodeAction> out = {
      Action("Export as HloProto", "hlo.exportProto", {uri}),
      Action("Replay on CPU", "hlo.replay", {uri, "cpu"}),
  };
  // GPU actions only where a device answers (asked once, in a child process).
  if (hlo::exec::GpuBackendBuilt() &&
      hlo::exec::QueryGpuInChild().available()) {
    out.push_back(Action("Replay on GPU", "hlo.replay", {uri, "gpu"}));
    out.push_back(Action("Compare GPU with CPU", "hlo.compare",
                         {uri, std::nullopt, {"gpu", "cpu"}}));
  }
  return out;
}

}  // namespace hlo_lsp
