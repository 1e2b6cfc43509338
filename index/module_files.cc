#include "index/module_files.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <system_error>
#include <utility>

#include "base/whole_file.h"

namespace hlo::index {
namespace fs = std::filesystem;
namespace {

// Bytes read from a stage dump to find its HloModule line (it comes first).
constexpr size_t kHeadBytes = 4 << 10;

// One folder entry whose name holds `module_NNNN.`.
struct Entry {
  std::string name;
  std::string timestamp;  // digits before the marker, "" when none
  int64_t id = -1;
  size_t rest = 0;  // offset of what follows `module_NNNN.`
  std::string_view Rest() const { return std::string_view(name).substr(rest); }
};

bool AllDecimalDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return c >= '0' && c <= '9'; });
}

// `module_` at the start or after a '.', 4 or more digits, then '.'.
std::optional<Entry> ParseEntry(std::string name) {
  for (size_t pos = 0; (pos = name.find("module_", pos)) != std::string::npos;
       pos += 7) {
    if (pos != 0 && name[pos - 1] != '.') continue;
    size_t end = pos + 7;
    while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
    if (end - (pos + 7) < 4 || end >= name.size() || name[end] != '.') {
      continue;
    }
    Entry entry;
    if (pos > 0 &&
        AllDecimalDigits(std::string_view(name).substr(0, pos - 1))) {
      entry.timestamp = name.substr(0, pos - 1);
    }
    if (end - (pos + 7) > 15) return std::nullopt;  // not an id we can hold
    entry.id = std::stoll(name.substr(pos + 7, end - pos - 7));
    entry.rest = end + 1;
    entry.name = std::move(name);
    return entry;
  }
  return std::nullopt;
}

// XLA's SanitizeFileName (xla/util.cc), applied to the whole file name.
std::string Sanitize(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c == '/' || c == '\\' || c == '[' || c == ']' || c == ' ') c = '_';
  }
  return out;
}

// The HloModule name of a text dump, from its head; nullopt when the file
// is not HLO text.
std::optional<std::string> HloModuleName(const std::string& path) {
  absl::StatusOr<base::WholeFile> head =
      base::WholeFile::ReadHead(path, kHeadBytes);
  if (!head.ok() || !LooksLikeHloText(head->bytes())) return std::nullopt;
  std::string_view text = head->bytes();
  constexpr std::string_view kKeyword = "HloModule ";
  for (size_t pos = 0; pos < text.size();) {
    size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.starts_with(kKeyword)) continue;
    line.remove_prefix(kKeyword.size());
    return std::string(line.substr(0, line.find_first_of(" ,\t\r")));
  }
  return std::string();
}

bool EndsWithAny(std::string_view s,
                 std::initializer_list<std::string_view> suffixes) {
  for (std::string_view suffix : suffixes) {
    if (s.ends_with(suffix)) return true;
  }
  return false;
}

// `NAME.snapshot.N.pb` as jax and the replay guide name them.
bool IsNumberedSnapshot(std::string_view s) {
  if (!s.ends_with(".pb")) return false;
  s.remove_suffix(3);
  size_t dot = s.rfind('.');
  if (dot == std::string_view::npos || !AllDecimalDigits(s.substr(dot + 1))) {
    return false;
  }
  return s.substr(0, dot).ends_with(".snapshot") ||
         s.substr(0, dot) == "snapshot";
}

// The kind of everything but HLO text (which needs the file name parsed).
std::optional<DumpFileKind> AuxiliaryKind(std::string_view suffix) {
  if (suffix.find("hlo_snapshot") != std::string_view::npos ||
      suffix.find("hlo_unoptimized_snapshot") != std::string_view::npos ||
      IsNumberedSnapshot(suffix)) {
    return DumpFileKind::kSnapshot;
  }
  if (suffix.ends_with("-buffer-assignment.txt")) {
    return DumpFileKind::kBufferAssignment;
  }
  if (suffix.find("-memory-usage-report.") != std::string_view::npos) {
    return DumpFileKind::kMemoryReport;
  }
  if (suffix.ends_with(".ll")) return DumpFileKind::kLlvmIr;
  if (suffix.ends_with(".ptx")) return DumpFileKind::kPtx;
  if (EndsWithAny(suffix, {".dot", ".html", ".url"})) {
    return DumpFileKind::kGraph;
  }
  if (EndsWithAny(suffix, {".hlo.pb", ".hlo.pb.gz"})) {
    return DumpFileKind::kProto;
  }
  if (EndsWithAny(suffix, {".pb", ".pb.gz"})) {
    // A module proto under a stage's name; other protos (autotune, memory
    // report, configs) are "other".
    return suffix.find("optimizations.") != std::string_view::npos ||
                   suffix.find(".after_") != std::string_view::npos
               ? DumpFileKind::kProto
               : DumpFileKind::kOther;
  }
  if (!suffix.ends_with(".txt") || !IsCandidateByName(suffix)) {
    return DumpFileKind::kOther;
  }
  return std::nullopt;  // HLO text, probably
}

