// A module file for replay: how its bytes are read (HLO text or a proto
// holding a module) and parsed, shared by the first module, `--compare
// MODULE2`, each dump of `--bisect` and the
// editor's bisection (bisect.h).
#ifndef HLO_LSP_SERVER_COMMON_REPLAY_MODULE_H_
#define HLO_LSP_SERVER_COMMON_REPLAY_MODULE_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hlo/parser.h"

namespace hlo_lsp {

struct ParsedModule {
  std::unique_ptr<std::string> text;  // the parse's views point into it
  std::unique_ptr<hlo::ParsedFile> file;
};

// Reads `path` (HLO text, or a proto holding a module) and parses its
// module. Bad input (a proto without a module, a syntax error: "PATH:LINE:
// error: MESSAGE") is FailedPrecondition; a file that cannot be read keeps
// its read error ("cannot read PATH: ...").
absl::StatusOr<ParsedModule> ReadModuleFile(const std::string& path);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_COMMON_REPLAY_MODULE_H_
