// The search query language (contracts.md): plain words are fuzzy (all must
// match), `/re/` is an RE2 regular expression on the name, and the filters
// `kind:K`, `op:OPCODE`, `module:NAME`, `file:GLOB` narrow the rest. User
// regexes only ever reach RE2 (linear time, no backtracking). Queries are
// bounded (text, terms, RE2 memory) and can be stopped (QueryControl): a
// query is typed by a person, and one pasted by mistake must not hold the
// server's threads.
#ifndef HLO_LSP_INDEX_QUERY_H_
#define HLO_LSP_INDEX_QUERY_H_

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "index/fuzzy.h"
#include "index/symbols.h"

namespace re2 {
class RE2;
}

namespace hlo::index {

// What Parse accepts: longer queries are refused with InvalidArgument. A
// 120 KB regex of 5,000 alternatives took minutes per query; nobody types
// more than a few words.
inline constexpr size_t kMaxQueryBytes = 4096;
inline constexpr size_t kMaxQueryTerms = 32;  // words, filters and /re/
// RE2's budget for the compiled regex and its DFA cache; a bigger pattern
// fails to compile ("pattern too large") and is refused.
inline constexpr int64_t kMaxRegexMemory = 8 << 20;

// Stops a running query: a flag another thread sets (an LSP
// $/cancelRequest) and a deadline. Queries check it every few dozen names
// scored and every file walked, so stopping takes a bounded moment.
struct QueryControl {
  const std::atomic<bool>* cancelled = nullptr;
  std::chrono::steady_clock::time_point deadline =
      std::chrono::steady_clock::time_point::max();

  // OK to go on; else CancelledError or DeadlineExceededError.
  absl::Status Check() const;
};

class SymbolQuery {
 public:
  static absl::StatusOr<SymbolQuery> Parse(std::string_view text);

  SymbolQuery(SymbolQuery&&) noexcept;
  SymbolQuery& operator=(SymbolQuery&&) noexcept;
  ~SymbolQuery();

  // True when no file named `path` can match (the `file:` filter), so a
  // whole file can be skipped.
  bool RejectsFile(std::string_view path) const;
  // Score of one symbol; nullopt when it does not match.
  // With `floor`, may also say nullopt for a match that would score below it.
  std::optional<double> Score(const FileSymbols& file, const Symbol& symbol,
                              double floor = -1e300) const;

  bool empty() const;  // no words, regex or filters: matches everything
  bool has_name_part() const { return !words_.empty() || regex_ != nullptr; }

  // The two halves of Score, for callers that score each distinct name once
  // (WorkspaceIndex's name table): the name part (words and regex) ...
  std::optional<double> NameScore(std::string_view name, uint16_t name_mask,
                                  double floor = -1e300) const;
  // The same with the name's full CharMask (fuzzy.h) instead of its 16-bit
  // fold: a sharper prefilter for callers that keep one per name.
  std::optional<double> NameScoreWithCharMask(std::string_view name,
                                              uint64_t char_mask) const;
  // Letters and digits every matching name contains (CharMask bits): a name
  // whose CharMask lacks one cannot match.
  uint64_t required_char_mask() const {
    uint64_t mask = 0;
    for (const FuzzyMatcher& word : words_) mask |= word.char_mask();
    return mask;
  }
  // ... and the per-symbol filters (kind, op, module), with per-file work
  // done once by Prepare.
  // The filters one at a time, for callers that keep strings interned.
  bool PassesKind(SymbolKind kind) const {
    return kinds_ == 0 || (kinds_ & (1u << static_cast<int>(kind))) != 0;
  }
  bool has_opcode_filter() const { return !opcodes_.empty(); }
  bool PassesOpcode(std::string_view opcode) const;
  bool has_module_filter() const { return !modules_.empty(); }
  bool PassesModule(std::string_view module) const;

  struct FilePrep {
    std::vector<char> string_ok;  // per FileSymbols::strings id (op: filter)
    std::vector<std::pair<uint32_t, bool>> module_ok;  // module symbol -> ok
  };
  FilePrep Prepare(const FileSymbols& file) const;
  bool PassesFilters(const FileSymbols& file, const Symbol& symbol,
                     const FilePrep& prep) const;

 private:
  SymbolQuery() = default;
  // `score` plus 1 for a full /regex/ match; nullopt when the regex (if
  // any) does not match `name` at all.
  std::optional<double> WithRegexScore(std::string_view name,
                                       double score) const;

  std::vector<FuzzyMatcher> words_;
  std::unique_ptr<re2::RE2> regex_;
  uint32_t kinds_ = 0;  // bit per SymbolKind; 0 = any
  std::vector<std::string> opcodes_;
  std::vector<std::string> modules_;
  std::vector<std::string> file_globs_;
};

// fnmatch-style glob: '*', '?', '[...]'; '*' also crosses '/'.
bool GlobMatch(std::string_view glob, std::string_view text);

}  // namespace hlo::index

#endif  // HLO_LSP_INDEX_QUERY_H_
