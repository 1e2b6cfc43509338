#include "index/store.h"

#include <algorithm>
#include <cstring>
#include <vector>

// Inlined: most hashed strings are short names, where a call into the
// shared library cost more than the hashing.
#define XXH_INLINE_ALL
#include "xxhash.h"

namespace hlo::index {
namespace {

// Blocks hold at most this many symbols.
constexpr uint32_t kMaxBlock = 64;
// A name whose hash has these bits clear starts a block (about 1 in 16).
constexpr uint64_t kCutMask = 15;

// The canonical bytes of a block, shared by freshly scanned symbols and
// stored records so that both hash alike.
class CanonicalWriter {
 public:
  CanonicalWriter() : bytes_(8 << 10) {}
  void Clear() { size_ = 0; }
  // Written through a pointer into a buffer grown ahead (appending to a
  // string piece by piece cost ~5% of a cold index).
  void Add(uint8_t kind, uint8_t flags, uint32_t line_delta, uint32_t column,
           std::string_view name, const std::string_view* shape,
           const std::string_view* opcode) {
    size_t need = 14 + name.size() + 8 + (shape ? shape->size() : 0) +
                  (opcode ? opcode->size() : 0);
    if (size_ + need > bytes_.size()) {
      bytes_.resize(std::max(bytes_.size() * 2, size_ + need));
    }
    char* p = bytes_.data() + size_;
    p[0] = static_cast<char>(kind);
    p[1] = static_cast<char>(flags);
    std::memcpy(p + 2, &line_delta, 4);
    std::memcpy(p + 6, &column, 4);
    uint32_t n = static_cast<uint32_t>(name.size());
    std::memcpy(p + 10, &n, 4);
    p += 14;
    std::memcpy(p, name.data(), name.size());
    p += name.size();
    p = PutOptional(p, shape);
    p = PutOptional(p, opcode);
    size_ = static_cast<size_t>(p - bytes_.data());
  }
  std::pair<uint64_t, uint64_t> Hash() const {
    XXH128_hash_t h = XXH3_128bits(bytes_.data(), size_);
    return {h.low64, h.high64};
  }

