#include "index/scanner.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "base/strings.h"
// Inlined: most hashed strings are short names, where a call into the
// shared library cost more than the hashing.
#define XXH_INLINE_ALL
#include "xxhash.h"

namespace hlo::index {

FileSymbols ScannedChunk::View() const {
  FileSymbols view;
  view.symbols = symbols;
  view.strings = strings;
  view.pool = pool;
  return view;
}

void ScannedChunk::ReleaseScan() {
  std::vector<Symbol>().swap(symbols);
  std::vector<PoolRef>().swap(strings);
  std::string().swap(pool);
  std::vector<PreparedBlock>().swap(blocks);
}

namespace {

inline bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}
inline bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

#if defined(__SSE2__)
// 16 bytes classified at once (SSE2 is part of x86-64): bit i is set when
// byte i is a name character (IsNameChar).
inline uint32_t NameCharMask16(const char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  auto in_range = [](__m128i x, char low, char span) {
    const __m128i off = _mm_sub_epi8(x, _mm_set1_epi8(low));
    return _mm_cmpeq_epi8(_mm_min_epu8(off, _mm_set1_epi8(span)), off);
  };
  // Setting bit 5 folds 'A'..'Z' onto 'a'..'z' and nothing else onto them.
  const __m128i letter =
      in_range(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 25);
  const __m128i digit = in_range(v, '0', 9);
  const __m128i punct =
      _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('_')),
                                _mm_cmpeq_epi8(v, _mm_set1_epi8('.'))),
                   _mm_cmpeq_epi8(v, _mm_set1_epi8('-')));
  return static_cast<uint32_t>(
      _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(letter, digit), punct)));
}
// Bit i is set when byte i is one the shape loop acts on ("[{(]}) "), in
// four compares: bit 5 set folds '[' onto '{' and ']' onto '}' (and nothing
// else onto them), bit 0 cleared folds ')' onto '('.
inline uint32_t ShapeStopMask16(const char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
  const __m128i brackets =
      _mm_or_si128(_mm_cmpeq_epi8(folded, _mm_set1_epi8('{')),
                   _mm_cmpeq_epi8(folded, _mm_set1_epi8('}')));
  const __m128i parens =
      _mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8(static_cast<char>(0xFE))),
                     _mm_set1_epi8('('));
  const __m128i space = _mm_cmpeq_epi8(v, _mm_set1_epi8(' '));
  return static_cast<uint32_t>(
      _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(brackets, parens), space)));
}
#endif

bool StartsWith(std::string_view s, size_t pos, std::string_view prefix) {
  return s.size() - pos >= prefix.size() &&
         std::memcmp(s.data() + pos, prefix.data(), prefix.size()) == 0;
}

// absl::Hash falls back to std::hash for std::string_view with Debian's
// abseil (see hlo/absl_compat.h), which is slow on long op_name strings.
struct ViewHash {
  size_t operator()(std::string_view s) const {
    return static_cast<size_t>(XXH3_64bits(s.data(), s.size()));
  }
};

class Scanner {
 public:
  // To scan one chunk of lines on its own, `text` ends where the chunk
  // does: lookahead that reaches the end is noted (hit_end).
  Scanner(std::string_view text, const ScanOptions& options)
      : text_(text), options_(options) {}

  // For `bytes` of text to scan: dumps run at about one symbol per 150
  // bytes, and names average ~20 bytes.
  void Reserve(size_t bytes) {
    out_.symbols.reserve(bytes / 150 + 16);
    out_.pool.reserve(bytes / 8 + 64);
  }

  // Scans the lines in [pos, stop); `line_number` is that of the line
  // before `pos`.
  void ScanRange(size_t pos, size_t stop, uint32_t line_number) {
    while (pos < stop) {
      const char* nl = static_cast<const char*>(
          std::memchr(text_.data() + pos, '\n', stop - pos));
      size_t end = nl ? static_cast<size_t>(nl - text_.data()) : stop;
      ++line_number;
      ScanLine(pos, end, line_number);
      pos = end + 1;
    }
  }

  FileSymbols Finish() { return std::move(out_).Finish(); }

