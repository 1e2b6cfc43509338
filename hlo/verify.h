// The verifier behind `hlo-lsp check` and the editor's diagnostics: XLA's
// HloVerifier (and the semantic checks of XLA's parser) over a parsed file.
// Each family of checks lives in its own file (shape_inference.cc for the
// shapes, verify_*.cc for the rest); this runs them all with one set of
// options, so the CLI, the editor and the tests see the same findings.
#ifndef HLO_LSP_HLO_VERIFY_H_
#define HLO_LSP_HLO_VERIFY_H_

#include <string>
#include <string_view>
#include <vector>

#include "hlo/syntax.h"

namespace hlo {

// XLA's HloVerifierOpts switches that change what we report. The defaults
// are the file's choice (mixed precision allowed: real dumps mix them);
// ParseVerifierOptions gives XLA's defaults plus what a list names.
struct VerifierOptions {
  bool allow_mixed_precision = true;
  bool layout_sensitive = false;
  // verify_call_nested_computation_thread_name: calls, custom-calls and
  // to_apply computations run on their caller's thread.
  bool call_nested_computation_thread_name = false;
  // verify_no_collective_deadlocks: a scheduled module's send/recv pair up
  // with no other collective between them.
  bool no_collective_deadlocks = false;
  // Rules today's XLA enforces that older dumps break (a custom-call's
  // api_version=API_VERSION_UNSPECIFIED): on with an explicit --verify=
  // list, off for the file's own choice so old dumps stay clean.
  bool todays_rules = false;
  // XLA's opt-in checks, each under its HloVerifierOpts name.
  bool allow_unbounded_dynamism = false;
  bool verify_broadcast_dimensions_order = false;
  bool verify_reshape_is_bitcast = false;
  bool verify_no_host_memory_space = false;
  bool verify_instruction_name_unchanged = false;

  bool operator==(const VerifierOptions&) const = default;
};

// Parses `--verify=LIST` (comma-separated HloVerifierOpts names, `default`
// for none): XLA's defaults plus each option named. False, with `bad` set,
// on an unknown name.
bool ParseVerifierOptions(std::string_view list, VerifierOptions* options,
                          std::string* bad);

// Every verifier finding of `file` (errors), in no particular order. The
// parser's own diagnostics are not repeated.
std::vector<Diagnostic> Verify(const ParsedFile& file,
                               const VerifierOptions& options = {});

}  // namespace hlo

#endif  // HLO_LSP_HLO_VERIFY_H_
