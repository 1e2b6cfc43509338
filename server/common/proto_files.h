// Proto dump files as both faces see them: which paths hold a proto, and
// their module (or literals) as HLO text.
#ifndef HLO_LSP_SERVER_COMMON_PROTO_FILES_H_
#define HLO_LSP_SERVER_COMMON_PROTO_FILES_H_

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hlo/proto/convert.h"

namespace hlo_lsp {

// `.pb` and `.pb.gz`; `.pbtxt` too unless it is HLO text (first token
// `HloModule`), which is how the contracts detect HLO in `.pbtxt` files.
bool IsProtoPath(const std::string& path);

// Whether `bytes`, read from `path`, are a proto rather than HLO text: binary
// or gzip'ed content, a `.pb`, `.pb.gz` or `.pbtxt` that is not HLO text
// (first token `HloModule`), or a text-format proto by content (XLA names
// text snapshots `.txt`).
bool HoldsProto(std::string_view path, std::string_view bytes);

// The file's proto (binary, gzip'ed or text format) printed as HLO text, cut
// at `cap` bytes (hlo::proto::ProtoBytesToText: the same text as `hlo-lsp
// convert` and the index).
absl::StatusOr<hlo::proto::ProtoTextResult> ProtoFileToText(
    const std::string& path, size_t cap);

// The HLO text that check and outline read from `bytes` (read from `path`):
// the bytes themselves, or when they hold a proto (HoldsProto) its text view,
// decoded into `*storage`; positions are then in that view. A proto that does
// not decode is the decoder's error ("not a valid HLO proto: ...").
absl::StatusOr<std::string_view> HloTextOf(std::string_view path,
                                           std::string_view bytes,
                                           std::string* storage);

// `path` without each of `suffixes` it ends with, tried in order.
std::string StripSuffixes(std::string path,
                          std::initializer_list<std::string_view> suffixes);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_COMMON_PROTO_FILES_H_
