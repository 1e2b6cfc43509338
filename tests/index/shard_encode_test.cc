// EncodeFolderCache's shortcut for a store its files use whole (all_used)
// writes what the full pass writes, and the full pass still drops what no
// file uses.
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "index/scanner.h"
#include "index/shard.h"
#include "index/store.h"

namespace hlo::index {
namespace {

constexpr char kFirst[] = R"(HloModule first

ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  %neg = f32[4]{0} negate(f32[4]{0} %p), metadata={op_name="jit(f)/neg"}
  ROOT %add = f32[4]{0} add(f32[4]{0} %neg, f32[4]{0} %p)
}
)";

constexpr char kSecond[] = R"(HloModule second

ENTRY %main (q: s32[2,3]) -> s32[3,2] {
  %q = s32[2,3]{1,0} parameter(0)
  ROOT %t = s32[3,2]{1,0} transpose(s32[2,3]{1,0} %q), dimensions={1,0}
}
)";

struct Indexed {
  FileSymbols symbols;
  std::vector<BlockUse> uses;
  ModuleRanges modules;
};

Indexed Add(SymbolStore* store, std::string_view text) {
  Indexed out;
  out.symbols = ScanSymbols(text);
  store->Merge(out.symbols, PrepareBlocks(out.symbols), &out.uses,
               &out.modules);
  return out;
}

CachedFile Cached(const Indexed& file, std::string path) {
  CachedFile f;
  f.key.path = std::move(path);
  f.key.size = 1;
  f.is_hlo = true;
  f.symbol_count = static_cast<uint32_t>(file.symbols.symbols.size());
  f.uses = file.uses;
  f.modules = file.modules;
  return f;
}

// Every symbol of every file as text, through the decoded tables.
std::vector<std::string> ShardEncodeDescribe(const FolderCache& cache) {
  std::vector<std::string> out;
  auto text = [](std::string_view arena, std::span<const uint32_t> offsets,
                 uint32_t id) {
    return id == kNoRef ? std::string("-")
                        : std::string(arena.substr(
                              offsets[id], offsets[id + 1] - offsets[id]));
  };
  for (const CachedFile& f : cache.files) {
    for (const BlockUse& u : f.uses) {
      for (uint32_t r = cache.block_begin[u.block];
           r < cache.block_begin[u.block + 1]; ++r) {
        const Record& rec = cache.records[r];
        out.push_back(
            f.key.path + " " +
            text(cache.name_arena, cache.name_offsets, rec.name) + " " +
            text(cache.other_arena, cache.other_offsets, rec.shape) + " " +
            text(cache.other_arena, cache.other_offsets, rec.opcode) + " " +
            std::to_string(u.base_line + rec.line_delta));
      }
    }
    for (const auto& [first, name] : f.modules) {
      out.push_back(f.key.path + " module " +
                    text(cache.name_arena, cache.name_offsets, name) + " " +
                    std::to_string(first));
    }
  }
  return out;
}

TEST(ShardEncodeTest, AllUsedShortcutWritesWhatTheFullPassWrites) {
  SymbolStore store;
  Indexed first = Add(&store, kFirst);
  Indexed second = Add(&store, kSecond);
  std::vector<CachedFile> files = {Cached(first, "/d/a.txt"),
                                   Cached(second, "/d/b.txt")};
  std::string full = EncodeFolderCache("/d", store, files).Flatten();
  std::string shortcut =
      EncodeFolderCache("/d", store, files, /*all_used=*/true).Flatten();
  EXPECT_EQ(full, shortcut);
  std::optional<FolderCache> decoded = DecodeFolderCache(shortcut, nullptr);
  ASSERT_TRUE(decoded.has_value());
  std::vector<std::string> symbols = ShardEncodeDescribe(*decoded);
  EXPECT_NE(std::find(symbols.begin(), symbols.end(),
                      "/d/b.txt t s32[3,2]{1,0} transpose 5"),
            symbols.end());
  EXPECT_NE(
      std::find(symbols.begin(), symbols.end(), "/d/a.txt module first 0"),
      symbols.end());
}

TEST(ShardEncodeTest, FullPassDropsWhatNoFileUses) {
  SymbolStore store;
  Indexed first = Add(&store, kFirst);
  Indexed second = Add(&store, kSecond);
  std::vector<CachedFile> only_second = {Cached(second, "/d/b.txt")};
  // Decoded caches point into these bytes.
  const std::string kept_bytes =
      EncodeFolderCache("/d", store, only_second, /*all_used=*/true).Flatten();
  const std::string dropped_bytes =
      EncodeFolderCache("/d", store, only_second).Flatten();
  std::optional<FolderCache> kept = DecodeFolderCache(kept_bytes, nullptr);
  std::optional<FolderCache> dropped =
      DecodeFolderCache(dropped_bytes, nullptr);
  ASSERT_TRUE(kept.has_value());
  ASSERT_TRUE(dropped.has_value());
  // The same symbols either way; only the full pass leaves out the blocks
  // and names of the first file.
  EXPECT_EQ(ShardEncodeDescribe(*kept), ShardEncodeDescribe(*dropped));
  EXPECT_LT(dropped->records.size(), kept->records.size());
  EXPECT_EQ(dropped->records.size(), second.symbols.symbols.size());
  EXPECT_EQ(dropped->name_arena.find("neg"), std::string_view::npos);
  EXPECT_NE(kept->name_arena.find("neg"), std::string_view::npos);
}

}  // namespace
}  // namespace hlo::index