  ScannerState state() const {
    return ScannerState{header_depth_, in_block_comment_, in_header_string_,
                        previous_ended_with_equals_};
  }
  // Continues after lines scanned elsewhere (a shared chunk).
  void SetState(const ScannerState& state) {
    header_depth_ = state.header_depth;
    in_block_comment_ = state.in_block_comment;
    in_header_string_ = state.in_header_string;
    previous_ended_with_equals_ = state.previous_ended_with_equals;
    module_ = kNoRef;
  }
  // A chunk's lookahead (a signature, a continued instruction) reached the
  // end of the chunk: its scan may differ from the file's.
  bool hit_end() const { return hit_end_; }

  // The symbols so far, as a chunk (with its prepared blocks).
  std::unique_ptr<ScannedChunk> TakeChunk() {
    auto c = std::make_unique<ScannedChunk>();
    c->symbols = std::move(out_.symbols);
    c->strings = std::move(out_.strings);
    c->pool = std::move(out_.pool);
    c->end_state = state();
    c->symbol_count = static_cast<uint32_t>(c->symbols.size());
    c->blocks = PrepareBlocks(c->View());
    return c;
  }
  // The symbols so far; the scan goes on with empty tables.
  FileSymbols TakeSymbols() {
    FileSymbols taken = std::move(out_).Finish();
    out_ = FileSymbolsBuilder();
    interned_.clear();
    recent_.fill(Recent{});
    module_ = kNoRef;
    return taken;
  }

 private:
  // Skips blanks and `/* ... */` comments that close on this line. Called
  // a few times per line, mostly over one or two blanks: that loop is
  // inline, comments (rare) are not.
  size_t SkipSpaces(size_t pos, size_t end) const {
    const char* p = text_.data();
    while (pos < end && (p[pos] == ' ' || p[pos] == '\t')) ++pos;
    if (pos + 1 < end && p[pos] == '/' && p[pos + 1] == '*')
      return SkipSpacesAndComments(pos, end);
    return pos;
  }
  [[gnu::noinline]] size_t SkipSpacesAndComments(size_t pos, size_t end) const {
    while (pos < end) {
      char c = text_[pos];
      if (c == ' ' || c == '\t') {
        ++pos;
      } else if (c == '/' && pos + 1 < end && text_[pos + 1] == '*') {
        size_t close = text_.substr(pos + 2, end - pos - 2).find("*/");
        if (close == std::string_view::npos) return pos;
        pos += close + 4;
      } else {
        break;
      }
    }
    return pos;
  }
  // The closing quote of a string whose contents start at `pos` (memchr,
  // then skip quotes escaped by an odd run of backslashes); `end` if none.
  size_t StringEnd(size_t pos, size_t end) const {
    while (pos < end) {
      const char* quote = static_cast<const char*>(
          std::memchr(text_.data() + pos, '"', end - pos));
      if (quote == nullptr) return end;
      size_t at = static_cast<size_t>(quote - text_.data());
      size_t backslashes = 0;
      while (at - backslashes > pos && text_[at - backslashes - 1] == '\\') {
        ++backslashes;
      }
      if (backslashes % 2 == 0) return at;
      pos = at + 1;
    }
    return end;
  }

  // Brace depth and string state of a value that runs over several lines
  // (HloModule header attributes, inline bodies, attribute dicts).
  void TrackHeader(size_t pos, size_t end) {
    for (; pos < end; ++pos) {
      char c = text_[pos];
      if (in_header_string_) {
        if (c == '\\')
          ++pos;
        else if (c == '"')
          in_header_string_ = false;
      } else if (c == '"') {
        in_header_string_ = true;
      } else if (c == '{') {
        ++header_depth_;
      } else if (c == '}') {
        --header_depth_;
      }
    }
    if (header_depth_ < 0) header_depth_ = 0;
    if (header_depth_ == 0) in_header_string_ = false;
  }

  // `key={` at the end of a line (not a signature's `-> shape {`).
  bool EndsWithAssignedBrace(size_t begin, size_t end) const {
    while (end > begin && (text_[end - 1] == ' ' || text_[end - 1] == '\t'))
      --end;
    if (end <= begin || text_[end - 1] != '{') return false;
    --end;
    while (end > begin && text_[end - 1] == ' ') --end;
    return end > begin && text_[end - 1] == '=';
  }

  bool EndsWithBrace(size_t begin, size_t end) const {
    while (end > begin && (text_[end - 1] == ' ' || text_[end - 1] == '\t' ||
                           text_[end - 1] == '\r'))
      --end;
    return end > begin && text_[end - 1] == '{';
  }

