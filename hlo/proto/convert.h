// One-call conversions for the CLI and the editor: proto bytes (plain,
// gzip'ed or chunked) to HLO text, and HLO text to HloProto bytes.
#ifndef HLO_LSP_HLO_PROTO_CONVERT_H_
#define HLO_LSP_HLO_PROTO_CONVERT_H_

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hlo/proto/print.h"

namespace hlo::proto {

struct ProtoTextResult {
  std::string text;
  bool truncated = false;  // cut at a line end to fit max_bytes
  std::string kind;        // "HloSnapshot", "HloProto", ...
};

// Decodes `bytes` and prints the module (if any) followed by its literals
// as `// argument 0: ...` comments. The text is cut at a line boundary to at
// most `max_bytes` (then `truncated`). Errors are InvalidArgument/DataLoss
// with a message fit for the user (byte offsets for damaged files).
absl::StatusOr<ProtoTextResult> ConvertProtoFileToText(
    std::string_view bytes,
    size_t max_bytes = std::numeric_limits<size_t>::max(),
    const PrintOptions& options = {});

// The same for a text-format proto (`.pbtxt`): module text plus literal
// comments; an error when the text is not one of the known messages.
absl::StatusOr<ProtoTextResult> ConvertTextProtoToText(
    std::string_view text,
    size_t max_bytes = std::numeric_limits<size_t>::max(),
    const PrintOptions& options = {});

// The text view of a proto file's bytes: ConvertProtoFileToText for binary
// or gzip'ed bytes, else ConvertTextProtoToText, with the default print
// options. The one printer behind `hlo-lsp convert`, the editor's
// hlo/protoToText, check, outline and the index, so that a line number in
// one is the same line in the others. `max_decoded` bounds the decompressed
// message (DecodeOptions::max_bytes).
absl::StatusOr<ProtoTextResult> ProtoBytesToText(
    std::string_view bytes,
    size_t max_bytes = std::numeric_limits<size_t>::max(),
    size_t max_decoded = std::numeric_limits<size_t>::max());

// Parses HLO text and encodes its first module as a serialised HloProto
// (an HloProto holds one module; `module_count`, when given, receives how
// many the text has). Fails (InvalidArgument, with the first diagnostic)
// when the text has syntax errors.
absl::StatusOr<std::string> ConvertTextToHloProtoBytes(
    std::string_view text, size_t* module_count = nullptr);

}  // namespace hlo::proto

#endif  // HLO_LSP_HLO_PROTO_CONVERT_H_
