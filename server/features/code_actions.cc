// Code actions: convert a proto to text; export text as a proto; replay on
// CPU, and on GPU where a device answers; a bug-report bundle of a module's
// dump; finding the pass that changed a dump's result.
#include <filesystem>

#include "exec/platform.h"
#include "index/dump_name.h"
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

// By the name alone (no folder listing per request): XLA's dumps are
// `[TIMESTAMP.]module_NNNN.*`.
bool IsModuleDump(const std::string& path) {
  return hlo::index::ParseDumpFileName(
             std::filesystem::path(path).filename().string())
             .module_id >= 0;
}

CodeAction BundleAction(const std::string& uri) {
  return Action("Create bug-report bundle", "hlo.bundle", {uri});
}

CodeAction BisectAction(const std::string& uri) {
  return Action("Find the pass that changed the result", "hlo.bisect", {uri});
}

}  // namespace

std::vector<CodeAction> CodeActions(const CodeActionParams& params) {
  // A proto's text view acts on the proto file itself: the commands need a
  // file URI.
  const std::string uri = ProtoViewSource(params.uri);
  const std::string path = UriToPath(uri);
  const bool dump = IsModuleDump(path);
  if (IsProtoPath(path)) {
    std::vector<CodeAction> out = {
        Action("Convert to HLO text", "hlo.convertToText", {uri})};
    if (dump) out.push_back(BundleAction(uri));
    return out;
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
  // Bundle stays last: clients and tests find it there.
  if (dump) out.push_back(BisectAction(uri));
  if (dump) out.push_back(BundleAction(uri));
  return out;
}

}  // namespace hlo_lsp