  // A signature broken across lines: `name (params...)` then, within a few
  // lines, `-> shape {`.
  bool SignatureOpensBody(size_t open) const {
    size_t limit = std::min(text_.size(), open + (64 << 10));
    int depth = 0;
    size_t pos = open;
    for (; pos < limit; ++pos) {
      if (text_[pos] == '(') ++depth;
      if (text_[pos] == ')' && --depth == 0) break;
    }
    if (pos >= limit) {
      if (limit == text_.size()) hit_end_ = true;
      return false;
    }
    // Then `->` (possibly on the next line) and a '{' that ends a line.
    ++pos;
    while (pos < text_.size() && (text_[pos] == ' ' || text_[pos] == '\t' ||
                                  text_[pos] == '\r' || text_[pos] == '\n'))
      ++pos;
    if (text_.size() - pos < 2) hit_end_ = true;
    if (!StartsWith(text_, pos, "->")) return false;
    for (int lines = 0; lines < 4 && pos < text_.size(); ++lines) {
      size_t line_end = text_.find('\n', pos);
      if (line_end == std::string_view::npos) {
        line_end = text_.size();
        hit_end_ = true;
      }
      std::string_view rest = text_.substr(pos, line_end - pos);
      if (rest.find(" = ") != std::string_view::npos) return false;
      if (EndsWithBrace(pos, line_end)) return true;
      pos = line_end + 1;
    }
    if (pos >= text_.size()) hit_end_ = true;
    return false;
  }

  // Hand-written HLO may break an instruction across lines: when only blanks
  // are left on this line, moves `pos`/`end` to the next non-blank line (a
  // few at most).
  void ContinueOnNextLine(size_t* pos, size_t* end) const {
    *pos = SkipSpaces(*pos, *end);
    for (int hops = 0; *pos >= *end && hops < 4; ++hops) {
      size_t next = *end;
      while (next < text_.size() && text_[next] != '\n') ++next;
      if (next >= text_.size()) {
        hit_end_ = true;
        return;
      }
      size_t next_end = next + 1;
      while (next_end < text_.size() && text_[next_end] != '\n') ++next_end;
      if (next_end >= text_.size()) hit_end_ = true;
      size_t content_end = next_end;
      if (content_end > next + 1 && text_[content_end - 1] == '\r') {
        --content_end;
      }
      *end = content_end;
      *pos = SkipSpaces(next + 1, content_end);
    }
  }

  size_t NameEnd(size_t pos, size_t end) const {
#if defined(__SSE2__)
    // 16 bytes at a time while they are inside the text.
    for (; pos < end && pos + 16 <= text_.size(); pos += 16) {
      const uint32_t other = ~NameCharMask16(text_.data() + pos) & 0xffff;
      if (other != 0) return std::min(end, pos + __builtin_ctz(other));
    }
    if (pos >= end) return end;
#endif
    while (pos < end && IsNameChar(text_[pos])) ++pos;
    return pos;
  }

  // Skips bytes that are none of "[{(]}) ", 16 at a time: returns the first
  // of them at or after `pos`, `end`, or where fewer than 16 bytes of the
  // text are left (the shape loop, which ignores other bytes, goes on one
  // at a time from there).
  size_t NextShapeStop(size_t pos, size_t end) const {
#if defined(__SSE2__)
    for (; pos < end && pos + 16 <= text_.size(); pos += 16) {
      const uint32_t stops = ShapeStopMask16(text_.data() + pos);
      if (stops != 0) return std::min(end, pos + __builtin_ctz(stops));
    }
    if (pos >= end) return end;
#endif
    return pos;
  }

  // Any byte >= 0x80 in [begin, end).
  bool HasNonAscii(size_t begin, size_t end) const {
    return !base::IsAscii(text_.substr(begin, end - begin));
  }

