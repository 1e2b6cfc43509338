#include "server/common/proto_files.h"

#include <utility>

#include "base/whole_file.h"
#include "hlo/proto/decode.h"
#include "server/common/file_reader.h"

namespace hlo_lsp {

bool IsProtoPath(const std::string& path) {
  if (path.ends_with(".pb") || path.ends_with(".pb.gz")) return true;
  if (!path.ends_with(".pbtxt")) return false;
  // A head, never a blocking open: a FIFO named x.pbtxt must not hang us.
  absl::StatusOr<hlo::base::WholeFile> head =
      hlo::base::WholeFile::ReadHead(path, 4096);
  return !head.ok() || !hlo::proto::StartsWithHloModule(head->bytes());
}

bool HoldsProto(std::string_view path, std::string_view bytes) {
  const bool proto_name = path.ends_with(".pbtxt") || path.ends_with(".pb") ||
                          path.ends_with(".pb.gz");
  const bool named = proto_name && !hlo::proto::StartsWithHloModule(bytes);
  return named || hlo::proto::LooksLikeBinaryProto(bytes) ||
         hlo::proto::IsGzip(bytes) || hlo::proto::LooksLikeHloTextProto(bytes);
}

absl::StatusOr<hlo::proto::ProtoTextResult> ProtoFileToText(
    const std::string& path, size_t cap) {
  auto contents = FileContents::Read(path);
  if (!contents.ok()) return contents.status();
  return hlo::proto::ProtoBytesToText(contents->text(), cap);
}

absl::StatusOr<std::string_view> HloTextOf(std::string_view path,
                                           std::string_view bytes,
                                           std::string* storage) {
  if (!HoldsProto(path, bytes)) return bytes;
  absl::StatusOr<hlo::proto::ProtoTextResult> text =
      hlo::proto::ProtoBytesToText(bytes);
  if (!text.ok()) return text.status();
  *storage = std::move(text->text);
  return std::string_view(*storage);
}

std::string StripSuffixes(std::string path,
                          std::initializer_list<std::string_view> suffixes) {
  for (std::string_view s : suffixes) {
    if (path.ends_with(s)) path.resize(path.size() - s.size());
  }
  return path;
}

}  // namespace hlo_lsp
