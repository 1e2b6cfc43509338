// Decoding XLA's binary HLO protos: plain or gzip'ed HloSnapshot,
// HloUnoptimizedSnapshot (also XLA's chunked large-snapshot format), HloProto,
// HloModuleProto and RunHloModuleIterationLiterals. Bad bytes are normal
// input: every failure is a Status, truncation reports the byte offset.
#ifndef HLO_LSP_HLO_PROTO_DECODE_H_
#define HLO_LSP_HLO_PROTO_DECODE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/proto/hlo.pb.h"

namespace hlo::proto {

enum class ProtoKind {
  kHloSnapshot,
  kHloUnoptimizedSnapshot,
  // XLA's large-snapshot serialisation: a length-delimited
  // HloUnoptimizedSnapshot with argument descriptors, then raw literals.
  kChunkedHloUnoptimizedSnapshot,
  kHloProto,
  kHloModuleProto,
  kRunHloModuleIterationLiterals,
};
std::string_view ProtoKindName(ProtoKind kind);

// A literal that travels with the module (argument, result...), with the
// label it prints under: "argument 0", "result", "partition 1 argument 0".
struct LabeledLiteral {
  std::string label;
  xla::LiteralProto literal;
  // For the chunked format the data is not decoded into `literal`; only its
  // shape is, and this says how many raw bytes it had.
  int64_t raw_bytes = -1;
};

struct DecodedProto {
  ProtoKind kind = ProtoKind::kHloProto;
  bool gzipped = false;
  // The module, null when the proto has none. It points into `storage`
  // (an arena, or the decoded message), which keeps it alive.
  xla::HloModuleProto* module = nullptr;
  std::shared_ptr<void> storage;
  std::vector<LabeledLiteral> literals;
  std::string execution_platform;  // HloSnapshot only
  // Fields our schema does not know (a newer XLA): decoded anyway.
  int64_t unknown_fields = 0;
  // With DecodeOptions::defer_instructions, when `deferred`: the module's
  // computations hold no instructions; their wire bytes are here, one list
  // per computation (by position), pointing into the decoded bytes (the
  // caller's, which must outlive this, or `wire` for gzip). Each
  // instruction is unchecked: it may fail to parse or lack an opcode, which
  // the full decode would have refused (decode again without deferral).
  bool deferred = false;
  std::vector<std::vector<std::string_view>> deferred_instructions;
  // Likewise their program shapes (which the text does not show), to be
  // checked as the full parse would have.
  std::vector<std::vector<std::string_view>> deferred_program_shapes;
  int instruction_depth = 0;  // message nesting above an instruction
  std::shared_ptr<const std::string> wire;
};

struct DecodeOptions {
  // Upper bound on the (decompressed) message size. Protobuf cannot parse
  // messages of 2 GiB or more anyway.
  size_t max_bytes = (size_t{2} << 30) - 1;
  // Leave the module's instructions as wire bytes (DecodedProto::
  // deferred_instructions) when the fast path applies: the printer reads
  // them one at a time instead of building millions of messages.
  bool defer_instructions = false;
};

// True when `bytes` start like a gzip stream.
bool IsGzip(std::string_view bytes);
// True when `bytes` look like a binary proto rather than text (used to pick
// the convert direction when the file name does not tell).
bool LooksLikeBinaryProto(std::string_view bytes);
// True when the first token of `bytes` is `HloModule`: HLO text, even in a
// `.pbtxt` file (the contracts' file detection).
bool StartsWithHloModule(std::string_view bytes);
// True when `text` starts (after blank and `#` comment lines) like a
// text-format proto of the kinds above: `FIELD {` or `FIELD:` where FIELD is
// a top-level field of one of them (`hlo_module {`, `arguments {`, ...).
// XLA writes text snapshots as `.txt`, so the name cannot tell; HLO text
// never starts this way.
bool LooksLikeHloTextProto(std::string_view text);

// Inflates a gzip (or zlib) stream, refusing output over `max_bytes`.
absl::StatusOr<std::string> Gunzip(std::string_view bytes, size_t max_bytes);

// Walks the wire format of `bytes` as message `descriptor` (recursing into
// known sub-messages, depth-limited) and reports the first byte offset where
// it breaks: truncated varint, length past the end, bad wire type, group
// mismatch. OK when the wire format is sound.
absl::Status CheckWireFormat(std::string_view bytes,
                             const google::protobuf::Descriptor* descriptor);

// Decodes bytes of any supported kind (gzip is detected by magic bytes).
absl::StatusOr<DecodedProto> DecodeProto(std::string_view bytes,
                                         const DecodeOptions& options = {});

// Decodes a text-format proto (XLA's `.pbtxt` / `.txt` snapshot dumps) of
// the same kinds, in the same order. Unknown field names are errors.
absl::StatusOr<DecodedProto> DecodeTextFormatProto(std::string_view text);

}  // namespace hlo::proto

#endif  // HLO_LSP_HLO_PROTO_DECODE_H_
