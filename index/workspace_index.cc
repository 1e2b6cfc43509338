// WorkspaceIndex: its folders (add, remove, refresh), the on-disk cache,
// module files and stats. Building the index from files is in
// workspace_build.cc, querying it in workspace_query.cc.
#include "index/workspace_index.h"

#include <malloc.h>

#include <algorithm>
#include <set>
#include <thread>

#include "index/discovery.h"
#include "index/workspace_internal.h"

namespace hlo::index {

namespace fs = std::filesystem;

namespace workspace_internal {

bool IsUnder(std::string_view path, std::string_view folder) {
  if (path.substr(0, folder.size()) != folder) return false;
  return path.size() == folder.size() || folder.empty() ||
         folder.back() == '/' || path[folder.size()] == '/';
}

std::string AbsoluteNormal(const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  std::string s = (ec ? path : absolute).lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace workspace_internal

using workspace_internal::AbsoluteNormal;
using workspace_internal::IsUnder;

WorkspaceIndex::WorkspaceIndex(IndexOptions options)
    : options_(std::move(options)) {
  threads_ = options_.threads != 0
                 ? options_.threads
                 : std::max(1u, std::thread::hardware_concurrency());
  if (options_.use_cache) {
    fs::path dir = options_.cache_dir.empty() ? CacheStore::DefaultDir()
                                              : options_.cache_dir;
    if (!dir.empty()) cache_ = std::make_unique<CacheStore>(dir);
  }
}

WorkspaceIndex::~WorkspaceIndex() { Persist(/*force=*/true); }

void WorkspaceIndex::Warn(std::string message) {
  std::lock_guard<std::mutex> lock(warnings_mutex_);
  if (warnings_.size() < 1000) warnings_.push_back(std::move(message));
}

std::vector<std::string> WorkspaceIndex::TakeWarnings() {
  std::lock_guard<std::mutex> lock(warnings_mutex_);
  return std::exchange(warnings_, {});
}

void WorkspaceIndex::AddFolder(const fs::path& folder) {
  std::string path = AbsoluteNormal(folder);
  bool is_folder = fs::is_directory(folder);
  if (is_folder) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    bool known = false;
    for (const Folder& f : folders_) known |= f.path == path;
    if (!known) folders_.push_back(Folder{path, true, {}});
  }
  DiscoveryResult found = DiscoverFiles(folder);
  for (std::string& w : found.warnings) Warn(std::move(w));
  FolderCache cache;
  bool loaded = false;
  if (cache_ && is_folder) {
    switch (cache_->Load(path, &cache)) {
      case CacheStore::LoadResult::kHit:
        loaded = true;
        break;
      case CacheStore::LoadResult::kCorrupt:
        ++shards_corrupt_;
        break;
      case CacheStore::LoadResult::kMiss:
        break;
    }
  }
  size_t scanned = files_scanned_;
  IndexFiles(found.files, loaded ? &cache : nullptr);
  if (is_folder) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    // Nothing new since the cache was written: no need to write it again.
    for (Folder& f : folders_) {
      if (f.path == path && loaded && files_scanned_ == scanned &&
          cache.files.size() == found.files.size()) {
        f.dirty = false;
      }
    }
  }
  if (options_.save_after_add) Persist(/*force=*/true);
  WarmTables();
  // Scanning leaves freed buffers behind.
  if (options_.release_memory) ::malloc_trim(0);
}

void WorkspaceIndex::WarmTables() {
  // A long-lived index builds the lookup tables now, so that the next
  // query does not wait for them.
  if (!options_.name_table) return;
  std::shared_lock<std::shared_mutex> lock(mutex_);
  CurrentTables();
}

void WorkspaceIndex::RemoveFolder(const fs::path& folder) {
  std::string prefix = AbsoluteNormal(folder);
  Persist(/*force=*/true);
  {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    folders_.erase(
        std::remove_if(folders_.begin(), folders_.end(),
                       [&](const Folder& f) { return f.path == prefix; }),
        folders_.end());
    std::vector<std::string> gone;
    for (const auto& [path, id] : by_path_) {
      if (!IsUnder(path, prefix)) continue;
      bool covered = false;  // still under another workspace folder
      for (const Folder& f : folders_) covered |= IsUnder(path, f.path);
      if (!covered) gone.push_back(path);
    }
    for (const std::string& path : gone) EraseFile(path);
    for (Folder& f : folders_) f.dirty = false;  // nothing of theirs changed
    Compact();
  }
  ::malloc_trim(0);
}

void WorkspaceIndex::Refresh(const std::vector<fs::path>& paths) {
  std::vector<fs::path> files;
  for (const fs::path& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      // Drop what vanished under it, then (re)index what is there.
      DiscoveryResult found = DiscoverFiles(path);
      for (std::string& w : found.warnings) Warn(std::move(w));
      std::set<std::string> present;
      for (const fs::path& f : found.files) present.insert(AbsoluteNormal(f));
      std::string prefix = AbsoluteNormal(path);
      {
        std::unique_lock<std::shared_mutex> lock(mutex_);
        std::vector<std::string> gone;
        for (const auto& [file, id] : by_path_) {
          if (IsUnder(file, prefix) && !present.count(file))
            gone.push_back(file);
        }
        for (const std::string& file : gone) EraseFile(file);
      }
      files.insert(files.end(), found.files.begin(), found.files.end());
    } else if (IsCandidateByName(path.filename().string())) {
      files.push_back(path);  // a vanished file is dropped by IndexFiles
    }
  }
  IndexFiles(files, nullptr);
  Persist(/*force=*/false);
  WarmTables();
}

