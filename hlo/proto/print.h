// HLO text from a decoded HloModuleProto, in XLA's long-text conventions
// (`%` names, operand shapes with layouts, attributes in XLA's order,
// metadata, backend_config, sharding, `/*index=N*/` every 5th operand), so
// that hlo::Parse reads it back with the same computations, instructions,
// shapes and references.
#ifndef HLO_LSP_HLO_PROTO_PRINT_H_
#define HLO_LSP_HLO_PROTO_PRINT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "hlo/proto/decode.h"
#include "hlo/proto/hlo.pb.h"

namespace hlo::proto {

struct PrintOptions {
  // Constants with more elements print as `{...}` (the parser zero-fills).
  int64_t max_constant_elements = 100000;
  // Snapshot arguments/results with more elements print as `{...}` with
  // their element count.
  int64_t max_literal_comment_elements = 1000;
  bool print_metadata = true;
  bool print_backend_config = true;
};

// Appends the module text to `out`.
void AppendModuleText(const xla::HloModuleProto& module,
                      const PrintOptions& options, std::string* out);

// Appends the text of `decoded`'s module (nothing without one), reading
// deferred instructions off their wire bytes, computations on several
// threads when large. False, appending nothing, when a deferred
// instruction would have failed the full decode: decode again without
// deferral, which reports it or reads the bytes as another kind.
bool AppendDecodedModuleText(const DecodedProto& decoded,
                             const PrintOptions& options, std::string* out);

// Appends `// LABEL: SHAPE VALUES` (one line) for a snapshot literal.
// raw_bytes >= 0 says the data was left undecoded (chunked snapshots).
void AppendLiteralComment(std::string_view label,
                          const xla::LiteralProto& literal, int64_t raw_bytes,
                          const PrintOptions& options, std::string* out);

}  // namespace hlo::proto

#endif  // HLO_LSP_HLO_PROTO_PRINT_H_
