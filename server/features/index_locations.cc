#include "server/features/index_locations.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>

#include "base/whole_file.h"
#include "index/discovery.h"
#include "index/dump_name.h"
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

// Line `line` (1-based) of a file; nullopt when it cannot be read.
std::optional<std::string> ReadLine(const std::string& path, uint32_t line) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;  // a FIFO blocks
  std::ifstream in(path, std::ios::binary);
  std::string text;
  for (uint32_t i = 0; i < line; ++i) {
    if (!std::getline(in, text)) return std::nullopt;
  }
  return text;
}

// Bytes read from a sibling to check it is HLO text and find its module
// name (the HloModule line comes first).
constexpr size_t kSiblingPrefix = 4 << 10;

// The module name of the first `HloModule NAME` line of HLO text at `path`;
// nullopt when the file does not look like HLO text.
std::optional<std::string> HloModuleName(const fs::path& path) {
  // Never a blocking open: a FIFO among the siblings must not hang us.
  absl::StatusOr<hlo::base::WholeFile> head =
      hlo::base::WholeFile::ReadHead(path.string(), kSiblingPrefix);
  if (!head.ok()) return std::nullopt;
  std::string_view prefix = head->bytes();
  if (!hlo::index::LooksLikeHloText(prefix)) return std::nullopt;
  for (size_t pos = 0; pos < prefix.size();) {
    size_t end = std::min(prefix.find('\n', pos), prefix.size());
    std::string_view line(prefix.data() + pos, end - pos);
    pos = end + 1;
    constexpr std::string_view kKeyword = "HloModule ";
    if (!line.starts_with(kKeyword)) continue;
    line.remove_prefix(kKeyword.size());
    return std::string(line.substr(0, line.find_first_of(" ,\t\r")));
  }
  return std::string();
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

Location IndexLocation(const hlo::index::SymbolMatch& m, bool utf16) {
  uint32_t line = m.line > 0 ? m.line - 1 : 0,
           col = m.column > 0 ? m.column - 1 : 0;
  size_t start = col, end = col + m.name.size();
  if (utf16) {
    if ((m.flags & hlo::index::kFlagNonAsciiPrefix) != 0) {
      std::optional<std::string> text = ReadLine(m.absolute_path, m.line);
      if (text && col <= text->size())
        start = Utf16Length(std::string_view(*text).substr(0, col));
    }
    end = start + Utf16Length(m.name);
  }
  return Location{PathToUri(m.absolute_path),
                  Range{{line, static_cast<uint32_t>(start)},
                        {line, static_cast<uint32_t>(end)}}};
}

std::vector<hlo::index::ModuleFile> SiblingModuleFiles(
    const std::string& path) {
  const std::string self_path = NormalPath(path);
  hlo::index::DiscoveryResult found =
      hlo::index::DiscoverDumpSiblings(self_path);
  std::vector<hlo::index::ModuleFile> files;
  std::optional<hlo::index::ModuleFile> self;
  for (const fs::path& file : found.files) {
    std::optional<std::string> module = HloModuleName(file);
    if (!module) continue;
    hlo::index::ModuleFile entry{
        file.string(),
        hlo::index::ParseDumpFileName(file.filename().string(), *module),
        *module};
    if (entry.path == self_path) self = entry;
    files.push_back(std::move(entry));
  }
  if (!self) return {};  // not HLO text, or the listing missed it
  // The module name from the file name, as the index groups them: the
  // HloModule line disambiguates names with dots.
  std::erase_if(files, [&](const hlo::index::ModuleFile& f) {
    return f.dump.module_id != self->dump.module_id ||
           f.dump.module_name != self->dump.module_name;
  });
  std::sort(
      files.begin(), files.end(),
      [](const hlo::index::ModuleFile& a, const hlo::index::ModuleFile& b) {
        std::string ka = hlo::index::DumpOrderKey(a.dump),
                    kb = hlo::index::DumpOrderKey(b.dump);
        return ka != kb ? ka < kb : a.path < b.path;
      });
  return files;
}

std::vector<hlo::index::ModuleFile> ModuleFilesOf(
    const hlo::index::WorkspaceIndex& index, const std::string& path) {
  std::vector<hlo::index::ModuleFile> files = index.ModuleFiles(path);
  if (files.empty()) files = SiblingModuleFiles(path);
  return files;
}

std::string NormalPath(const std::string& path) {
  return fs::absolute(path).lexically_normal().string();
}

}  // namespace hlo_lsp