  PoolRef AddToPool(std::string_view s) {
    PoolRef ref{static_cast<uint32_t>(out_.pool.size()),
                static_cast<uint32_t>(s.size())};
    out_.pool.append(s);
    return ref;
  }
  // Shapes and opcodes repeat from line to line: a small direct-mapped
  // table of recent ones, keyed by their first and last eight bytes, spares
  // most lookups their hash and probe (~15% of a scan).
  uint32_t Intern(std::string_view s) {
    const size_t n = s.size();
    uint64_t head = n, tail = 0;
    if (n >= 8) {
      std::memcpy(&head, s.data(), 8);
      std::memcpy(&tail, s.data() + n - 8, 8);
    } else {
      for (char c : s) head = head << 8 | static_cast<uint8_t>(c);
    }
    const size_t slot =
        ((head ^ (tail * 0x9E3779B97F4A7C15ull) ^ n) * 0xFF51AFD7ED558CCDull) >>
        (64 - kRecentBits);
    Recent& recent = recent_[slot];
    if (recent.size == n && recent.data != nullptr &&
        std::memcmp(recent.data, s.data(), n) == 0) {
      return recent.id;
    }
    auto [it, inserted] =
        interned_.try_emplace(s, static_cast<uint32_t>(out_.strings.size()));
    if (inserted) out_.strings.push_back(AddToPool(s));
    recent = Recent{s.data(), n, it->second};
    return it->second;
  }

  Symbol& Add(SymbolKind kind, size_t name_begin, size_t name_end,
              uint32_t line, size_t line_start) {
    Symbol s;
    s.kind = kind;
    std::string_view name = text_.substr(name_begin, name_end - name_begin);
    s.name = AddToPool(name);
    s.line = line;
    s.column = static_cast<uint32_t>(name_begin - line_start + 1);
    if (HasNonAscii(line_start, name_begin)) s.flags |= kFlagNonAsciiPrefix;
    s.module = module_;
    out_.symbols.push_back(s);
    return out_.symbols.back();
  }

  void ScanLine(size_t start, size_t end, uint32_t line) {
    if (end > start && text_[end - 1] == '\r') --end;
    size_t symbols_before = out_.symbols.size();
    bool tracking = header_depth_ > 0 || in_block_comment_;
    ScanLineBody(start, end, line);
    // A line of an attribute value that opens a block continued below
    // (`frontend_attributes={`): skip to its closing brace, like the parser.
    bool after_equals = previous_ended_with_equals_;
    size_t last = end;
    while (last > start && (text_[last - 1] == ' ' || text_[last - 1] == '\t'))
      --last;
    previous_ended_with_equals_ = last > start && text_[last - 1] == '=';
    if (!tracking && header_depth_ == 0 && !in_block_comment_ &&
        out_.symbols.size() == symbols_before &&
        (EndsWithAssignedBrace(start, end) ||
         (after_equals && SkipSpaces(start, end) < end &&
          text_[SkipSpaces(start, end)] == '{'))) {
      TrackHeader(start, end);  // `calls=` then `{` on the next line
    }
  }

  void ScanLineBody(size_t start, size_t end, uint32_t line) {
    size_t pos = start;
    if (in_block_comment_) {
      size_t close = text_.substr(start, end - start).find("*/");
      if (close == std::string_view::npos) return;
      in_block_comment_ = false;
      pos = start + close + 2;
    }
    pos = SkipSpaces(pos, end);
    if (pos >= end) return;
    if (pos + 1 < end && text_[pos] == '/' && text_[pos + 1] == '*') {
      in_block_comment_ = true;  // SkipSpaces stops only at unclosed ones
      return;
    }
    if (header_depth_ > 0) {
      TrackHeader(start, end);
      return;
    }
    if (StartsWith(text_, pos, "HloModule ")) {
      size_t name = SkipSpaces(pos + 10, end);
      size_t name_end = NameEnd(name, end);
      if (name_end == name) return;
      module_ = static_cast<uint32_t>(out_.symbols.size());
      Symbol& s = Add(SymbolKind::kModule, name, name_end, line, start);
      s.module = module_;
      // Header attributes may run over many lines (origin_recovery_table
      // even embeds whole modules in strings): skip to their end.
      if (EndsWithBrace(name_end, end) ||
          text_.substr(name_end, end - name_end).find('"') !=
              std::string_view::npos) {
        TrackHeader(name_end, end);
      }
      return;
    }
    bool entry = false;
    bool root = false;
    if (StartsWith(text_, pos, "ENTRY ")) {
      entry = true;
      pos = SkipSpaces(pos + 6, end);
    } else if (StartsWith(text_, pos, "ROOT ")) {
      root = true;
      pos = SkipSpaces(pos + 5, end);
    }
    bool percent = pos < end && text_[pos] == '%';
    if (percent) ++pos;
    if (pos >= end || !IsNameStart(text_[pos])) return;
    size_t name = pos;
    size_t name_end = NameEnd(pos, end);
    size_t after = SkipSpaces(name_end, end);
    // `name = ...`; a bare `name=` is an attribute, never an instruction.
    if (!entry && after < end && text_[after] == '=' &&
        (after > name_end || percent)) {
      size_t value = after + 1;
      ContinueOnNextLine(&value, &end);
      ScanInstruction(name, name_end, value, end, line, start, root);
      if (EndsWithBrace(start, end)) {
        // A value continues below (`to_apply={` body, `frontend_attributes={`
        // dict): skip to its closing brace like hlo::Parse does.
        TrackHeader(start, end);
      }
      return;
    }
    if (root) return;
    if (after >= end) {
      // `name` alone on its line, `{` or `(params) -> shape {` below it.
      size_t next = after;
      while (next < text_.size() && next < after + 4096 &&
             (text_[next] == ' ' || text_[next] == '\t' ||
              text_[next] == '\r' || text_[next] == '\n'))
        ++next;
      if (next >= text_.size()) {
        hit_end_ = true;
        return;
      }
      size_t next_end = text_.find('\n', next);
      if (next_end == std::string_view::npos) {
        next_end = text_.size();
        hit_end_ = true;
      }
      bool header = text_[next] == '{'   ? EndsWithBrace(next, next_end)
                    : text_[next] == '(' ? SignatureOpensBody(next)
                                         : false;
      if (!header) return;
      Symbol& s = Add(SymbolKind::kComputation, name, name_end, line, start);
      if (entry) s.flags |= kFlagEntry;
      return;
    }
    // A computation header: `name (params) -> shape {` or `name {`.
    if (after == name_end && !entry && text_[after] != '(') return;
    if (text_[after] != '(' && text_[after] != '{') return;
    bool header = text_[after] == '{' ? EndsWithBrace(after, end)
                                      : SignatureOpensBody(after);
    if (!header) return;
    Symbol& s = Add(SymbolKind::kComputation, name, name_end, line, start);
    if (entry) s.flags |= kFlagEntry;
  }

