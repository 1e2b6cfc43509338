#include "index/chunking.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "xxhash.h"

#if defined(__x86_64__)
#include <immintrin.h>
// Chunks are kilobytes long: the library's AVX2/AVX-512 code, picked at run
// time, hashes them ~2x faster than the SSE2 code a default build inlines.
#include "xxh_x86dispatch.h"
#endif

namespace hlo::index {
namespace {

constexpr uint32_t kChunkMinLines = 32;
constexpr size_t kChunkMaxBytes = 64 << 10;

// A line may end a chunk when it is blank, or when its last four bytes
// b1..b4 (b1 just before the '\n'; bytes before the text count as 0) give
// (b1 ^ b3 ^ (b2 + b4)) & 127 == 42: about one line in 128, decided by bytes
// at fixed offsets from each '\n', so that 64 of them are tested at once
// with vector compares instead of a hash per line.
constexpr uint8_t kCutBits = 127;
constexpr uint8_t kCutValue = 42;

inline uint8_t ByteBefore(const char* data, size_t pos, size_t back) {
  return pos >= back ? static_cast<uint8_t>(data[pos - back]) : 0;
}
inline bool MayCutAt(const char* data, size_t newline) {
  const uint8_t b1 = ByteBefore(data, newline, 1);
  const uint8_t b2 = ByteBefore(data, newline, 2);
  if (newline == 0 || b1 == '\n' || (b1 == '\r' && b2 == '\n')) return true;
  const uint8_t b3 = ByteBefore(data, newline, 3);
  const uint8_t b4 = ByteBefore(data, newline, 4);
  return ((b1 ^ b3 ^ static_cast<uint8_t>(b2 + b4)) & kCutBits) == kCutValue;
}

// The chunk being built, fed the text 64 bytes at a time: masks of its
// newlines and of the newlines that may end a chunk.
class Cutter {
 public:
  // `size`: what the text's size is expected to be (Finish may correct it).
  Cutter(const char* data, size_t size, const ScanOptions& options,
         ChunkedText* out)
      : data_(data), size_(size), seed_(options.metadata ? 1 : 0), out_(out) {}

  // The vector loops keep the chunk's line count in a register: blocks
  // that end before safe_end() and have no candidate (or too few lines for
  // one to count) only add their newlines to it. Any other block goes
  // through Block, with the count handed over and read back.
  uint32_t lines() const { return chunk_.lines; }
  void set_lines(uint32_t lines) { chunk_.lines = lines; }
  // A block [at, at + 64) with at + 64 < safe_end() can end the chunk only
  // at a candidate: the text's end and the chunk's size limit are further.
  size_t safe_end() const {
    return std::min(size_, chunk_.begin + kChunkMaxBytes);
  }

  // Block for the vector loops: takes their line count and gives back the
  // count and safe_end() as the block leaves them.
  [[gnu::always_inline]] inline void Block(size_t at, uint64_t newlines,
                                           uint64_t candidates, uint32_t* lines,
                                           size_t* safe) {
    chunk_.lines = *lines;
    Block(at, newlines, candidates);
    *lines = chunk_.lines;
    *safe = safe_end();
  }

  // The 64 bytes at `at` (at + 64 <= size), line by line.
  [[gnu::always_inline]] inline void Block(size_t at, uint64_t newlines,
                                           uint64_t candidates) {
    while (newlines != 0) {
      const int bit = __builtin_ctzll(newlines);
      EndLine(at + static_cast<size_t>(bit), (candidates >> bit) & 1);
      newlines &= newlines - 1;
    }
  }

  // The text ends at `size`: the bytes from `from` on, one at a time, then
  // a last line without '\n'.
  void Finish(size_t from, size_t size) {
    size_ = size;
    // The vector loops count lines without noting where the last began.
    const void* last =
        from > chunk_.begin
            ? ::memrchr(data_ + chunk_.begin, '\n', from - chunk_.begin)
            : nullptr;
    line_start_ =
        last ? static_cast<const char*>(last) - data_ + 1 : chunk_.begin;
    for (size_t i = from; i < size_; ++i) {
      if (data_[i] == '\n') EndLine(i, MayCutAt(data_, i));
    }
    if (line_start_ < size_) EndLine(size_, false);
    // The text came out shorter than expected, right after a line.
    if (chunk_.lines > 0) Emit();
  }