 private:
  static char* PutOptional(char* p, const std::string_view* s) {
    uint32_t n = s == nullptr ? kNoRef : static_cast<uint32_t>(s->size());
    std::memcpy(p, &n, 4);
    p += 4;
    if (s != nullptr) {
      std::memcpy(p, s->data(), s->size());
      p += s->size();
    }
    return p;
  }
  std::vector<char> bytes_;
  size_t size_ = 0;
};

}  // namespace

StringTable::StringTable() : offsets_{0}, set_(0, Hash{this}, Eq{this}) {
  Refresh();
}

void StringTable::Own() {
  if (!backing_) return;
  arena_.assign(arena_view_.data(), arena_view_.size());
  offsets_.assign(offsets_view_.begin(), offsets_view_.end());
  backing_.reset();
  Refresh();
}

size_t StringTable::Hash::operator()(uint32_t id) const {
  return (*this)(table->Get(id));
}
size_t StringTable::Hash::operator()(std::string_view s) const {
  return static_cast<size_t>(XXH3_64bits(s.data(), s.size()));
}

void StringTable::BuildSet() {
  set_.clear();
  set_.reserve(size());
  for (uint32_t id = 0; id < size(); ++id) set_.insert(id);
  set_complete_ = true;
}

uint32_t StringTable::Intern(std::string_view s) {
  if (!set_complete_) BuildSet();
  // One hash and one probe whether `s` is new or not (find then insert
  // hashed a new string twice; most names are new).
  auto it = set_.lazy_emplace(s, [&](const auto& construct) {
    Own();
    const uint32_t id = size();
    arena_.append(s);
    offsets_.push_back(static_cast<uint32_t>(arena_.size()));
    Refresh();
    construct(id);
  });
  return *it;
}

void StringTable::Assign(std::string_view arena,
                         std::span<const uint32_t> offsets,
                         std::shared_ptr<const void> backing) {
  set_.clear();
  if (backing) {
    arena_.clear();
    offsets_.clear();
    arena_view_ = arena;
    offsets_view_ = offsets;
    backing_ = std::move(backing);
  } else {
    arena_.assign(arena.data(), arena.size());
    offsets_.assign(offsets.begin(), offsets.end());
    backing_.reset();
    Refresh();
  }
  set_complete_ = size() == 0;
}

size_t StringTable::MemoryUsage() const {
  // Borrowed bytes count too: they are resident (a mapped cache file).
  size_t bytes =
      backing_ ? arena_view_.size() + offsets_view_.size_bytes()
               : arena_.capacity() + offsets_.capacity() * sizeof(uint32_t);
  return bytes + set_.capacity() * (sizeof(uint32_t) + 1);
}

std::vector<PreparedBlock> PrepareBlocks(const FileSymbols& file) {
  std::vector<PreparedBlock> blocks;
  CanonicalWriter writer;
  const auto& symbols = file.symbols;
  uint32_t n = static_cast<uint32_t>(symbols.size());
  uint32_t first = 0;
  auto finish = [&](uint32_t end) {
    writer.Clear();
    uint32_t base = symbols[first].line;
    for (uint32_t i = first; i < end; ++i) {
      const Symbol& s = symbols[i];
      std::string_view shape = file.String(s.shape);
      std::string_view opcode = file.String(s.opcode);
      writer.Add(static_cast<uint8_t>(s.kind), s.flags, s.line - base, s.column,
                 file.Name(s), s.shape == kNoRef ? nullptr : &shape,
                 s.opcode == kNoRef ? nullptr : &opcode);
    }
    auto [low, high] = writer.Hash();
    blocks.push_back(PreparedBlock{low, high, first, end - first});
    first = end;
  };
  for (uint32_t i = 1; i < n; ++i) {
    const Symbol& s = symbols[i];
    bool cut = i - first >= kMaxBlock || s.kind == SymbolKind::kModule ||
               s.kind == SymbolKind::kComputation;
    if (!cut) {
      // A cheap hash of the name's first and last eight bytes and length
      // (a byte-at-a-time hash cost ~0.25 s per GiB of dumps): only a few
      // of its bits pick cut points.
      std::string_view name = file.Name(s);
      uint64_t head = 0, tail = 0;
      size_t n = std::min<size_t>(name.size(), 8);
      std::memcpy(&head, name.data(), n);
      std::memcpy(&tail, name.data() + name.size() - n, n);
      uint64_t h = (head ^ (tail * 0x9E3779B97F4A7C15ull) ^ name.size()) *
                   0xFF51AFD7ED558CCDull;
      cut = ((h >> 40) & kCutMask) == 0;
    }
    if (cut) finish(i);
  }
  if (n > 0) finish(n);
  return blocks;
}

SymbolStore::HashKey SymbolStore::HashOf(
    std::span<const Record> records) const {
  CanonicalWriter writer;
  for (const Record& r : records) {
    std::string_view shape =
        r.shape == kNoRef ? std::string_view() : others_.Get(r.shape);
    std::string_view opcode =
        r.opcode == kNoRef ? std::string_view() : others_.Get(r.opcode);
    writer.Add(r.kind, r.flags, r.line_delta, r.column, names_.Get(r.name),
               r.shape == kNoRef ? nullptr : &shape,
               r.opcode == kNoRef ? nullptr : &opcode);
  }
  auto [low, high] = writer.Hash();
  return HashKey{low, high};
}

void SymbolStore::BuildBlockMap() {
  block_ids_.clear();
  block_ids_.reserve(block_count());
  for (uint32_t b = 0; b < block_count(); ++b) {
    block_ids_.try_emplace(HashOf(Block(b)), b);
  }
  block_map_complete_ = true;
}

void SymbolStore::Own() {
  if (!backing_) return;
  records_.assign(records_view_.begin(), records_view_.end());
  block_begin_.assign(block_begin_view_.begin(), block_begin_view_.end());
  backing_.reset();
  Refresh();
}

uint32_t SymbolStore::AddBlock(std::span<const Record> records) {
  if (!block_map_complete_) BuildBlockMap();
  auto [it, inserted] = block_ids_.try_emplace(HashOf(records), 0);
  if (inserted) {
    Own();
    it->second = block_count();
    records_.insert(records_.end(), records.begin(), records.end());
    block_begin_.push_back(static_cast<uint32_t>(records_.size()));
    Refresh();
  }
  return it->second;
}

void SymbolStore::Merge(const FileSymbols& file,
                        std::span<const PreparedBlock> blocks,
                        std::vector<BlockUse>* uses, ModuleRanges* modules) {
  if (!block_map_complete_) BuildBlockMap();
  Own();
  // The scan's own ids of shapes and opcodes, mapped to the store's once
  // each (a symbol would look up two strings most symbols share).
  other_ids_.assign(file.strings.size(), kNoRef);
  auto other_id = [&](uint32_t scan_id) {
    if (scan_id >= other_ids_.size()) return others_.Intern("");
    uint32_t& id = other_ids_[scan_id];
    if (id == kNoRef) id = others_.Intern(file.String(scan_id));
    return id;
  };
  for (const PreparedBlock& pb : blocks) {
    uint32_t base = file.symbols[pb.first].line;
    auto [it, inserted] =
        block_ids_.try_emplace(HashKey{pb.hash_low, pb.hash_high}, 0);
    if (inserted) {
      it->second = block_count();
      for (uint32_t i = pb.first; i < pb.first + pb.count; ++i) {
        const Symbol& s = file.symbols[i];
        Record r;
        r.name = names_.Intern(file.Name(s));
        if (s.shape != kNoRef) r.shape = other_id(s.shape);
        if (s.opcode != kNoRef) r.opcode = other_id(s.opcode);
        r.line_delta = s.line - base;
        r.column = s.column;
        r.kind = static_cast<uint8_t>(s.kind);
        r.flags = s.flags;
        records_.push_back(r);
      }
      block_begin_.push_back(static_cast<uint32_t>(records_.size()));
      Refresh();
    }
    uses->push_back(BlockUse{it->second, base, pb.first});
  }
  for (uint32_t i = 0; i < file.symbols.size(); ++i) {
    if (file.symbols[i].kind == SymbolKind::kModule) {
      modules->push_back({i, names_.Intern(file.Name(file.symbols[i]))});
    }
  }
}

void SymbolStore::Assign(std::string_view name_arena,
                         std::span<const uint32_t> name_offsets,
                         std::string_view other_arena,
                         std::span<const uint32_t> other_offsets,
                         std::span<const uint32_t> block_begin,
                         std::span<const Record> records,
                         std::shared_ptr<const void> backing) {
  names_.Assign(name_arena, name_offsets, backing);
  others_.Assign(other_arena, other_offsets, backing);
  if (backing) {
    records_.clear();
    block_begin_.clear();
    records_view_ = records;
    block_begin_view_ = block_begin;
    backing_ = std::move(backing);
  } else {
    block_begin_.assign(block_begin.begin(), block_begin.end());
    records_.assign(records.begin(), records.end());
    backing_.reset();
    Refresh();
  }
  block_ids_.clear();
  block_map_complete_ = block_count() == 0;
}

size_t SymbolStore::MemoryUsage() const {
  size_t tables =
      backing_ ? records_view_.size_bytes() + block_begin_view_.size_bytes()
               : records_.capacity() * sizeof(Record) +
                     block_begin_.capacity() * sizeof(uint32_t);
  return names_.MemoryUsage() + others_.MemoryUsage() + tables +
         block_ids_.capacity() * (sizeof(HashKey) + sizeof(uint32_t) + 1);
}

}  // namespace hlo::index