// The module names the files of one id carry: from pass dump names (the
// step and `.after_..before_` make them unambiguous) and the HloModule line
// of stage dumps. Longest first, so `a.b` wins over `a`.
std::vector<std::string> NamesOfId(const std::vector<const Entry*>& entries,
                                   const fs::path& folder,
                                   std::map<std::string, bool>* hlo_text) {
  std::set<std::string> names;
  for (const Entry* e : entries) {
    if (AuxiliaryKind(e->Rest())) continue;
    DumpFileName dump = ParseDumpFileName(e->name);
    if ((dump.kind == DumpKind::kPassDump ||
         dump.kind == DumpKind::kPassStep) &&
        !dump.module_name.empty()) {
      names.insert(dump.module_name);
      (*hlo_text)[e->name] = true;
      continue;
    }
    std::optional<std::string> module = HloModuleName((folder / e->name));
    (*hlo_text)[e->name] = module.has_value();
    if (!module || module->empty()) continue;
    std::string sanitized = Sanitize(*module);
    if (e->Rest().starts_with(sanitized + ".")) names.insert(sanitized);
  }
  std::vector<std::string> out(names.begin(), names.end());
  std::sort(out.begin(), out.end(),
            [](const std::string& a, const std::string& b) {
              return a.size() != b.size() ? a.size() > b.size() : a < b;
            });
  return out;
}

DumpFile MakeFile(const fs::path& folder, const Entry& e,
                  const std::string& module, bool is_hlo_text) {
  DumpFile file;
  file.path = folder.empty() ? e.name : (folder / e.name).string();
  std::string_view suffix = e.Rest();
  if (!module.empty() && suffix.starts_with(module + ".")) {
    suffix.remove_prefix(module.size() + 1);
  }
  file.label = std::string(suffix);
  file.dump = ParseDumpFileName(e.name, module);
  if (std::optional<DumpFileKind> kind = AuxiliaryKind(suffix)) {
    file.kind = *kind;
  } else if (!is_hlo_text) {
    file.kind = DumpFileKind::kOther;
  } else if (file.dump.kind == DumpKind::kPassDump ||
             file.dump.kind == DumpKind::kPassStep) {
    file.kind = DumpFileKind::kPass;
    file.label.resize(file.label.size() - 4);  // ".txt"
  } else {
    file.kind = DumpFileKind::kStage;
    if (!file.dump.stage.empty()) file.label = file.dump.stage;
  }
  return file;
}

void SortHistory(std::vector<DumpFile>* files) {
  std::sort(
      files->begin(), files->end(), [](const DumpFile& a, const DumpFile& b) {
        bool ta = a.is_hlo_text(), tb = b.is_hlo_text();
        if (ta != tb) return ta;
        if (ta) {
          std::string ka = DumpOrderKey(a.dump), kb = DumpOrderKey(b.dump);
          if (ka != kb) return ka < kb;
        } else if (a.kind != b.kind) {
          return a.kind < b.kind;
        }
        return a.path < b.path;
      });
}

struct Listing {
  std::vector<Entry> entries;
  std::vector<std::string> others;  // names without a module marker
};

Listing ListFolder(const fs::path& folder, size_t max_entries) {
  Listing listing;
  std::error_code ec;
  fs::directory_iterator it(folder.empty() ? fs::path(".") : folder,
                            fs::directory_options::skip_permission_denied, ec);
  size_t seen = 0;
  for (fs::directory_iterator end; !ec && it != end && seen++ < max_entries;
       it.increment(ec)) {
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;
    std::string name = it->path().filename().string();
    if (std::optional<Entry> entry = ParseEntry(name)) {
      listing.entries.push_back(std::move(*entry));
    } else if (name.starts_with("module_")) {
      listing.others.push_back(std::move(name));
    }
  }
  return listing;
}

