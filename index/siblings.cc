#include "index/siblings.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string_view>
#include <system_error>

#include "base/whole_file.h"
#include "index/discovery.h"
#include "index/dump_name.h"

namespace hlo::index {
namespace fs = std::filesystem;
namespace {

// Bytes read from a sibling to check it is HLO text and find its module
// name (the HloModule line comes first).
constexpr size_t kSiblingPrefix = 4 << 10;

// The module name of the first `HloModule NAME` line of HLO text at `path`;
// nullopt when the file does not look like HLO text.
std::optional<std::string> HloModuleName(const fs::path& path) {
  // Never a blocking open: a FIFO among the siblings must not hang us.
  absl::StatusOr<base::WholeFile> head =
      base::WholeFile::ReadHead(path.string(), kSiblingPrefix);
  if (!head.ok()) return std::nullopt;
  std::string_view prefix = head->bytes();
  if (!LooksLikeHloText(prefix)) return std::nullopt;
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

std::vector<ModuleFile> SiblingModuleFiles(const std::string& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  const std::string self_path =
      (ec ? fs::path(path) : absolute).lexically_normal().string();
  DiscoveryResult found = DiscoverDumpSiblings(self_path);
  std::vector<ModuleFile> files;
  std::optional<ModuleFile> self;
  for (const fs::path& file : found.files) {
    std::optional<std::string> module = HloModuleName(file);
    if (!module) continue;
    ModuleFile entry{file.string(),
                     ParseDumpFileName(file.filename().string(), *module),
                     *module};
    if (entry.path == self_path) self = entry;
    files.push_back(std::move(entry));
  }
  if (!self) return {};  // not HLO text, or the listing missed it
  // The module name from the file name, as the index groups them: the
  // HloModule line disambiguates names with dots.
  std::erase_if(files, [&](const ModuleFile& f) {
    return f.dump.module_id != self->dump.module_id ||
           f.dump.module_name != self->dump.module_name;
  });
  std::sort(files.begin(), files.end(),
            [](const ModuleFile& a, const ModuleFile& b) {
              std::string ka = DumpOrderKey(a.dump), kb = DumpOrderKey(b.dump);
              return ka != kb ? ka < kb : a.path < b.path;
            });
  return files;
}

}  // namespace hlo::index
