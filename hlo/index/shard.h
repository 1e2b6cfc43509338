// Persisted per-file index shards under $XDG_CACHE_HOME/hlo-lsp/. A shard is
// keyed by path, size, mtime and inode, carries the xxhash of the content it
// was built from, and is versioned and checksummed: anything that does not
// verify is a miss (and gets rebuilt), never trusted.
#ifndef HLO_LSP_HLO_INDEX_SHARD_H_
#define HLO_LSP_HLO_INDEX_SHARD_H_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/index/symbols.h"

namespace hlo::index {

struct FileKey {
  std::string path;  // absolute, lexically normal
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  uint64_t inode = 0;
  friend bool operator==(const FileKey&, const FileKey&) = default;
};

absl::StatusOr<FileKey> StatFile(const std::filesystem::path& path);

struct IndexedFile {
  bool is_hlo = false;        // false: sniffed and found not to be HLO text
  uint64_t content_hash = 0;  // XXH3-64 of the bytes that were scanned
  FileSymbols symbols;
};

uint64_t ContentHash(std::string_view bytes);

// Serialisation (exposed for tests).
std::string EncodeShard(const FileKey& key, const IndexedFile& file);
// nullopt when the bytes are not a valid shard for exactly `key`. The
// result points into `bytes`; `storage` must own them (it is kept).
std::optional<IndexedFile> DecodeShard(std::string_view bytes,
                                       const FileKey& key,
                                       std::shared_ptr<const void> storage);

class ShardStore {
 public:
  // `dir` is the cache root (e.g. ~/.cache/hlo-lsp); shards go in a
  // versioned subfolder.
  explicit ShardStore(std::filesystem::path dir);

  // $XDG_CACHE_HOME/hlo-lsp, else $HOME/.cache/hlo-lsp; empty if neither.
  static std::filesystem::path DefaultDir();

  enum class LoadResult { kHit, kMiss, kStale, kCorrupt };
  LoadResult Load(const FileKey& key, IndexedFile* out) const;
  absl::Status Save(const FileKey& key, const IndexedFile& file) const;

  std::filesystem::path ShardPath(std::string_view file_path) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace hlo::index

#endif  // HLO_LSP_HLO_INDEX_SHARD_H_
