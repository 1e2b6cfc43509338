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

// The file's proto (binary, gzip'ed or text format) printed as HLO text, cut
// at `cap` bytes.
absl::StatusOr<hlo::proto::ProtoTextResult> ProtoFileToText(
    const std::string& path, size_t cap);

// `path` without each of `suffixes` it ends with, tried in order.
std::string StripSuffixes(std::string path,
                          std::initializer_list<std::string_view> suffixes);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_COMMON_PROTO_FILES_H_
