// textDocument/publishDiagnostics: the parser's diagnostics and the
// verifier's findings (hlo/verify.h), with ranges.
#include "hlo/verify.h"
#include "server/features/features.h"

namespace hlo_lsp {

std::vector<Diagnostic> Diagnostics(const Snapshot& snap) {
  const hlo::ParsedFile& file = *snap.file;
  std::vector<Diagnostic> out;
  out.reserve(file.diagnostics.size() + 1);
  for (const hlo::Diagnostic& d : file.diagnostics) {
    out.push_back(Diagnostic{snap.ToRange(d.span),
                             d.severity == hlo::Severity::kError
                                 ? DiagnosticSeverity::kError
                                 : DiagnosticSeverity::kWarning,
                             d.message});
  }
  // The same findings `hlo-lsp check` prints with its default options.
  for (const hlo::Diagnostic& d : hlo::Verify(file)) {
    out.push_back(Diagnostic{snap.ToRange(d.span), DiagnosticSeverity::kError,
                             d.message});
  }
  if (file.diagnostics_truncated) {
    hlo::Span last =
        file.diagnostics.empty() ? hlo::Span{} : file.diagnostics.back().span;
    out.push_back(Diagnostic{snap.ToRange(last), DiagnosticSeverity::kWarning,
                             "too many diagnostics; the rest are not shown"});
  }
  return out;
}

}  // namespace hlo_lsp
