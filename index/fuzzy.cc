#include "index/fuzzy.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "index/symbols.h"

namespace hlo::index {
namespace {

constexpr size_t kMaxPattern = 63;
constexpr size_t kMaxWord = 255;
constexpr double kNegative = -1e9;

inline char Lower(char c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }
inline bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsAlnum(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || IsUpper(c);
}

// True when word[j] starts a segment: the first char, after a separator,
// a lower->upper change, or a letter<->digit change.
inline bool SegmentStart(std::string_view word, size_t j) {
  if (j == 0) return true;
  char prev = word[j - 1], c = word[j];
  if (!IsAlnum(prev)) return IsAlnum(c);
  if (IsUpper(c) && !IsUpper(prev)) return true;
  return IsDigit(c) != IsDigit(prev);
}

inline int MaskBit(char c) {
  c = Lower(c);
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= '0' && c <= '9') return 26 + (c - '0');
  return -1;
}

}  // namespace

uint64_t CharMask(std::string_view text) {
  uint64_t mask = 0;
  for (char c : text) {
    int bit = MaskBit(c);
    if (bit >= 0) mask |= uint64_t{1} << bit;
  }
  return mask;
}

FuzzyMatcher::FuzzyMatcher(std::string_view pattern)
    : pattern_(pattern.substr(0, kMaxPattern)) {
  lower_.reserve(pattern_.size());
  for (char c : pattern_) lower_.push_back(Lower(c));
  char_mask_ = CharMask(pattern_);
  mask16_ = NameMask16(pattern_);
}

std::optional<double> FuzzyMatcher::Match(std::string_view word,
                                          double floor) const {
  if (lower_.empty()) return 0.0;
  if (word.size() < lower_.size()) return std::nullopt;
  return MatchWithMask(word, CharMask(word), floor);
}

std::optional<double> FuzzyMatcher::MatchWithMask(std::string_view word,
                                                  uint64_t word_char_mask,
                                                  double floor) const {
  const size_t n = lower_.size();
  if (n == 0) return 0.0;
  if ((word_char_mask & char_mask_) != char_mask_) return std::nullopt;
  if (word.size() < n) return std::nullopt;
  // Subsequence check (greedy) before the scoring DP.
  {
    size_t i = 0;
    for (size_t j = 0; j < word.size() && i < n; ++j) {
      if (Lower(word[j]) == lower_[i]) ++i;
    }
    if (i < n) return std::nullopt;
  }
  // Tiers: exact, exact ignoring case, prefix, then scored fuzzy matches.
  double tier = 0;
  if (word == pattern_) {
    tier = 3;
  } else if (word.size() == n) {
    tier = 2;  // same length and a subsequence: equal ignoring case
  } else {
    bool prefix = true;
    for (size_t i = 0; i < n && prefix; ++i)
      prefix = Lower(word[i]) == lower_[i];
    if (prefix) tier = 1;
  }
  if (tier * 10.0 + kMaxTierScore < floor) return std::nullopt;
  const size_t m = std::min(word.size(), kMaxWord);
  // The scoring DP, over the positions where each pattern character occurs
  // (a few of a word's up to 255): score(i, j) is the best score with
  // pattern[0..i] matched and pattern[i] at word[j]; from the row before it
  // takes score(i-1, j-1) (consecutive) or the best score(i-1, k), k < j-1
  // (a gap). The same arithmetic as a dense n x m table, in the same order.
  // Two rows, swapped by pointer: row i reads row i - 1.
  std::array<uint16_t, kMaxWord> at_a, at_b;
  std::array<double, kMaxWord> score_a, score_b;
  uint16_t *previous_at = at_a.data(), *current_at = at_b.data();
  double *previous = score_a.data(), *current = score_b.data();
  size_t previous_count = 0;
  double total = kNegative;
  for (size_t i = 0; i < n; ++i) {
    const char c = lower_[i];
    size_t count = 0;
    size_t p = 0;                // previous_at[p] is the first k >= j - 1
    double running = kNegative;  // max previous score at k < j - 1
    for (size_t j = 0; j < m; ++j) {
      if (Lower(word[j]) != c) continue;
      double here = 1.0;
      const bool segment = SegmentStart(word, j);
      if (segment) here += 2.0;
      if (word[j] == pattern_[i]) here += 0.25;
      double score;
      if (i == 0) {
        // Starting late costs, unless at a segment start.
        score = here - (j == 0 ? 0.0 : (segment ? 0.5 : 2.0));
      } else {
        while (p < previous_count && previous_at[p] + 1u < j) {
          running = std::max(running, previous[p]);
          ++p;
        }
        const double consecutive = p < previous_count &&
                                           previous_at[p] + 1u == j &&
                                           previous[p] > kNegative / 2
                                       ? previous[p] + 2.0
                                       : kNegative;
        const double gap = running > kNegative / 2
                               ? running - (segment ? 0.5 : 1.5)
                               : kNegative;
        score = std::max(consecutive, gap);
        if (score > kNegative / 2) score += here;
      }
      current_at[count] = static_cast<uint16_t>(j);
      current[count] = score;
      ++count;
      if (i + 1 == n) total = std::max(total, score);
    }
    std::swap(previous_at, current_at);
    std::swap(previous, current);
    previous_count = count;
  }
  // Past kMaxWord (long op_names) the match is real but unscored: lowest.
  double normalized =
      total <= kNegative / 2
          ? -1.0
          : std::max(-1.0, total / (5.25 * static_cast<double>(n)));  // ~[0,1]
  // Shorter words are closer matches.
  double length_penalty =
      std::min<double>(static_cast<double>(word.size() - n), 64.0) / 640.0;
  return tier * 10.0 + normalized - length_penalty;
}

}  // namespace hlo::index
