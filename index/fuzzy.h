// Fuzzy name matching in the spirit of clangd's FuzzyMatch: the pattern's
// characters must appear in order (case-insensitively); matches at segment
// starts (after '.', '_', '-', '/', ... or a case/digit change) and runs of
// consecutive characters score higher, gaps lower. An exact name beats a
// case-insensitive one, which beats a prefix, which beats the rest.
#ifndef HLO_LSP_INDEX_FUZZY_H_
#define HLO_LSP_INDEX_FUZZY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hlo::index {

class FuzzyMatcher {
 public:
  explicit FuzzyMatcher(std::string_view pattern);

  // nullopt when `word` does not match; otherwise a score, higher is better.
  // An empty pattern matches everything with score 0. Also nullopt when the
  // score is sure to be below `floor` (skips the scoring of hopeless words).
  std::optional<double> Match(std::string_view word,
                              double floor = -1e300) const;
  // The same, for a caller that keeps CharMask(word) at hand (the index's
  // name table): the mask test is then the whole cost of most misses.
  std::optional<double> MatchWithMask(std::string_view word,
                                      uint64_t word_char_mask,
                                      double floor = -1e300) const;

  // Every score is below this plus 10 * tier (tier 0..3).
  static constexpr double kMaxTierScore = 1.0;
  uint16_t mask16() const { return mask16_; }
  uint64_t char_mask() const { return char_mask_; }

  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  std::string lower_;
  uint64_t char_mask_ = 0;  // letters/digits the word must contain
  uint16_t mask16_ = 0;     // the same, folded (NameMask16)
};

// Bit set of the lowercased letters and digits in `text` (cheap prefilter).
uint64_t CharMask(std::string_view text);

}  // namespace hlo::index

#endif  // HLO_LSP_INDEX_FUZZY_H_
