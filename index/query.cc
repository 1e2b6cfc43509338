#include "index/query.h"

#include <fnmatch.h>

#include <string>

#include "re2/re2.h"

namespace hlo::index {
namespace {

bool HasGlobChars(std::string_view s) {
  return s.find_first_of("*?[") != std::string_view::npos;
}

bool NameMatches(const std::vector<std::string>& patterns,
                 std::string_view value) {
  if (patterns.empty()) return true;
  for (const std::string& p : patterns) {
    if (HasGlobChars(p) ? GlobMatch(p, value) : value == p) return true;
  }
  return false;
}

}  // namespace

bool GlobMatch(std::string_view glob, std::string_view text) {
  return ::fnmatch(std::string(glob).c_str(), std::string(text).c_str(), 0) ==
         0;
}

SymbolQuery::SymbolQuery(SymbolQuery&&) noexcept = default;
SymbolQuery& SymbolQuery::operator=(SymbolQuery&&) noexcept = default;
SymbolQuery::~SymbolQuery() = default;

absl::Status QueryControl::Check() const {
  if (cancelled != nullptr && cancelled->load(std::memory_order_relaxed)) {
    return absl::CancelledError("query cancelled");
  }
  if (deadline != std::chrono::steady_clock::time_point::max() &&
      std::chrono::steady_clock::now() >= deadline) {
    return absl::DeadlineExceededError(
        "query stopped at its deadline; narrow it (fewer words, a shorter "
        "/regex/, a kind: or file: filter)");
  }
  return absl::OkStatus();
}

absl::StatusOr<SymbolQuery> SymbolQuery::Parse(std::string_view text) {
  if (text.size() > kMaxQueryBytes) {
    return absl::InvalidArgumentError(
        "query too long: " + std::to_string(text.size()) + " bytes (at most " +
        std::to_string(kMaxQueryBytes) + ")");
  }
  SymbolQuery query;
  size_t terms = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
    if (pos >= text.size()) break;
    if (++terms > kMaxQueryTerms) {
      return absl::InvalidArgumentError("query has too many terms (at most " +
                                        std::to_string(kMaxQueryTerms) +
                                        " words, filters and /regex/)");
    }
    if (text[pos] == '/') {
      // `/re/`: up to the next unescaped '/'; `\/` stands for '/'.
      std::string pattern;
      size_t i = pos + 1;
      bool closed = false;
      for (; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '/') {
          pattern.push_back('/');
          ++i;
        } else if (text[i] == '/') {
          closed = true;
          break;
        } else {
          pattern.push_back(text[i]);
        }
      }
      if (!closed) {
        return absl::InvalidArgumentError("unterminated /regex/ in query");
      }
      if (query.regex_) {
        return absl::InvalidArgumentError("only one /regex/ per query");
      }
      RE2::Options options;
      options.set_log_errors(false);
      options.set_max_mem(kMaxRegexMemory);
      query.regex_ = std::make_unique<RE2>(
          re2::StringPiece(pattern.data(), pattern.size()), options);
      if (!query.regex_->ok()) {
        // The pattern may be kilobytes long: quote its start only.
        constexpr size_t kQuoted = 60;
        std::string quoted = pattern.size() > kQuoted
                                 ? pattern.substr(0, kQuoted) + "..."
                                 : pattern;
        return absl::InvalidArgumentError("bad regex /" + quoted +
                                          "/: " + query.regex_->error());
      }
      pos = i + 1;
      continue;
    }
    size_t end = text.find_first_of(" \t", pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(pos, end - pos);
    pos = end;
    size_t colon = word.find(':');
    std::string_view key =
        colon == std::string_view::npos ? "" : word.substr(0, colon);
    std::string_view value =
        colon == std::string_view::npos ? "" : word.substr(colon + 1);
    if (key == "kind") {
      SymbolKind kind;
      if (!SymbolKindFromName(value, &kind)) {
        return absl::InvalidArgumentError(
            "kind: must be module, computation, instruction or metadata");
      }
      query.kinds_ |= 1u << static_cast<int>(kind);
    } else if (key == "op" && !value.empty()) {
      query.opcodes_.emplace_back(value);
    } else if (key == "module" && !value.empty()) {
      query.modules_.emplace_back(value);
    } else if (key == "file" && !value.empty()) {
      query.file_globs_.emplace_back(value);
    } else {
      // Anything else (including `source.py:12`) is a fuzzy word.
      query.words_.emplace_back(word);
    }
  }
  return query;
}

