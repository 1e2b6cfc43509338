// The index of every HLO file under a set of folders: built in parallel
// (each file read once, never mapped), persisted as one file per folder
// (shard.h), held in a deduplicated SymbolStore (store.h), and
// queried with the search language of query.h. Thread-safe: queries run
// concurrently with indexing and see a consistent snapshot of files.
//
// Use from the LSP server: AddFolder on a worker thread (progress callback
// -> $/progress), Refresh on file events, Query for workspace/symbol,
// ModuleFiles for hlo/moduleFiles and the HloModule code lens.
#ifndef HLO_LSP_INDEX_WORKSPACE_INDEX_H_
#define HLO_LSP_INDEX_WORKSPACE_INDEX_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "index/dump_name.h"
#include "index/query.h"
#include "index/scanner.h"
#include "index/shard.h"
#include "index/store.h"
#include "index/symbols.h"

namespace hlo::index {

struct IndexProgress {
  size_t done = 0;   // files handled so far in this batch
  size_t total = 0;  // files in this batch
};

struct IndexOptions {
  bool use_cache = true;
  std::filesystem::path cache_dir;  // empty: ShardStore::DefaultDir()
  size_t threads = 0;               // 0: all cores
  // Called from indexing threads (serialised by the index), at most about
  // every 1% of a batch and at its end.
  std::function<void(const IndexProgress&)> progress;
  // A long-lived index (the server): build the query lookup tables right
  // after each change instead of at the next query.
  bool name_table = false;
  // Hand freed scan buffers back to the kernel after each batch (a
  // long-lived index); a one-shot process that exits soon need not.
  bool release_memory = true;
  // AddFolder writes the folder's cache before it returns. A caller that
  // has other work meanwhile (the CLI's query) sets this to false and calls
  // SaveCache itself, on another thread.
  bool save_after_add = true;
};

struct IndexStats {
  size_t files = 0;      // candidate files known
  size_t hlo_files = 0;  // of which HLO text
  size_t symbols = 0;
  uint64_t bytes = 0;         // total size of the HLO files
  size_t shards_loaded = 0;   // files answered from the cache (cumulative)
  size_t files_scanned = 0;   // files read and scanned (cumulative)
  size_t shards_stale = 0;    // found but for another version of the file
  size_t shards_corrupt = 0;  // found but failing verification
  size_t memory = 0;          // bytes held by the symbol tables
  size_t distinct_names = 0;  // in the name table (0 without one)
  size_t name_table_memory = 0;
};

struct SymbolMatch {
  std::string path;           // as discovered (under the folder as given)
  std::string absolute_path;  // key of the file in the index
  uint32_t line = 0;          // 1-based
  uint32_t column = 0;        // 1-based, bytes
  SymbolKind kind = SymbolKind::kInstruction;
  uint8_t flags = 0;  // kFlagEntry / kFlagRoot
  std::string name;
  std::string module;
  std::string opcode;
  std::string shape;
  double score = 0;
};

struct ModuleFile {
  std::string path;
  DumpFileName dump;
  std::string module_name;  // from the HloModule line ("" if none)
};

class WorkspaceIndex {
 public:
  explicit WorkspaceIndex(IndexOptions options = {});
  ~WorkspaceIndex();
  WorkspaceIndex(const WorkspaceIndex&) = delete;
  WorkspaceIndex& operator=(const WorkspaceIndex&) = delete;

  // Discovers and indexes `folder` (or one file); blocks until done. Folders
  // may overlap: a file is indexed once.
  void AddFolder(const std::filesystem::path& folder);
  // Writes the cache of every folder changed since it was last written.
  // Queries may run meanwhile.
  void SaveCache() { Persist(/*force=*/true); }
  // Forgets the files found under `folder`.
  void RemoveFolder(const std::filesystem::path& folder);
  // Re-checks these paths (files or folders): new or changed files are
  // (re)indexed, vanished ones dropped. Unchanged files cost one stat.
  void Refresh(const std::vector<std::filesystem::path>& paths);

