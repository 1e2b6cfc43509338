// WorkspaceIndex's private parts, shared by the files that implement it:
// workspace_index.cc (folders, refresh, cache, stats), workspace_build.cc
// (reading, scanning and merging files into the store) and
// workspace_query.cc (lookup tables and Query). Not for other users.
#ifndef HLO_LSP_INDEX_WORKSPACE_INTERNAL_H_
#define HLO_LSP_INDEX_WORKSPACE_INTERNAL_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "index/workspace_index.h"

namespace hlo::index {

struct WorkspaceIndex::FileEntry {
  FileKey key;
  std::string display_path;
  bool is_hlo = false;
  uint64_t content_hash = 0;
  uint64_t content_high = 0;  // with content_hash, XXH3-128 (0: unknown)
  uint32_t symbol_count = 0;
  // Its block uses, in `uses_storage`: a vector of them, or a loaded cache
  // file (adopted as it is), or a twin's (a byte-identical file). Read
  // only; replaced whole.
  std::span<const BlockUse> uses;
  std::shared_ptr<const void> uses_storage;
  ModuleRanges modules;
  DumpFileName dump;
  std::string module_name;  // first HloModule in the file

  void SetUses(std::vector<BlockUse> owned) {
    auto kept = std::make_shared<const std::vector<BlockUse>>(std::move(owned));
    uses = *kept;
    uses_storage = std::move(kept);
  }
  void ShareUses(std::span<const BlockUse> shared,
                 std::shared_ptr<const void> storage) {
    uses = shared;
    uses_storage = std::move(storage);
  }
};

// Derived lookup tables, rebuilt lazily after changes (O(distinct records +
// block uses)): which records carry a name, and where each block is used.
struct WorkspaceIndex::Tables {
  uint64_t generation = 0;
  bool has_postings = true;     // false: only order and rank are filled
  std::vector<uint64_t> masks;  // CharMask per name id (fuzzy.h)
  // Records of name i: postings[post_begin[i] .. post_begin[i + 1]), as
  // (block, offset in block).
  std::vector<uint32_t> post_begin;
  std::vector<std::pair<uint32_t, uint32_t>> postings;
  // Uses of block b: uses[use_begin[b] .. use_begin[b + 1]), as (file id,
  // use index), in file-path then line order.
  std::vector<uint32_t> use_begin;
  std::vector<std::pair<uint32_t, uint32_t>> uses;
  std::vector<uint32_t> order;  // live HLO files by display path
  std::vector<uint32_t> rank;   // file id -> position in `order`
  size_t memory = 0;
};

// What a cache adoption maps: ids in the loaded cache -> ids in the store.
struct WorkspaceIndex::Adoption {
  const FolderCache* cache = nullptr;
  bool identity = false;  // the store was assigned from this cache
  std::vector<uint32_t> block_map, name_map, other_map;
};

namespace workspace_internal {

// Runs `work(thread, i)` for i in [0, count) on up to `threads` threads.
template <typename Work>
void ParallelFor(size_t count, size_t threads, Work work) {
  threads = std::max<size_t>(1, std::min(threads, count));
  std::atomic<size_t> next{0};
  auto worker = [&](size_t thread) {
    for (size_t i; (i = next.fetch_add(1)) < count;) work(thread, i);
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (std::thread& t : pool) t.join();
}

// Whether `path` is `folder` or lies under it.
bool IsUnder(std::string_view path, std::string_view folder);
// The absolute, lexically normal form of `path`, no trailing '/': the key of
// a file in the index.
std::string AbsoluteNormal(const std::filesystem::path& path);

}  // namespace workspace_internal
}  // namespace hlo::index

#endif  // HLO_LSP_INDEX_WORKSPACE_INTERNAL_H_