bool SymbolQuery::empty() const {
  return words_.empty() && !regex_ && kinds_ == 0 && opcodes_.empty() &&
         modules_.empty() && file_globs_.empty();
}

bool SymbolQuery::RejectsFile(std::string_view path) const {
  if (file_globs_.empty()) return false;
  size_t slash = path.rfind('/');
  std::string_view base =
      slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (const std::string& glob : file_globs_) {
    if (GlobMatch(glob, path) || GlobMatch(glob, base)) return false;
    // A glob without wildcards also matches as a substring of the path.
    if (!HasGlobChars(glob) && path.find(glob) != std::string_view::npos) {
      return false;
    }
  }
  return true;
}

std::optional<double> SymbolQuery::Score(const FileSymbols& file,
                                         const Symbol& symbol,
                                         double floor) const {
  if (kinds_ != 0 && (kinds_ & (1u << static_cast<int>(symbol.kind))) == 0) {
    return std::nullopt;
  }
  if (!opcodes_.empty() && !NameMatches(opcodes_, file.String(symbol.opcode))) {
    return std::nullopt;
  }
  if (!modules_.empty() && !NameMatches(modules_, file.ModuleName(symbol))) {
    return std::nullopt;
  }
  const std::string_view name = file.Name(symbol);
  return NameScore(name, NameMask16(name), floor);
}

std::optional<double> SymbolQuery::NameScore(std::string_view name,
                                             uint16_t name_mask,
                                             double floor) const {
  for (const FuzzyMatcher& word : words_) {
    if ((name_mask & word.mask16()) != word.mask16()) return std::nullopt;
  }
  double score = 0;
  // The floor only bounds a lone word (several words add up).
  bool use_floor = words_.size() == 1;
  for (const FuzzyMatcher& word : words_) {
    std::optional<double> s =
        word.Match(name, use_floor ? floor - (regex_ ? 1.0 : 0.0) : -1e300);
    if (!s) return std::nullopt;
    score += *s;
  }
  return WithRegexScore(name, score);
}

std::optional<double> SymbolQuery::WithRegexScore(std::string_view name,
                                                  double score) const {
  if (!regex_) return score;
  re2::StringPiece piece(name.data(), name.size());
  if (!RE2::PartialMatch(piece, *regex_)) return std::nullopt;
  if (RE2::FullMatch(piece, *regex_)) score += 1;
  return score;
}

std::optional<double> SymbolQuery::NameScoreWithCharMask(
    std::string_view name, uint64_t char_mask) const {
  for (const FuzzyMatcher& word : words_) {
    if ((char_mask & word.char_mask()) != word.char_mask()) return std::nullopt;
  }
  double score = 0;
  for (const FuzzyMatcher& word : words_) {
    std::optional<double> s = word.MatchWithMask(name, char_mask);
    if (!s) return std::nullopt;
    score += *s;
  }
  return WithRegexScore(name, score);
}

bool SymbolQuery::PassesOpcode(std::string_view opcode) const {
  return NameMatches(opcodes_, opcode);
}

bool SymbolQuery::PassesModule(std::string_view module) const {
  return NameMatches(modules_, module);
}

SymbolQuery::FilePrep SymbolQuery::Prepare(const FileSymbols& file) const {
  FilePrep prep;
  if (!opcodes_.empty()) {
    prep.string_ok.resize(file.strings.size());
    for (size_t i = 0; i < file.strings.size(); ++i) {
      prep.string_ok[i] = NameMatches(opcodes_, file.Text(file.strings[i]));
    }
  }
  if (!modules_.empty()) {
    for (size_t i = 0; i < file.symbols.size(); ++i) {
      if (file.symbols[i].kind == SymbolKind::kModule) {
        prep.module_ok.push_back(
            {static_cast<uint32_t>(i),
             NameMatches(modules_, file.Name(file.symbols[i]))});
      }
    }
  }
  return prep;
}

bool SymbolQuery::PassesFilters(const FileSymbols& file, const Symbol& symbol,
                                const FilePrep& prep) const {
  if (kinds_ != 0 && (kinds_ & (1u << static_cast<int>(symbol.kind))) == 0) {
    return false;
  }
  if (!opcodes_.empty() && (symbol.opcode >= prep.string_ok.size() ||
                            !prep.string_ok[symbol.opcode])) {
    return false;
  }
  if (!modules_.empty()) {
    bool ok = false;
    for (const auto& [module, module_ok] : prep.module_ok) {
      if (module == symbol.module) ok = module_ok;
    }
    if (!ok) return false;
  }
  return true;
}

}  // namespace hlo::index
