#include "server/common/proto_files.h"

#include <fstream>

#include "hlo/proto/decode.h"
#include "server/common/file_reader.h"

namespace hlo_lsp {

bool IsProtoPath(const std::string& path) {
  if (path.ends_with(".pb") || path.ends_with(".pb.gz")) return true;
  if (!path.ends_with(".pbtxt")) return false;
  std::ifstream in(path, std::ios::binary);
  char head[4096];
  in.read(head, sizeof head);
  return !hlo::proto::StartsWithHloModule(
      std::string_view(head, static_cast<size_t>(in.gcount())));
}

absl::StatusOr<hlo::proto::ProtoTextResult> ProtoFileToText(
    const std::string& path, size_t cap) {
  auto contents = FileContents::Read(path);
  if (!contents.ok()) return contents.status();
  std::string_view bytes = contents->text();
  if (hlo::proto::IsGzip(bytes) || hlo::proto::LooksLikeBinaryProto(bytes)) {
    return hlo::proto::ConvertProtoFileToText(bytes, cap);
  }
  return hlo::proto::ConvertTextProtoToText(bytes, cap);
}

std::string StripSuffixes(std::string path,
                          std::initializer_list<std::string_view> suffixes) {
  for (std::string_view s : suffixes) {
    if (path.ends_with(s)) path.resize(path.size() - s.size());
  }
  return path;
}

}  // namespace hlo_lsp