  // Matches ordered by score, then path, then line. limit 0 = all.
  // InvalidArgument for a query that does not parse or is over the bounds
  // of query.h; Cancelled or DeadlineExceeded when `control` stops it.
  absl::StatusOr<std::vector<SymbolMatch>> Query(
      std::string_view query, size_t limit,
      const QueryControl& control = {}) const;

  // The files of the module that `path` belongs to (same folder, module id
  // and name), in stage/step order; just `path` for a non-dump file.
  std::vector<ModuleFile> ModuleFiles(const std::filesystem::path& path) const;

  IndexStats stats() const;
  // Warnings gathered since the last call (unreadable files and folders).
  std::vector<std::string> TakeWarnings();

 private:
  struct FileEntry;
  struct Tables;
  struct Folder {
    std::string path;  // absolute, lexically normal
    bool dirty = false;
    std::chrono::steady_clock::time_point saved;
  };

  // Stats, adopts from `cache` or scans, and merges `files`; drops the ones
  // that vanished.
  void IndexFiles(const std::vector<std::filesystem::path>& files,
                  const FolderCache* cache);
  // Caller holds mutex_ exclusively.
  void PutFile(std::unique_ptr<FileEntry> entry);
  // Adds a scanned file's blocks to the store and its uses to `entry`
  // (merging each shared chunk on first sight). Caller holds mutex_
  // exclusively.
  void MergeSegments(const SegmentedFile& file, FileEntry* entry);
  void EraseFile(const std::string& path);
  void ForgetContent(uint32_t id);
  void MarkDirty(std::string_view path);
  struct Adoption;
  // Caller holds mutex_ exclusively.
  uint32_t AdoptBlock(Adoption* adoption, uint32_t block);
  uint32_t AdoptName(Adoption* adoption, uint32_t name);
  // Writes the cache of every dirty folder (`force`: even if saved lately).
  void Persist(bool force);
  void Compact();
  void WarmTables();
  // mutex_ held (shared). Without `postings`, unless current tables are at
  // hand: file order only, for a single query.
  std::shared_ptr<const Tables> CurrentTables(bool postings = true) const;
  void FileOrder(Tables* t) const;
  void Changed() { ++generation_; }
  void Warn(std::string message);

  IndexOptions options_;
  std::unique_ptr<CacheStore> cache_;  // null without a cache
  size_t threads_ = 1;

  mutable std::shared_mutex mutex_;  // guards the fields up to generation_
  SymbolStore store_;
  std::vector<std::unique_ptr<FileEntry>> files_;  // by id; null: free
  std::vector<uint32_t> free_ids_;
  absl::flat_hash_map<std::string, uint32_t> by_path_;  // absolute -> id
  // XXH3-128 of a scanned file's bytes -> a live file with that content.
  absl::flat_hash_map<std::pair<uint64_t, uint64_t>, uint32_t> by_content_;
  std::vector<Folder> folders_;
  // The store may hold blocks or strings no live file uses (a file erased
  // or replaced, a cache adopted): the cache encoding must look for them.
  bool store_may_hold_unused_ = false;
  std::atomic<uint64_t> generation_{0};  // bumped on every change
  // Queries so far: an index without name_table builds the postings only
  // from its second query on (a one-shot CLI search never needs them).
  mutable std::atomic<uint64_t> query_count_{0};

  mutable std::mutex tables_mutex_;
  mutable std::shared_ptr<const Tables> tables_;  // guarded by tables_mutex_

  std::mutex persist_mutex_;
  std::mutex warnings_mutex_;
  std::vector<std::string> warnings_;
  std::mutex progress_mutex_;

  std::atomic<size_t> shards_loaded_{0}, files_scanned_{0}, shards_stale_{0},
      shards_corrupt_{0};
};

}  // namespace hlo::index

#endif  // HLO_LSP_INDEX_WORKSPACE_INDEX_H_