// Groups a listing into modules: (id, name), split by timestamp when the
// HLO text of one (id, name) comes from several timestamped runs.
std::vector<ModuleDumpFiles> GroupListing(const fs::path& folder,
                                          const Listing& listing) {
  std::map<int64_t, std::vector<const Entry*>> by_id;
  for (const Entry& e : listing.entries) by_id[e.id].push_back(&e);
  std::vector<ModuleDumpFiles> modules;
  for (const auto& [id, entries] : by_id) {
    std::map<std::string, bool> hlo_text;
    std::vector<std::string> names = NamesOfId(entries, folder, &hlo_text);
    // Files whose name carries none of the names: XLA dropped it (or the
    // module has no text dump); they join the module when it is the only one.
    std::map<std::pair<std::string, std::string>, std::vector<DumpFile>> groups;
    for (const Entry* e : entries) {
      std::string module;
      for (const std::string& name : names) {
        if (e->Rest().starts_with(name + ".")) {
          module = name;
          break;
        }
      }
      if (module.empty() && names.size() == 1) module = names[0];
      auto known = hlo_text.find(e->name);
      bool text = known == hlo_text.end() || known->second;
      DumpFile file = MakeFile(folder, *e, module, text);
      groups[{module, e->timestamp}].push_back(std::move(file));
    }
    // Merge timestamp groups unless several of them hold HLO text.
    std::map<std::string,
             std::vector<std::pair<std::string, std::vector<DumpFile>>>>
        by_name;
    for (auto& [key, files] : groups) {
      by_name[key.first].emplace_back(key.second, std::move(files));
    }
    for (auto& [name, parts] : by_name) {
      std::vector<std::vector<DumpFile>*> runs;
      std::vector<DumpFile> shared;  // files of no run with text
      for (auto& [stamp, files] : parts) {
        bool text =
            std::any_of(files.begin(), files.end(),
                        [](const DumpFile& f) { return f.is_hlo_text(); });
        if (text) {
          runs.push_back(&files);
        } else {
          for (DumpFile& f : files) shared.push_back(std::move(f));
        }
      }
      if (runs.empty()) {
        modules.push_back({name, id, std::move(shared)});
        continue;
      }
      for (std::vector<DumpFile>* run : runs) {
        ModuleDumpFiles module{name, id, std::move(*run)};
        if (runs.size() == 1) {
          for (DumpFile& f : shared) module.files.push_back(std::move(f));
        }
        modules.push_back(std::move(module));
      }
    }
  }
  // Snapshots written without an id: module_NAME.execution_NNNN...
  for (const std::string& other : listing.others) {
    for (ModuleDumpFiles& m : modules) {
      if (m.module_name.empty() ||
          !other.starts_with("module_" + m.module_name + ".execution_")) {
        continue;
      }
      DumpFile file;
      file.path = folder.empty() ? other : (folder / other).string();
      file.kind = DumpFileKind::kSnapshot;
      file.label = other.substr(8 + m.module_name.size());
      m.files.push_back(std::move(file));
      break;
    }
  }
  for (ModuleDumpFiles& m : modules) SortHistory(&m.files);
  return modules;
}

}  // namespace

std::string_view DumpFileKindName(DumpFileKind kind) {
  switch (kind) {
    case DumpFileKind::kStage:
      return "stage";
    case DumpFileKind::kPass:
      return "pass";
    case DumpFileKind::kProto:
      return "proto";
    case DumpFileKind::kSnapshot:
      return "snapshot";
    case DumpFileKind::kBufferAssignment:
      return "buffer-assignment";
    case DumpFileKind::kMemoryReport:
      return "memory-report";
    case DumpFileKind::kLlvmIr:
      return "llvm-ir";
    case DumpFileKind::kPtx:
      return "ptx";
    case DumpFileKind::kGraph:
      return "graph";
    case DumpFileKind::kOther:
      return "other";
  }
  return "other";
}

ModuleDumpFiles ModuleFilesOfPath(const std::string& path, size_t max_entries) {
  const fs::path given(path);
  const fs::path folder = given.parent_path();
  const std::string self_name = given.filename().string();
  auto alone = [&] {
    Listing listing;
    DumpFile file;
    file.path = path;
    file.label = self_name;
    // Any name (model.hlo, x.txt) holding HLO text is a module's one stage.
    std::optional<DumpFileKind> kind = AuxiliaryKind(self_name);
    std::optional<std::string> module_name;
    if (!kind || *kind == DumpFileKind::kOther)
      module_name = HloModuleName(path);
    file.kind = module_name ? DumpFileKind::kStage
                            : kind.value_or(DumpFileKind::kOther);
    ModuleDumpFiles module;
    module.module_name = module_name.value_or("");
    module.files.push_back(std::move(file));
    return module;
  };
  std::optional<Entry> self = ParseEntry(self_name);
  if (!self) return alone();
  Listing listing = ListFolder(folder, max_entries);
  // Only the self's id matters: drop the rest before any file is read.
  std::erase_if(listing.entries,
                [&](const Entry& e) { return e.id != self->id; });
  for (ModuleDumpFiles& module : GroupListing(folder, listing)) {
    for (const DumpFile& f : module.files) {
      if (fs::path(f.path).filename() == self_name) return std::move(module);
    }
  }
  return alone();  // the listing missed it (removed meanwhile, or too big)
}

std::vector<ModuleDumpFiles> ModulesInFolder(const std::string& folder,
                                             size_t max_entries) {
  std::vector<ModuleDumpFiles> modules =
      GroupListing(fs::path(folder), ListFolder(fs::path(folder), max_entries));
  std::erase_if(modules, [](const ModuleDumpFiles& m) {
    return std::none_of(m.files.begin(), m.files.end(),
                        [](const DumpFile& f) { return f.is_hlo_text(); });
  });
  return modules;
}

std::vector<DumpFile> HloTextHistory(const ModuleDumpFiles& files) {
  std::vector<DumpFile> out;
  for (const DumpFile& f : files.files) {
    if (f.is_hlo_text()) out.push_back(f);
  }
  return out;
}

}  // namespace hlo::index
