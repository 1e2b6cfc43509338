#include "index/fuzzy.h"

#include <algorithm>
#include <array>

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
  // best[j]: best score with pattern[0..i] matched and pattern[i] at word[j].
  std::array<double, kMaxWord + 1> previous, current;
  double total = kNegative;
  for (size_t i = 0; i < n; ++i) {
    double running = kNegative;  // max previous[k] for k < j - 1
    for (size_t j = 0; j < m; ++j) {
      double score = kNegative;
      if (Lower(word[j]) == lower_[i]) {
        double here = 1.0;
        bool segment = SegmentStart(word, j);
        if (segment) here += 2.0;
        if (word[j] == pattern_[i]) here += 0.25;
        if (i == 0) {
          // Starting late costs, unless at a segment start.
          score = here - (j == 0 ? 0.0 : (segment ? 0.5 : 2.0));
        } else {
          double consecutive = j > 0 && previous[j - 1] > kNegative / 2
                                   ? previous[j - 1] + 2.0
                                   : kNegative;
          double gap = running > kNegative / 2 ? running - (segment ? 0.5 : 1.5)
                                               : kNegative;
          score = std::max(consecutive, gap);
          if (score > kNegative / 2) score += here;
        }
      }
      if (i > 0 && j > 0) running = std::max(running, previous[j - 1]);
      current[j] = score;
      if (i + 1 == n) total = std::max(total, score);
    }
    std::swap(previous, current);
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
