// The persisted index under $XDG_CACHE_HOME/hlo-lsp/: one file per
// workspace folder holding that folder's SymbolStore sections (interned
// strings, deduplicated blocks) and a table of its files, each keyed by
// path, size, mtime, ctime and inode with the xxhash of the content it was
// built from. A warm start is one read, one checksum and one stat per file. The
// file is versioned and checksummed: anything that does not verify is
// rebuilt, never trusted.
#ifndef HLO_LSP_INDEX_SHARD_H_
#define HLO_LSP_INDEX_SHARD_H_

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "index/store.h"

namespace hlo::index {

struct FileKey {
  std::string path;  // absolute, lexically normal
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  // A rewrite that restores the mtime (touch -r, tar, rsync -t) still moves
  // ctime, which no user call can set back.
  int64_t ctime_ns = 0;
  uint64_t inode = 0;
  friend bool operator==(const FileKey&, const FileKey&) = default;
};

absl::StatusOr<FileKey> StatFile(const std::filesystem::path& path);
// Everything in the key but the path.
void FillKeyFromStat(const struct stat& st, FileKey* key);

uint64_t ContentHash(std::string_view bytes);

// One file of a folder, as saved and as loaded (then the spans point into
// the cache file read into memory).
struct CachedFile {
  FileKey key;
  uint64_t content_hash = 0;
  bool is_hlo = false;
  uint32_t symbol_count = 0;
  std::span<const BlockUse> uses;
  std::span<const std::pair<uint32_t, uint32_t>> modules;
};

// A verified folder cache; its spans point into `storage`.
struct FolderCache {
  std::string folder;
  std::string_view name_arena, other_arena;
  std::span<const uint32_t> name_offsets, other_offsets, block_begin;
  std::span<const Record> records;
  std::vector<CachedFile> files;
  std::shared_ptr<const void> storage;
};

// An encoded folder cache as a list of byte ranges, some of them the
// store's own arrays (valid while the store is not changed), so that a
// cache of tens of MB is written without being copied into one buffer.
class EncodedCache {
 public:
  std::span<const std::string_view> parts() const { return parts_; }
  size_t size() const;
  std::string Flatten() const;  // the parts in one string

 private:
  friend EncodedCache EncodeFolderCache(std::string_view folder,
                                        const SymbolStore& store,
                                        std::span<const CachedFile> files,
                                        bool all_used);
  template <typename T>
  std::span<const T> Keep(std::vector<T> v) {
    auto kept = std::make_shared<const std::vector<T>>(std::move(v));
    keep_.push_back(kept);
    return *kept;
  }
  std::string_view Keep(std::string s) {
    auto kept = std::make_shared<const std::string>(std::move(s));
    keep_.push_back(kept);
    return *kept;
  }
  template <typename T>
  void Borrow(std::span<const T> v) {
    Borrow(std::string_view(reinterpret_cast<const char*>(v.data()),
                            v.size_bytes()));
  }
  void Borrow(std::string_view bytes);  // and zeros up to a multiple of 8
  // One section from pieces written back to back, then padded.
  void BorrowJoined(std::span<const std::string_view> pieces);

  std::vector<std::string_view> parts_;
  std::vector<std::shared_ptr<const void>> keep_;
};

// Serialisation (exposed for tests). Only the blocks and strings that
// `files` use are written, renumbered densely; when that is all of them the
// store's arrays are borrowed as they are. `all_used`: the caller knows they
// all are (a fresh index of one folder), so the pass that finds out is
// skipped; were it wrong, the cache would only keep some unused entries.
EncodedCache EncodeFolderCache(std::string_view folder,
                               const SymbolStore& store,
                               std::span<const CachedFile> files,
                               bool all_used = false);
// nullopt unless `bytes` are a complete, checksummed cache of this version
// whose every id and range is in bounds.
std::optional<FolderCache> DecodeFolderCache(
    std::string_view bytes, std::shared_ptr<const void> storage);

class CacheStore {
 public:
  // `dir` is the cache root (e.g. ~/.cache/hlo-lsp); files go in a
  // versioned subfolder.
  explicit CacheStore(std::filesystem::path dir);

  // $XDG_CACHE_HOME/hlo-lsp, else $HOME/.cache/hlo-lsp; empty if neither.
  static std::filesystem::path DefaultDir();

  enum class LoadResult { kHit, kMiss, kCorrupt };
  LoadResult Load(std::string_view folder, FolderCache* out) const;
  // Writes to a temporary file and renames it over the old one.
  absl::Status Save(std::string_view folder, const EncodedCache& bytes) const;

  std::filesystem::path PathFor(std::string_view folder) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace hlo::index

#endif  // HLO_LSP_INDEX_SHARD_H_