void WorkspaceIndex::Persist(bool force) {
  if (!cache_) return;
  std::lock_guard<std::mutex> persist_lock(persist_mutex_);
  auto now = std::chrono::steady_clock::now();
  {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    for (Folder& folder : folders_) {
      if (!folder.dirty) continue;
      if (!force && now - folder.saved < std::chrono::seconds(10)) continue;
      std::vector<CachedFile> files;
      for (const auto& [path, id] : by_path_) {
        if (!IsUnder(path, folder.path)) continue;
        const FileEntry& e = *files_[id];
        CachedFile f;
        f.key = e.key;
        f.content_hash = e.content_hash;
        f.is_hlo = e.is_hlo;
        f.symbol_count = e.symbol_count;
        f.uses = e.uses;
        f.modules = e.modules;
        files.push_back(std::move(f));
      }
      // Written under the shared lock: the encoding borrows the store's
      // arrays, which writers would change. A fresh index of this folder
      // alone uses all of the store.
      const bool all_used =
          !store_may_hold_unused_ && files.size() == by_path_.size();
      absl::Status saved = cache_->Save(
          folder.path, EncodeFolderCache(folder.path, store_, files, all_used));
      if (!saved.ok()) Warn(std::string(saved.message()));
      // Guarded by persist_mutex_ (writers of these fields hold it or the
      // exclusive lock, never both orders).
      folder.dirty = false;
      folder.saved = now;
    }
  }
}

void WorkspaceIndex::Compact() {
  // Blocks and strings of forgotten files stay in the store until here:
  // rebuild it from the live files (through the cache encoding, which keeps
  // only what they use) when it holds much more than they need.
  std::vector<uint8_t> used(store_.block_count(), 0);
  size_t live_records = 0;
  std::vector<CachedFile> files;
  std::vector<uint32_t> ids;
  for (const auto& [path, id] : by_path_) {
    const FileEntry& e = *files_[id];
    for (const BlockUse& u : e.uses) {
      if (!used[u.block]) {
        used[u.block] = 1;
        live_records += store_.Block(u.block).size();
      }
    }
    CachedFile f;
    f.key = e.key;
    f.uses = e.uses;
    f.modules = e.modules;
    files.push_back(std::move(f));
    ids.push_back(id);
  }
  if (live_records * 2 > store_.records().size()) return;
  std::string bytes = EncodeFolderCache("", store_, files).Flatten();
  std::optional<FolderCache> compact = DecodeFolderCache(bytes, nullptr);
  if (!compact) return;
  store_.Assign(compact->name_arena, compact->name_offsets,
                compact->other_arena, compact->other_offsets,
                compact->block_begin, compact->records);
  for (size_t i = 0; i < ids.size(); ++i) {
    FileEntry& e = *files_[ids[i]];
    e.SetUses(std::vector<BlockUse>(compact->files[i].uses.begin(),
                                    compact->files[i].uses.end()));
    e.modules.assign(compact->files[i].modules.begin(),
                     compact->files[i].modules.end());
  }
  store_may_hold_unused_ = false;  // rebuilt from the live files alone
  Changed();
}

std::vector<ModuleFile> WorkspaceIndex::ModuleFiles(
    const fs::path& path) const {
  std::string key = AbsoluteNormal(path);
  std::shared_lock<std::shared_mutex> lock(mutex_);
  auto self_it = by_path_.find(key);
  std::vector<ModuleFile> out;
  if (self_it == by_path_.end() || !files_[self_it->second]->is_hlo) return out;
  const FileEntry& self = *files_[self_it->second];
  auto to_module_file = [](const FileEntry& e) {
    return ModuleFile{e.display_path, e.dump, e.module_name};
  };
  if (self.dump.kind == DumpKind::kNotDump || self.dump.module_id < 0) {
    out.push_back(to_module_file(self));
    return out;
  }
  fs::path folder = fs::path(self.key.path).parent_path();
  std::vector<const FileEntry*> group;
  for (const auto& [p, id] : by_path_) {
    const FileEntry& e = *files_[id];
    if (e.is_hlo && e.dump.module_id == self.dump.module_id &&
        e.dump.module_name == self.dump.module_name &&
        fs::path(e.key.path).parent_path() == folder) {
      group.push_back(&e);
    }
  }
  std::sort(
      group.begin(), group.end(), [](const FileEntry* a, const FileEntry* b) {
        std::string ka = DumpOrderKey(a->dump), kb = DumpOrderKey(b->dump);
        return ka != kb ? ka < kb : a->display_path < b->display_path;
      });
  for (const FileEntry* e : group) out.push_back(to_module_file(*e));
  return out;
}

IndexStats WorkspaceIndex::stats() const {
  IndexStats stats;
  {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    stats.files = by_path_.size();
    stats.memory = store_.MemoryUsage() +
                   files_.capacity() * sizeof(std::unique_ptr<FileEntry>) +
                   by_path_.capacity() * (sizeof(std::string) + 5);
    for (const auto& [path, id] : by_path_) {
      const FileEntry& e = *files_[id];
      stats.memory += sizeof(FileEntry) + e.display_path.capacity() +
                      2 * e.key.path.capacity() + e.uses.size_bytes() +
                      e.modules.capacity() * 8 + e.module_name.capacity() +
                      sizeof(DumpFileName);
      if (!e.is_hlo) continue;
      ++stats.hlo_files;
      stats.symbols += e.symbol_count;
      stats.bytes += e.key.size;
    }
    stats.distinct_names = store_.names().size();
  }
  {
    std::lock_guard<std::mutex> lock(tables_mutex_);
    if (tables_) stats.name_table_memory = tables_->memory;
  }
  stats.shards_loaded = shards_loaded_;
  stats.files_scanned = files_scanned_;
  stats.shards_stale = shards_stale_;
  stats.shards_corrupt = shards_corrupt_;
  return stats;
}

}  // namespace hlo::index