  // Shape text: a tuple `( ... )`, or a token that ends at a space or at a
  // '(' outside brackets (then it was the opcode: no shape was written).
  void ScanInstruction(size_t name, size_t name_end, size_t pos, size_t end,
                       uint32_t line, size_t line_start, bool root) {
    Symbol& s = Add(SymbolKind::kInstruction, name, name_end, line, line_start);
    if (root) s.flags |= kFlagRoot;
    size_t symbol_index = out_.symbols.size() - 1;
    size_t shape_begin = pos;
    int depth = 0;
    if (pos < end && text_[pos] == '(') {
      // Hand-written tuple shapes may span lines: follow them a little way.
      size_t limit = std::min(text_.size(), pos + (64 << 10));
      for (; pos < limit; ++pos) {
        char c = text_[pos];
        if (c == '(') ++depth;
        if (c == ')' && --depth == 0) {
          ++pos;
          break;
        }
      }
      if (pos >= text_.size()) hit_end_ = true;
      if (pos > end) {
        end = pos;
        while (end < text_.size() && text_[end] != '\n') ++end;
        if (end >= text_.size()) hit_end_ = true;
        if (end > pos && text_[end - 1] == '\r') --end;
      }
    } else {
      for (; pos < end; ++pos) {
        pos = NextShapeStop(pos, end);  // other bytes change nothing here
        if (pos >= end) break;
        char c = text_[pos];
        if (c == '[' || c == '{' || c == '(') {
          // '(' ends the opcode, except in a buffer shape `b(f32[16])`.
          if (c == '(' && depth == 0 &&
              !(pos == shape_begin + 1 && text_[shape_begin] == 'b')) {
            break;
          }
          ++depth;
        } else if (c == ']' || c == '}' || c == ')') {
          // `f32[2]parameter(0)`: the opcode may follow without a space.
          if (--depth == 0 && pos + 1 < end && IsNameStart(text_[pos + 1])) {
            ++pos;
            break;
          }
        } else if (c == ' ' && depth <= 0) {
          // `f32[2] {1,0}`: a '{' followed by an int or ':' is a layout.
          size_t next = SkipSpaces(pos, end);
          if (next + 1 < end && text_[next] == '[') {  // `s32 [5,4]`
            pos = next - 1;
            continue;
          }
          if (next + 1 < end && text_[next] == '{') {
            size_t inner = SkipSpaces(next + 1, end);
            if (inner < end &&
                (std::isdigit(static_cast<unsigned char>(text_[inner])) ||
                 text_[inner] == ':')) {
              pos = next - 1;
              continue;
            }
          }
          break;
        }
      }
    }
    size_t shape_end = pos;
    size_t opcode_begin;
    if (pos < end && text_[pos] == '(' && shape_begin != pos &&
        text_[shape_begin] != '(') {
      opcode_begin = shape_begin;  // no shape written
      shape_end = shape_begin;
    } else {
      opcode_begin = pos;
      ContinueOnNextLine(&opcode_begin, &end);
    }
    size_t opcode_end = NameEnd(opcode_begin, end);
    Symbol& added = out_.symbols[symbol_index];
    if (shape_end > shape_begin) {
      added.shape = Intern(text_.substr(shape_begin, shape_end - shape_begin));
    }
    size_t paren = SkipSpaces(opcode_end, end);
    if (opcode_end > opcode_begin && paren < end && text_[paren] == '(') {
      added.opcode =
          Intern(text_.substr(opcode_begin, opcode_end - opcode_begin));
    }
    if (options_.metadata) ScanMetadata(opcode_end, end, line, line_start);
  }

