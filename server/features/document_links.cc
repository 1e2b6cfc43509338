// textDocument/documentLink: metadata source_file="..." opens the source,
// at source_line when given.
#include <sys/stat.h>

#include "hlo/query.h"
#include "server/features/features.h"

namespace hlo_lsp {
namespace {

std::string Directory(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

std::vector<DocumentLink> DocumentLinks(const Snapshot& snap) {
  const hlo::ParsedFile& file = *snap.file;
  std::vector<DocumentLink> out;
  const std::string doc_dir = Directory(UriToPath(snap.uri));
  for (hlo::Id i = 0; i < file.instructions.size(); ++i) {
    hlo::Span where;
    std::string_view source =
        hlo::MetadataField(file, i, "source_file", &where);
    if (source.empty() || source.find('\\') != std::string_view::npos) continue;
    std::string path(source);
    if (path.rfind("file://", 0) == 0) path = UriToPath(path);
    if (path.empty()) continue;
    if (path.front() != '/') {
      // Relative to the dump when that file exists; otherwise we cannot tell
      // where it lives, so no link.
      std::string candidate = doc_dir + "/" + path;
      if (!Exists(candidate)) continue;
      path = candidate;
    }
    DocumentLink link;
    link.range = snap.ToRange(where);
    link.target = PathToUri(path);
    std::string_view line = hlo::MetadataField(file, i, "source_line");
    if (!line.empty()) link.target += "#L" + std::string(line);
    link.tooltip = "Open " + std::string(source) +
                   (line.empty() ? "" : ":" + std::string(line));
    out.push_back(std::move(link));
    if (out.size() >= kMaxDocumentLinks) break;
  }
  return out;
}

}  // namespace hlo_lsp
