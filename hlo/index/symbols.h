// The symbols of one file, as the index keeps and persists them: flat,
// fixed-size records plus one string pool (no per-symbol allocation).
#ifndef HLO_LSP_HLO_INDEX_SYMBOLS_H_
#define HLO_LSP_HLO_INDEX_SYMBOLS_H_

#include <cstdint>
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
  uint32_t line = 0;    // 1-based
  uint32_t column = 0;  // 1-based, in bytes
  uint32_t module = kNoRef;  // index of the module symbol in the same file
  uint32_t opcode = kNoRef;  // index into FileSymbols::strings (interned)
  uint32_t shape = kNoRef;   // index into FileSymbols::strings (interned)
  SymbolKind kind = SymbolKind::kInstruction;
  uint8_t flags = 0;  // kFlagEntry / kFlagRoot
  uint16_t reserved = 0;
};
static_assert(sizeof(Symbol) == 32);
inline constexpr uint8_t kFlagEntry = 1;
inline constexpr uint8_t kFlagRoot = 2;

struct FileSymbols {
  std::vector<Symbol> symbols;  // in file order
  std::vector<PoolRef> strings;  // interned opcodes and shapes
  std::string pool;

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
  size_t MemoryUsage() const {
    return symbols.capacity() * sizeof(Symbol) +
           strings.capacity() * sizeof(PoolRef) + pool.capacity();
  }
};

}  // namespace hlo::index

#endif  // HLO_LSP_HLO_INDEX_SYMBOLS_H_
