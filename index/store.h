// The compact, deduplicated symbol store behind WorkspaceIndex.
//
// A dump folder holds the same module many times (its stages and every pass
// dump), so most symbols repeat file after file with the same name, shape,
// opcode and even the same line offsets. The store keeps:
//   - names and shape/opcode strings interned once (StringTable: one arena,
//     dense ids, no std::string per symbol);
//   - symbols as 24-byte records grouped in content-defined blocks (a block
//     starts at a computation header or at a name whose hash has its low
//     bits clear, so a local edit only changes its own block); identical
//     blocks are stored once, lines relative to the block's first symbol;
//   - per file only its list of block uses (block id, first line).
// The arrays are flat (CSR-like) so that a folder's store is written and
// read back as a handful of memcpy-able sections.
#ifndef HLO_LSP_INDEX_STORE_H_
#define HLO_LSP_INDEX_STORE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "index/symbols.h"

namespace hlo::index {

// Interned strings with dense ids [0, size()).
class StringTable {
 public:
  StringTable();
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;

  uint32_t Intern(std::string_view s);
  std::string_view Get(uint32_t id) const {
    return std::string_view(arena_view_.data() + offsets_view_[id],
                            offsets_view_[id + 1] - offsets_view_[id]);
  }
  uint32_t size() const {
    return static_cast<uint32_t>(offsets_view_.size() - 1);
  }
  // Bytes of all strings together.
  size_t bytes() const { return offsets_view_.back(); }
  // The strings back to back, and where each starts (size() + 1 offsets).
  std::string_view arena() const { return arena_view_.substr(0, bytes()); }
  std::span<const uint32_t> offsets() const { return offsets_view_; }
  size_t MemoryUsage() const;

  // Replaces the contents (a loaded cache); the lookup set is rebuilt only
  // when something is interned next. `offsets` starts at 0, ends at
  // arena.size(), never decreases (the caller checks). With `backing` (what
  // owns the bytes, e.g. a cache file read whole) nothing is copied until the
  // first Intern of a new string.
  void Assign(std::string_view arena, std::span<const uint32_t> offsets,
              std::shared_ptr<const void> backing = nullptr);

 private:
  struct Hash {
    using is_transparent = void;
    const StringTable* table;
    size_t operator()(uint32_t id) const;
    size_t operator()(std::string_view s) const;
  };
  struct Eq {
    using is_transparent = void;
    const StringTable* table;
    bool operator()(uint32_t a, uint32_t b) const { return a == b; }
    bool operator()(uint32_t a, std::string_view b) const {
      return table->Get(a) == b;
    }
    bool operator()(std::string_view a, uint32_t b) const {
      return a == table->Get(b);
    }
  };
  void BuildSet();
  void Own();  // copies borrowed contents into arena_/offsets_
  void Refresh() {
    arena_view_ = arena_;
    offsets_view_ = offsets_;
  }

