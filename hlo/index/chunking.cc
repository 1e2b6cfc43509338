#include "hlo/index/chunking.h"

#include <algorithm>
#include <cstring>

#include "xxhash.h"

#if defined(__x86_64__)
#include <immintrin.h>
// Chunks are kilobytes long: the library's AVX2/AVX-512 code, picked at run
// time, hashes them ~2x faster than the SSE2 code a default build inlines.
#include "xxh_x86dispatch.h"
#endif

namespace hlo::index {
namespace {

constexpr uint32_t kChunkMinLines = 16;
constexpr size_t kChunkMaxBytes = 64 << 10;

// About one line in 32 ends a chunk: a hash of its last eight bytes, eight
// from its middle and its length.
inline bool CutAfterLine(const char* p, size_t len) {
  if (len == 0 || (len == 1 && p[0] == '\r')) return true;
  uint64_t a = 0, b = 0;
  if (len >= 16) {
    std::memcpy(&a, p + len - 8, 8);
    std::memcpy(&b, p + len / 2, 8);
  } else {
    std::memcpy(&a, p, std::min<size_t>(len, 8));
  }
  uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ull) ^ len) * 0xFF51AFD7ED558CCDull;
  return (h >> 58) == 0;
}

// The chunk being built, fed every line end in order.
class Cutter {
 public:
  Cutter(std::string_view text, const ScanOptions& options, ChunkedText* out)
      : data_(text.data()),
        size_(text.size()),
        seed_(options.metadata ? 1 : 0),
        out_(out) {}

  // A line ends at `end` (its '\n', or the end of the text).
  [[gnu::always_inline]] inline void EndLine(size_t end) {
    ++chunk_.lines;
    const bool cut = chunk_.lines >= kChunkMinLines &&
                     CutAfterLine(data_ + line_start_, end - line_start_);
    line_start_ = std::min(end + 1, size_);
    if (cut || line_start_ - chunk_.begin >= kChunkMaxBytes ||
        line_start_ == size_) {
      Emit();
    }
  }

  // The 64 bytes at `at` (at + 64 <= size), whose newlines are the bits of
  // `newlines`. Lines that cannot end a chunk (too few lines yet) are only
  // counted.
  [[gnu::always_inline]] inline void Block(size_t at, uint64_t newlines) {
    if (newlines == 0) return;
    const uint32_t count =
        static_cast<uint32_t>(__builtin_popcountll(newlines));
    if (chunk_.lines + count < kChunkMinLines && at + 64 < size_ &&
        at + 64 - chunk_.begin < kChunkMaxBytes) {
      chunk_.lines += count;
      line_start_ = at + 64 - static_cast<size_t>(__builtin_clzll(newlines));
      return;
    }
    do {
      EndLine(at + static_cast<size_t>(__builtin_ctzll(newlines)));
      newlines &= newlines - 1;
    } while (newlines != 0);
  }

  // The bytes from `from` on, one at a time; then a last line without '\n'.
  void Finish(size_t from) {
    for (size_t i = from; i < size_; ++i) {
      if (data_[i] == '\n') EndLine(i);
    }
    if (line_start_ < size_) EndLine(size_);
  }

  const char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  [[gnu::noinline]] void Emit() {
    chunk_.end = line_start_;
    XXH128_hash_t h = XXH3_128bits_withSeed(data_ + chunk_.begin,
                                            chunk_.end - chunk_.begin, seed_);
    chunk_.key = {h.low64, h.high64};
    out_->chunks.push_back(chunk_);
    chunk_ = ChunkedText::Chunk();
    chunk_.begin = line_start_;
  }

  const char* data_;
  size_t size_;
  uint64_t seed_;
  ChunkedText* out_;
  ChunkedText::Chunk chunk_;
  size_t line_start_ = 0;
};

// Newline masks 64 bytes at a time (lines are short: a memchr call per line
// cost more than the scan itself), with the widest vectors the CPU has.
// Each returns where the byte-at-a-time tail starts.
#if defined(__x86_64__)
[[gnu::target("avx512bw,popcnt,lzcnt,bmi")]] size_t CutAvx512(Cutter& cut) {
  const __m512i newline = _mm512_set1_epi8('\n');
  size_t i = 0;
  for (; i + 64 <= cut.size(); i += 64) {
    __m512i v = _mm512_loadu_si512(cut.data() + i);
    cut.Block(i, _mm512_cmpeq_epi8_mask(v, newline));
  }
  return i;
}

[[gnu::target("avx2,popcnt,lzcnt,bmi")]] size_t CutAvx2(Cutter& cut) {
  const __m256i newline = _mm256_set1_epi8('\n');
  size_t i = 0;
  for (; i + 64 <= cut.size(); i += 64) {
    const char* p = cut.data() + i;
    __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
    uint64_t m = static_cast<uint32_t>(
                     _mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, newline))) |
                 static_cast<uint64_t>(static_cast<uint32_t>(
                     _mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, newline))))
                     << 32;
    cut.Block(i, m);
  }
  return i;
}

size_t CutSse2(Cutter& cut) {
  const __m128i newline = _mm_set1_epi8('\n');
  auto mask16 = [&](const char* p) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return static_cast<uint64_t>(
        static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, newline))));
  };
  size_t i = 0;
  for (; i + 64 <= cut.size(); i += 64) {
    const char* p = cut.data() + i;
    cut.Block(i, mask16(p) | mask16(p + 16) << 16 | mask16(p + 32) << 32 |
                     mask16(p + 48) << 48);
  }
  return i;
}

size_t CutVectorized(Cutter& cut) {
  static const int level = __builtin_cpu_supports("avx512bw") ? 2
                           : __builtin_cpu_supports("avx2")   ? 1
                                                              : 0;
  switch (level) {
    case 2:
      return CutAvx512(cut);
    case 1:
      return CutAvx2(cut);
    default:
      return CutSse2(cut);
  }
}
#else
size_t CutVectorized(Cutter&) { return 0; }
#endif

}  // namespace

ChunkedText CutChunks(std::string_view text, const ScanOptions& options) {
  ChunkedText out;
  Cutter cut(text, options, &out);
  cut.Finish(CutVectorized(cut));
  // The whole text's hash: its chunks' hashes, in order, and its size.
  std::vector<uint64_t> keys;
  keys.reserve(out.chunks.size() * 2 + 1);
  for (const ChunkedText::Chunk& chunk : out.chunks) {
    keys.push_back(chunk.key.first);
    keys.push_back(chunk.key.second);
  }
  keys.push_back(text.size());
  XXH128_hash_t h = XXH3_128bits(keys.data(), keys.size() * sizeof(uint64_t));
  out.hash = {h.low64, h.high64};
  return out;
}

}  // namespace hlo::index