  // Reads `metadata={key=value ...}` on the rest of an instruction line.
  void ScanMetadata(size_t pos, size_t end, uint32_t line, size_t line_start) {
    std::string_view rest = text_.substr(pos, end - pos);
    size_t found = rest.find("metadata={");
    if (found == std::string_view::npos) return;
    pos += found + 10;
    size_t op_name = 0, op_name_end = 0;
    size_t file = 0, file_end = 0;
    std::string_view source_line;
    while (pos < end) {
      while (pos < end && (text_[pos] == ' ' || text_[pos] == ',')) ++pos;
      if (pos >= end || text_[pos] == '}') break;
      size_t key = pos;
      // Keys are names: skipped 16 bytes at a time, then the plain rule
      // (up to '=', '}' or ' ') from the first other byte.
      pos = NameEnd(pos, end);
      while (pos < end && text_[pos] != '=' && text_[pos] != '}' &&
             text_[pos] != ' ')
        ++pos;
      if (pos >= end || text_[pos] != '=') break;
      std::string_view key_text = text_.substr(key, pos - key);
      ++pos;
      size_t value = pos, value_end = pos;
      if (pos < end && text_[pos] == '"') {
        value = ++pos;
        pos = StringEnd(pos, end);
        if (pos >= end) break;
        value_end = pos++;
      } else {
        while (pos < end && text_[pos] != ' ' && text_[pos] != '}' &&
               text_[pos] != ',')
          ++pos;
        value_end = pos;
      }
      if (key_text == "op_name") {
        op_name = value;
        op_name_end = value_end;
      } else if (key_text == "source_file") {
        file = value;
        file_end = value_end;
      } else if (key_text == "source_line") {
        source_line = text_.substr(value, value_end - value);
      }
    }
    // Metadata names are kept once whatever their kind: an op_name may read
    // like a location ("a.py:3"), and the index keeps one per name too.
    if (op_name_end > op_name) {
      std::string_view text = text_.substr(op_name, op_name_end - op_name);
      if (seen_metadata_.insert(text).second) {
        Add(SymbolKind::kMetadata, op_name, op_name_end, line, line_start);
      }
    }
    if (file_end > file) {
      // Built in a reused buffer, so that repeats (the common case)
      // allocate nothing.
      location_.assign(text_.substr(file, file_end - file));
      if (!source_line.empty()) {
        location_ += ':';
        location_.append(source_line);
      }
      if (!seen_metadata_.contains(std::string_view(location_))) {
        const std::string& name = location_names_.emplace_back(location_);
        seen_metadata_.insert(name);
        Symbol s;
        s.kind = SymbolKind::kMetadata;
        s.name = AddToPool(name);
        s.line = line;
        s.column = static_cast<uint32_t>(file - line_start + 1);
        if (HasNonAscii(line_start, file)) s.flags |= kFlagNonAsciiPrefix;
        s.module = module_;
        out_.symbols.push_back(s);
      }
    }
  }

