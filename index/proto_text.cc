#include "index/proto_text.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "hlo/proto/convert.h"
#include "hlo/proto/decode.h"

namespace hlo::index {

bool MaybeProto(std::string_view file_name, std::string_view head) {
  return file_name.ends_with(".pb") || file_name.ends_with(".pb.gz") ||
         proto::LooksLikeHloTextProto(head);
}

absl::Status ReadProtoText(const std::string& path, FileBytes* file,
                           ProtoText* out) {
  const size_t size = file->expected_size();
  if (size > kMaxProtoBytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        path, ": a proto of ", (size + (1 << 20) - 1) >> 20,
        " MiB, over the index's limit of ", kMaxProtoBytes >> 20,
        " MiB: not indexed ('hlo-lsp convert' turns it into text)"));
  }
  static std::mutex large;
  if (size > FileBytes::kReadLimit) out->large = std::unique_lock(large);
  std::string error;
  if (!file->ReadAll(nullptr, &error)) return absl::UnavailableError(error);
  absl::StatusOr<proto::ProtoTextResult> text = proto::ProtoBytesToText(
      file->bytes(), kMaxProtoTextBytes, kMaxDecodedProtoBytes);
  if (!text.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", text.status().message(), " (not indexed)"));
  }
  out->text = std::move(text->text);
  return absl::OkStatus();
}

}  // namespace hlo::index
