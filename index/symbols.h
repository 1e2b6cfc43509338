// The symbols of one file, as the index keeps and persists them: flat,
// fixed-size records plus one string pool (no per-symbol allocation).
#ifndef HLO_LSP_INDEX_SYMBOLS_H_
#define HLO_LSP_INDEX_SYMBOLS_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hlo::index {

enum class SymbolKind : uint8_t {
  kModule = 0,
  kComputation = 1,
  kInstruction = 2,
  kMetadata = 3,  // an op_name, or `source_file:line`
};
inline constexpr int kSymbolKindCount = 4;
std::string_view SymbolKindName(SymbolKind kind);
bool SymbolKindFromName(std::string_view name, SymbolKind* kind);

// A string in FileSymbols::pool.
struct PoolRef {
  uint32_t offset = 0;
  uint32_t size = 0;
};

inline constexpr uint32_t kNoRef = 0xFFFFFFFFu;

struct Symbol {
  PoolRef name;
  uint32_t line = 0;         // 1-based
  uint32_t column = 0;       // 1-based, in bytes
  uint32_t module = kNoRef;  // index of the module symbol in the same file
  uint32_t opcode = kNoRef;  // index into FileSymbols::strings (interned)
  uint32_t shape = kNoRef;   // index into FileSymbols::strings (interned)
  SymbolKind kind = SymbolKind::kInstruction;
  uint8_t flags = 0;  // kFlagEntry / kFlagRoot
};
static_assert(sizeof(Symbol) == 32);
inline constexpr uint8_t kFlagEntry = 1;

// The lowercased letters and digits of a name folded into 16 bits: a name
// can only fuzzy-match a pattern whose mask bits it has.
inline uint16_t NameMask16(std::string_view text) {
  uint16_t mask = 0;
  for (char c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    if (c >= 'a' && c <= 'z') {
      mask |= static_cast<uint16_t>(1u << ((c - 'a') & 15));
    } else if (c >= '0' && c <= '9') {
      mask |= static_cast<uint16_t>(1u << ((c - '0' + 10) & 15));
    }
  }
  return mask;
}
inline constexpr uint8_t kFlagRoot = 2;
// The line holds a byte >= 0x80 before the symbol: its UTF-16 column differs
// from its byte column (clients that count UTF-16 need the line to convert).
inline constexpr uint8_t kFlagNonAsciiPrefix = 4;

// Read-only views of the tables; `storage` owns the memory they point into
// (vectors built by the scanner, or a cache file read whole). Cheap to copy.
struct FileSymbols {
  std::span<const Symbol> symbols;   // in file order
  std::span<const PoolRef> strings;  // interned opcodes and shapes
  std::string_view pool;
  std::shared_ptr<const void> storage;
  size_t storage_bytes = 0;  // bytes held by `storage`

  std::string_view Text(PoolRef ref) const {
    return std::string_view(pool).substr(ref.offset, ref.size);
  }
  std::string_view Name(const Symbol& s) const { return Text(s.name); }
  std::string_view String(uint32_t id) const {
    return id == kNoRef || id >= strings.size() ? std::string_view()
                                                : Text(strings[id]);
  }
  std::string_view ModuleName(const Symbol& s) const {
    return s.module < symbols.size() ? Name(symbols[s.module])
                                     : std::string_view();
  }
  size_t MemoryUsage() const { return storage_bytes; }
};

// Builds a FileSymbols in memory (the scanner, tests).
struct FileSymbolsBuilder {
  std::vector<Symbol> symbols;
  std::vector<PoolRef> strings;
  std::string pool;

  FileSymbols Finish() && {
    struct Owned {
      std::vector<Symbol> symbols;
      std::vector<PoolRef> strings;
      std::string pool;
    };
    // Not shrunk to fit: scans are short-lived (the index merges them into
    // its store and drops them), and the copy cost ~5% of a cold index.
    auto owned = std::make_shared<Owned>(
        Owned{std::move(symbols), std::move(strings), std::move(pool)});
    FileSymbols out;
    out.symbols = owned->symbols;
    out.strings = owned->strings;
    out.pool = owned->pool;
    out.storage_bytes = owned->symbols.capacity() * sizeof(Symbol) +
                        owned->strings.capacity() * sizeof(PoolRef) +
                        owned->pool.capacity();
    out.storage = std::move(owned);
    return out;
  }
};

}  // namespace hlo::index

#endif  // HLO_LSP_INDEX_SYMBOLS_H_