  std::string_view text_;
  ScanOptions options_;
  mutable bool hit_end_ = false;  // set by const lookahead helpers
  FileSymbolsBuilder out_;
  uint32_t module_ = kNoRef;
  bool in_block_comment_ = false;
  int header_depth_ = 0;
  bool previous_ended_with_equals_ = false;
  bool in_header_string_ = false;
  absl::flat_hash_map<std::string_view, uint32_t, ViewHash> interned_;
  // Interned strings seen lately (views into text_), by a hash of their ends.
  struct Recent {
    const char* data = nullptr;
    size_t size = 0;
    uint32_t id = 0;
  };
  static constexpr int kRecentBits = 6;
  std::array<Recent, size_t{1} << kRecentBits> recent_{};
  // Metadata names kept so far: views into text_ (op_name) or into
  // location_names_ (`file:line`, which the text does not hold as such).
  absl::flat_hash_set<std::string_view, ViewHash> seen_metadata_;
  std::deque<std::string> location_names_;  // never moved once added
  std::string location_;
};

}  // namespace

std::string_view SymbolKindName(SymbolKind kind) {
  switch (kind) {
    case SymbolKind::kModule:
      return "module";
    case SymbolKind::kComputation:
      return "computation";
    case SymbolKind::kInstruction:
      return "instruction";
    case SymbolKind::kMetadata:
      return "metadata";
  }
  return "unknown";
}

bool SymbolKindFromName(std::string_view name, SymbolKind* kind) {
  for (int i = 0; i < kSymbolKindCount; ++i) {
    if (SymbolKindName(static_cast<SymbolKind>(i)) == name) {
      *kind = static_cast<SymbolKind>(i);
      return true;
    }
  }
  return false;
}

SegmentedFile ScanSegments(std::string_view text, const ChunkedText& chunked,
                           const ScanOptions& options, ChunkCache* cache) {
  SegmentedFile out;
  // Scans what cannot come from a shared chunk, carrying the file's state.
  Scanner file(text, options);
  bool own_open = false;  // `file` holds symbols of an unfinished segment
  uint32_t own_base = 0;
  auto finish_own = [&] {
    if (!own_open) return;
    FileSegment segment;
    segment.symbols = file.TakeSymbols();
    segment.blocks = PrepareBlocks(segment.symbols);
    segment.symbol_base = own_base;
    out.symbol_count += static_cast<uint32_t>(segment.symbols.symbols.size());
    if (!segment.symbols.symbols.empty()) {
      out.segments.push_back(std::move(segment));
    }
    own_open = false;
  };
  uint32_t line = 0;
  for (const ChunkedText::Chunk& c : chunked.chunks) {
    if (file.state().Clean()) {
      ScannedChunk* chunk = cache->Find(c.key);
      if (chunk == nullptr) {
        Scanner scan(text.substr(0, c.end), options);
        scan.Reserve(c.end - c.begin);
        scan.ScanRange(c.begin, c.end, 0);
        if (!scan.hit_end()) chunk = cache->Insert(c.key, scan.TakeChunk());
      }
      if (chunk != nullptr) {
        finish_own();
        file.SetState(chunk->end_state);
        FileSegment segment;
        segment.line_base = line;
        segment.symbol_base = out.symbol_count;
        out.symbol_count += chunk->symbol_count;
        segment.chunk = chunk;
        if (chunk->symbol_count != 0) {
          out.segments.push_back(std::move(segment));
        }
        line += c.lines;
        continue;
      }
    }
    if (!own_open) {
      own_open = true;
      own_base = out.symbol_count;
    }
    file.ScanRange(c.begin, c.end, line);
    line += c.lines;
  }
  finish_own();
  return out;
}

ChunkCache::ChunkCache() = default;
ChunkCache::~ChunkCache() = default;

ScannedChunk* ChunkCache::Find(std::pair<uint64_t, uint64_t> key) {
  Shard& shard = shards_[key.first % kShards];
  std::lock_guard<std::mutex> lock(shard.mutex);
  auto it = shard.chunks.find(key);
  return it == shard.chunks.end() ? nullptr : it->second.get();
}

ScannedChunk* ChunkCache::Insert(std::pair<uint64_t, uint64_t> key,
                                 std::unique_ptr<ScannedChunk> chunk) {
  Shard& shard = shards_[key.first % kShards];
  std::lock_guard<std::mutex> lock(shard.mutex);
  return shard.chunks.try_emplace(key, std::move(chunk)).first->second.get();
}

FileSymbols ScanSymbols(std::string_view text, const ScanOptions& options) {
  Scanner scanner(text, options);
  scanner.Reserve(text.size());
  scanner.ScanRange(0, text.size(), 0);
  return scanner.Finish();
}

}  // namespace hlo::index
