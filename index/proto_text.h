// Proto dumps (`.hlo.pb`, snapshots, `.pb.gz`, text-format protos such as
// XLA's `.txt` snapshots) in the index: which files to decode, and their
// text view, printed by hlo/proto's ProtoBytesToText: the text `hlo-lsp
// convert` and the editor's hlo/protoToText show, so that a symbol's line is
// a line of that view. Decoded only when the file is new or changed (the
// cache keys it by stat, like any file); one that does not decode is left
// out with a warning.
#ifndef HLO_LSP_INDEX_PROTO_TEXT_H_
#define HLO_LSP_INDEX_PROTO_TEXT_H_

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "index/file_bytes.h"

namespace hlo::index {

// Decoding takes several times a proto's size in memory: larger ones are
// not indexed (a warning says so, and how to convert them to text).
constexpr size_t kMaxProtoBytes = size_t{256} << 20;
// Bounds on what a proto decodes to: its (gunzip'ed) message, and its text
// view, past which the view is cut at a line end (its prefix is indexed).
constexpr size_t kMaxDecodedProtoBytes = size_t{1} << 30;
constexpr size_t kMaxProtoTextBytes = size_t{1} << 30;

// Whether a candidate file that is not HLO text, named `file_name` and
// starting with `head`, may be a proto of XLA's: a `.pb` or `.pb.gz` name,
// or text-format content whose first field is one of those messages'.
bool MaybeProto(std::string_view file_name, std::string_view head);

struct ProtoText {
  std::string text;
  // Held while a large proto is read, decoded and its view scanned: one at
  // a time, so that memory stays bounded whatever the thread count.
  std::unique_lock<std::mutex> large;
};

// Reads the rest of `file` (opened, its head read) and prints its proto's
// text view into `out`. Unavailable when the file cannot be read; other
// errors ("PATH: not a valid HLO proto: ...", too large) mean the file holds
// no proto the index can take.
absl::Status ReadProtoText(const std::string& path, FileBytes* file,
                           ProtoText* out);

}  // namespace hlo::index

#endif  // HLO_LSP_INDEX_PROTO_TEXT_H_
