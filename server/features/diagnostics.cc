// textDocument/publishDiagnostics: the parser's diagnostics and the
// verifier's findings (hlo/verify.h), with ranges and, where a finding has
// another side (the start of a done, the first definition), that place as
// relatedInformation.
#include "hlo/verify.h"
#include "server/features/features.h"

namespace hlo_lsp {
namespace {

Diagnostic ToLsp(const Snapshot& snap, const hlo::Diagnostic& d) {
  Diagnostic out{snap.ToRange(d.span),
                 d.severity == hlo::Severity::kError
                     ? DiagnosticSeverity::kError
                     : DiagnosticSeverity::kWarning,
                 d.message};
  out.related.reserve(d.related.size());
  for (const hlo::RelatedSpan& r : d.related) {
    out.related.push_back(
        {Location{snap.uri, snap.ToRange(r.span)}, r.message});
  }
  return out;
}

}  // namespace

std::vector<Diagnostic> Diagnostics(const Snapshot& snap,
                                    const DiagnosticsOptions& options) {
  const hlo::ParsedFile& file = *snap.file;
  std::vector<Diagnostic> out;
  out.reserve(file.diagnostics.size() + 1);
  for (const hlo::Diagnostic& d : file.diagnostics) {
    out.push_back(ToLsp(snap, d));
  }
  // The same findings `hlo-lsp check` prints with the same options.
  if (options.verify) {
    for (const hlo::Diagnostic& d : hlo::Verify(file, options.verifier)) {
      out.push_back(ToLsp(snap, d));
    }
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