  const char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  // A line ends at `end` (its '\n', or the end of the text).
  [[gnu::always_inline]] inline void EndLine(size_t end, bool candidate) {
    ++chunk_.lines;
    line_start_ = std::min(end + 1, size_);
    if ((candidate && chunk_.lines >= kChunkMinLines) ||
        line_start_ - chunk_.begin >= kChunkMaxBytes || line_start_ == size_) {
      Emit();
    }
  }

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

// The vector loops start at byte 64, so that the four bytes before each
// position can be loaded; the first 64 bytes and the tail go one at a time.
// Each returns where its loop stopped.
#if defined(__x86_64__)
[[gnu::target("avx512bw,popcnt,lzcnt,bmi")]] size_t CutAvx512(Cutter& cut,
                                                              size_t from,
                                                              size_t to) {
  const char* data = cut.data();
  const __m512i newline = _mm512_set1_epi8('\n');
  const __m512i cr = _mm512_set1_epi8('\r');
  const __m512i bits = _mm512_set1_epi8(kCutBits);
  const __m512i value = _mm512_set1_epi8(kCutValue);
  size_t i = from;
  if (i + 64 > to) return i;
  uint32_t lines = cut.lines();
  size_t safe = cut.safe_end();
  // The bytes 1..4 before each position come from this block and the one
  // before it, shifted in registers: one load per 64 bytes.
  __m512i prev = _mm512_loadu_si512(data + i - 64);
  for (; i + 64 <= to; i += 64) {
    const __m512i cur = _mm512_loadu_si512(data + i);
    const uint64_t nl = _mm512_cmpeq_epi8_mask(cur, newline);
    const uint32_t after =
        lines + static_cast<uint32_t>(__builtin_popcountll(nl));
    const bool safe_block = i + 64 < safe;
    if (safe_block && after < kChunkMinLines) {
      lines = after;
      prev = cur;
      continue;
    }
    // tail[j] is the byte 16 before j; alignr then shifts each 16-byte
    // lane by k with the lane before it.
    const __m512i tail = _mm512_alignr_epi64(cur, prev, 6);
    const __m512i b1 = _mm512_alignr_epi8(cur, tail, 15);
    const __m512i b2 = _mm512_alignr_epi8(cur, tail, 14);
    const __m512i b3 = _mm512_alignr_epi8(cur, tail, 13);
    const __m512i b4 = _mm512_alignr_epi8(cur, tail, 12);
    prev = cur;
    const __m512i h = _mm512_and_si512(
        _mm512_xor_si512(_mm512_xor_si512(b1, b3), _mm512_add_epi8(b2, b4)),
        bits);
    const uint64_t blank =
        _mm512_cmpeq_epi8_mask(b1, newline) |
        (_mm512_cmpeq_epi8_mask(b1, cr) & _mm512_cmpeq_epi8_mask(b2, newline));
    const uint64_t candidates = nl & (blank | _mm512_cmpeq_epi8_mask(h, value));
    if (safe_block && candidates == 0) {
      lines = after;
      continue;
    }
    cut.Block(i, nl, candidates, &lines, &safe);
  }
  cut.set_lines(lines);
  return i;
}

[[gnu::target("avx2")]] inline __m256i Load32(const char* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
[[gnu::target("avx2")]] inline uint64_t Mask32(__m256i a, __m256i b) {
  return static_cast<uint64_t>(
      static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, b))));
}
// Newlines (in *newlines) and cut candidates of the 32 bytes at p.
[[gnu::target("avx2")]] inline uint64_t Candidates32(const char* p,
                                                     uint64_t* newlines) {
  const __m256i newline = _mm256_set1_epi8('\n');
  *newlines = Mask32(Load32(p), newline);
  if (*newlines == 0) return 0;
  const __m256i b1 = Load32(p - 1), b2 = Load32(p - 2);
  const __m256i h =
      _mm256_and_si256(_mm256_xor_si256(_mm256_xor_si256(b1, Load32(p - 3)),
                                        _mm256_add_epi8(b2, Load32(p - 4))),
                       _mm256_set1_epi8(kCutBits));
  return *newlines &
         (Mask32(b1, newline) |
          (Mask32(b1, _mm256_set1_epi8('\r')) & Mask32(b2, newline)) |
          Mask32(h, _mm256_set1_epi8(kCutValue)));
}

[[gnu::target("avx2,popcnt,lzcnt,bmi")]] size_t CutAvx2(Cutter& cut,
                                                        size_t from,
                                                        size_t to) {
  size_t i = from;
  uint32_t lines = cut.lines();
  size_t safe = cut.safe_end();
  for (; i + 64 <= to; i += 64) {
    uint64_t nl_lo, nl_hi;
    const uint64_t c_lo = Candidates32(cut.data() + i, &nl_lo);
    const uint64_t c_hi = Candidates32(cut.data() + i + 32, &nl_hi);
    const uint64_t nl = nl_lo | nl_hi << 32;
    const uint64_t candidates = c_lo | c_hi << 32;
    const uint32_t after =
        lines + static_cast<uint32_t>(__builtin_popcountll(nl));
    if (i + 64 < safe && (candidates == 0 || after < kChunkMinLines)) {
      lines = after;
      continue;
    }
    cut.Block(i, nl, candidates, &lines, &safe);
  }
  cut.set_lines(lines);
  return i;
}

size_t CutVectorized(Cutter& cut, size_t from, size_t to) {
  static const int level = __builtin_cpu_supports("avx512bw") ? 2
                           : __builtin_cpu_supports("avx2")   ? 1
                                                              : 0;
  switch (level) {
    case 2:
      return CutAvx512(cut, from, to);
    case 1:
      return CutAvx2(cut, from, to);
    default:
      return from;
  }
}
#else
size_t CutVectorized(Cutter&, size_t from, size_t) { return from; }
#endif

}  // namespace