  std::string arena_;
  std::vector<uint32_t> offsets_;
  // What Get reads: arena_/offsets_, or borrowed bytes kept by backing_.
  std::string_view arena_view_;
  std::span<const uint32_t> offsets_view_;
  std::shared_ptr<const void> backing_;
  absl::flat_hash_set<uint32_t, Hash, Eq> set_;
  bool set_complete_ = true;  // false after Assign until BuildSet
};

// One symbol in a block. Strings are ids: `name` into the name table,
// `shape` and `opcode` into the other table (kNoRef when absent).
struct Record {
  uint32_t name = 0;
  uint32_t shape = kNoRef;
  uint32_t opcode = kNoRef;
  uint32_t line_delta = 0;  // line - the block's first line
  uint32_t column = 0;      // 1-based, bytes
  uint8_t kind = 0;         // SymbolKind
  uint8_t flags = 0;        // kFlagEntry / kFlagRoot
  uint16_t reserved = 0;
};
static_assert(sizeof(Record) == 24);

// Where a block occurs in a file.
struct BlockUse {
  uint32_t block = 0;
  uint32_t base_line = 0;     // line of the block's first symbol
  uint32_t first_symbol = 0;  // index of that symbol in the file
};
static_assert(sizeof(BlockUse) == 12);

// A block of a freshly scanned file, before it is merged into a store: the
// symbols [first, first + count) of the FileSymbols and their content hash.
struct PreparedBlock {
  uint64_t hash_low = 0, hash_high = 0;  // XXH3-128 of the canonical content
  uint32_t first = 0;
  uint32_t count = 0;
};
// Cuts `symbols` into content-defined blocks and hashes each (no store
// needed: runs on the indexing threads, outside any lock).
std::vector<PreparedBlock> PrepareBlocks(const FileSymbols& symbols);

// The module of a symbol: modules[i] = (index of the first symbol it covers,
// name id); symbols before the first module have none.
using ModuleRanges = std::vector<std::pair<uint32_t, uint32_t>>;

class SymbolStore {
 public:
  SymbolStore() = default;
  SymbolStore(const SymbolStore&) = delete;
  SymbolStore& operator=(const SymbolStore&) = delete;

  StringTable& names() { return names_; }
  const StringTable& names() const { return names_; }
  StringTable& others() { return others_; }
  const StringTable& others() const { return others_; }

  uint32_t block_count() const {
    return static_cast<uint32_t>(block_begin_view_.size() - 1);
  }
  std::span<const Record> Block(uint32_t block) const {
    return std::span<const Record>(
        records_view_.data() + block_begin_view_[block],
        block_begin_view_[block + 1] - block_begin_view_[block]);
  }
  std::span<const Record> records() const { return records_view_; }
  std::span<const uint32_t> block_begin() const { return block_begin_view_; }

  // Adds the blocks of a scanned file (interning what is new); appends its
  // uses to `uses` and its modules to `modules`.
  void Merge(const FileSymbols& symbols, std::span<const PreparedBlock> blocks,
             std::vector<BlockUse>* uses, ModuleRanges* modules);

  // Adds one block of records whose ids are already this store's; returns
  // the id of the identical block when there is one.
  uint32_t AddBlock(std::span<const Record> records);

  // Replaces everything with loaded tables (ids kept as they are); with
  // `backing`, borrowed until the first change (see StringTable::Assign).
  void Assign(std::string_view name_arena,
              std::span<const uint32_t> name_offsets,
              std::string_view other_arena,
              std::span<const uint32_t> other_offsets,
              std::span<const uint32_t> block_begin,
              std::span<const Record> records,
              std::shared_ptr<const void> backing = nullptr);

  bool empty() const { return records_view_.empty() && names_.size() == 0; }
  size_t MemoryUsage() const;

 private:
  struct HashKey {
    uint64_t low, high;
    friend bool operator==(const HashKey&, const HashKey&) = default;
    template <typename H>
    friend H AbslHashValue(H h, const HashKey& k) {
      return H::combine(std::move(h), k.low);
    }
  };
  void BuildBlockMap();
  HashKey HashOf(std::span<const Record> records) const;
  void Own();  // copies borrowed records into records_/block_begin_
  void Refresh() {
    records_view_ = records_;
    block_begin_view_ = block_begin_;
  }

  StringTable names_;
  StringTable others_;
  std::vector<Record> records_;
  std::vector<uint32_t> block_begin_{0};
  // What Block reads: records_/block_begin_ or borrowed (backing_).
  std::span<const Record> records_view_;
  std::span<const uint32_t> block_begin_view_{block_begin_};
  std::shared_ptr<const void> backing_;
  absl::flat_hash_map<HashKey, uint32_t> block_ids_;
  bool block_map_complete_ = true;
  std::vector<uint32_t> other_ids_;  // Merge's map of a scan's string ids
};

}  // namespace hlo::index

#endif  // HLO_LSP_INDEX_STORE_H_
