#include "server/features/index_locations.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string_view>

#include "base/whole_file.h"
#include "server/common/proto_files.h"
#include "server/documents.h"

namespace hlo_lsp {
namespace fs = std::filesystem;
namespace {

// UTF-16 code units in UTF-8 `bytes`.
size_t Utf16Length(std::string_view bytes) {
  size_t n = 0;
  for (unsigned char c : bytes) {
    if ((c & 0xC0) != 0x80) n += c >= 0xF0 ? 2 : 1;
  }
  return n;
}

// Line `line` (1-based) of a file, or of a proto's text view (where the
// index's lines are); nullopt when it cannot be read.
std::optional<std::string> ReadLine(const std::string& path, uint32_t line) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;  // a FIFO blocks
  absl::StatusOr<hlo::base::WholeFile> head =
      hlo::base::WholeFile::ReadHead(path, 64 << 10);
  if (!head.ok()) return std::nullopt;
  if (HoldsProto(path, head->bytes())) {
    auto view = ProtoFileToText(path, std::numeric_limits<size_t>::max());
    if (!view.ok()) return std::nullopt;
    std::string_view rest = view->text;
    for (uint32_t i = 1; i < line; ++i) {
      const size_t end = rest.find('\n');
      if (end == std::string_view::npos) return std::nullopt;
      rest.remove_prefix(end + 1);
    }
    return std::string(rest.substr(0, rest.find('\n')));
  }
  std::ifstream in(path, std::ios::binary);
  std::string text;
  for (uint32_t i = 0; i < line; ++i) {
    if (!std::getline(in, text)) return std::nullopt;
  }
  return text;
}

}  // namespace

int LspSymbolKind(hlo::index::SymbolKind kind) {
  switch (kind) {
    case hlo::index::SymbolKind::kModule:
      return static_cast<int>(SymbolKind::kModule);
    case hlo::index::SymbolKind::kComputation:
      return static_cast<int>(SymbolKind::kFunction);
    case hlo::index::SymbolKind::kInstruction:
      return static_cast<int>(SymbolKind::kVariable);
    case hlo::index::SymbolKind::kMetadata:
      return 15;  // String
  }
  return static_cast<int>(SymbolKind::kVariable);
}

Range IndexRange(const std::string& path, uint32_t line, uint32_t column,
                 std::string_view name, bool non_ascii_prefix, bool utf16) {
  const uint32_t line0 = line > 0 ? line - 1 : 0,
                 col = column > 0 ? column - 1 : 0;
  size_t start = col, end = col + name.size();
  if (utf16) {
    if (non_ascii_prefix) {
      std::optional<std::string> text = ReadLine(path, line);
      if (text && col <= text->size())
        start = Utf16Length(std::string_view(*text).substr(0, col));
    }
    end = start + Utf16Length(name);
  }
  return Range{{line0, static_cast<uint32_t>(start)},
               {line0, static_cast<uint32_t>(end)}};
}

Location IndexLocation(const hlo::index::SymbolMatch& m, bool utf16) {
  return Location{
      PathToUri(m.absolute_path),
      IndexRange(m.absolute_path, m.line, m.column, m.name,
                 (m.flags & hlo::index::kFlagNonAsciiPrefix) != 0, utf16)};
}

std::string NormalPath(const std::string& path) {
  return fs::absolute(path).lexically_normal().string();
}

}  // namespace hlo_lsp