struct ChunkCutter::State {
  State(const char* data, size_t size, const ScanOptions& options)
      : cutter(data, size, options, &out) {}
  ChunkedText out;
  Cutter cutter;
  size_t next = 0;  // bytes cut so far
};

ChunkCutter::ChunkCutter(const char* data, size_t expected_size,
                         const ScanOptions& options)
    : state_(std::make_unique<State>(data, expected_size, options)) {}

ChunkCutter::~ChunkCutter() = default;

void ChunkCutter::Advance(size_t available) {
  State& s = *state_;
  const char* data = s.cutter.data();
  available = std::min(available, s.cutter.size());
  if (s.next == 0) {
    // The first 64 bytes as one block tested byte by byte: the vector loops
    // look 4 bytes back.
    if (available < 128) return;
    uint64_t newlines = 0, candidates = 0;
    for (size_t i = 0; i < 64; ++i) {
      if (data[i] != '\n') continue;
      newlines |= uint64_t{1} << i;
      if (MayCutAt(data, i)) candidates |= uint64_t{1} << i;
    }
    s.cutter.Block(0, newlines, candidates);
    s.next = 64;
  }
  s.next = CutVectorized(s.cutter, s.next, available);
}

ChunkedText ChunkCutter::Finish(size_t size) {
  State& s = *state_;
  s.cutter.Finish(std::min(s.next, size), size);
  ChunkedText out = std::move(s.out);
  // The whole text's hash: its chunks' hashes, in order, and its size.
  std::vector<uint64_t> keys;
  keys.reserve(out.chunks.size() * 2 + 1);
  for (const ChunkedText::Chunk& chunk : out.chunks) {
    keys.push_back(chunk.key.first);
    keys.push_back(chunk.key.second);
  }
  keys.push_back(size);
  XXH128_hash_t h = XXH3_128bits(keys.data(), keys.size() * sizeof(uint64_t));
  out.hash = {h.low64, h.high64};
  return out;
}

ChunkedText CutChunks(std::string_view text, const ScanOptions& options) {
  ChunkCutter cutter(text.data(), text.size(), options);
  cutter.Advance(text.size());
  return cutter.Finish(text.size());
}

}  // namespace hlo::index
