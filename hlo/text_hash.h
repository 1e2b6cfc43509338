// A fast hash for the parser's name tables. The keys are short identifiers
// (`%fusion.123`, opcode names); absl::Hash on a string_view goes through an
// out-of-line LowLevelHash and costs more than the rest of a lookup. This one
// is inline: 8 bytes at a time, a multiply per word and a final mix so that
// the low bits (absl's control byte) and the high bits both vary.
#ifndef HLO_LSP_HLO_TEXT_HASH_H_
#define HLO_LSP_HLO_TEXT_HASH_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace hlo {

struct TextHash {
  size_t operator()(std::string_view s) const {
    constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
    const char* p = s.data();
    size_t n = s.size();
    uint64_t h = kMul ^ n;
    auto mix = [&](uint64_t word) {
      h = (h ^ word) * kMul;
      h ^= h >> 32;
    };
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);
      mix(word);
    }
    if (n >= 4) {  // the last 4..7 bytes as two overlapping words
      uint32_t a, b;
      std::memcpy(&a, p, 4);
      std::memcpy(&b, p + n - 4, 4);
      mix((uint64_t{a} << 32) | b);
    } else if (n > 0) {
      const auto* u = reinterpret_cast<const unsigned char*>(p);
      mix((uint64_t{u[0]} << 16) | (uint64_t{u[n / 2]} << 8) | u[n - 1]);
    }
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 29;
    return static_cast<size_t>(h);
  }
};

// Equality for the same tables: their keys are mostly 4 to 32 bytes, where
// a call to memcmp costs more than comparing inline, 8 bytes at a time.
struct TextEq {
  bool operator()(std::string_view a, std::string_view b) const {
    const size_t n = a.size();
    if (n != b.size()) return false;
    const char* p = a.data();
    const char* q = b.data();
    if (n > 32) return std::memcmp(p, q, n) == 0;
    auto word = [](const char* at) {
      uint64_t w;
      std::memcpy(&w, at, 8);
      return w;
    };
    auto half = [](const char* at) {
      uint32_t w;
      std::memcpy(&w, at, 4);
      return w;
    };
    if (n >= 8) {
      // Whole words, then the last 8 bytes (overlapping the last word).
      for (size_t i = 0; i + 8 < n; i += 8) {
        if (word(p + i) != word(q + i)) return false;
      }
      return word(p + n - 8) == word(q + n - 8);
    }
    if (n >= 4) return half(p) == half(q) && half(p + n - 4) == half(q + n - 4);
    for (size_t i = 0; i < n; ++i) {
      if (p[i] != q[i]) return false;
    }
    return true;
  }
};

}  // namespace hlo

#endif  // HLO_LSP_HLO_TEXT_HASH_H_
