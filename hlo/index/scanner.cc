#include "hlo/index/scanner.h"

#include <cstring>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "xxhash.h"

namespace hlo::index {
namespace {

inline bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}
inline bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool StartsWith(std::string_view s, size_t pos, std::string_view prefix) {
  return s.size() - pos >= prefix.size() &&
         std::memcmp(s.data() + pos, prefix.data(), prefix.size()) == 0;
}

class Scanner {
 public:
  Scanner(std::string_view text, const ScanOptions& options)
      : text_(text), options_(options) {}

  FileSymbols Run() {
    size_t pos = 0;
    uint32_t line_number = 0;
    while (pos < text_.size()) {
      const char* nl = static_cast<const char*>(
          std::memchr(text_.data() + pos, '\n', text_.size() - pos));
      size_t end = nl ? static_cast<size_t>(nl - text_.data()) : text_.size();
      ++line_number;
      ScanLine(pos, end, line_number);
      pos = end + 1;
    }
    return std::move(out_);
  }

 private:
  size_t SkipSpaces(size_t pos, size_t end) const {
    while (pos < end && (text_[pos] == ' ' || text_[pos] == '\t')) ++pos;
    return pos;
  }
  size_t NameEnd(size_t pos, size_t end) const {
    while (pos < end && IsNameChar(text_[pos])) ++pos;
    return pos;
  }

  PoolRef AddToPool(std::string_view s) {
    PoolRef ref{static_cast<uint32_t>(out_.pool.size()),
                static_cast<uint32_t>(s.size())};
    out_.pool.append(s);
    return ref;
  }
  uint32_t Intern(std::string_view s) {
    auto [it, inserted] =
        interned_.try_emplace(s, static_cast<uint32_t>(out_.strings.size()));
    if (inserted) out_.strings.push_back(AddToPool(s));
    return it->second;
  }

  Symbol& Add(SymbolKind kind, size_t name_begin, size_t name_end,
              uint32_t line, size_t line_start) {
    Symbol s;
    s.kind = kind;
    s.name = AddToPool(text_.substr(name_begin, name_end - name_begin));
    s.line = line;
    s.column = static_cast<uint32_t>(name_begin - line_start + 1);
    s.module = module_;
    out_.symbols.push_back(s);
    return out_.symbols.back();
  }

  void ScanLine(size_t start, size_t end, uint32_t line) {
    if (end > start && text_[end - 1] == '\r') --end;
    size_t pos = SkipSpaces(start, end);
    if (pos >= end) return;
    if (StartsWith(text_, pos, "HloModule ")) {
      size_t name = SkipSpaces(pos + 10, end);
      size_t name_end = NameEnd(name, end);
      if (name_end == name) return;
      module_ = static_cast<uint32_t>(out_.symbols.size());
      Symbol& s = Add(SymbolKind::kModule, name, name_end, line, start);
      s.module = module_;
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
    if (pos < end && text_[pos] == '%') ++pos;
    if (pos >= end || !IsNameStart(text_[pos])) return;
    size_t name = pos;
    size_t name_end = NameEnd(pos, end);
    size_t after = SkipSpaces(name_end, end);
    if (!entry && after < end && text_[after] == '=' && after > name_end &&
        after + 1 < end && text_[after + 1] == ' ') {
      ScanInstruction(name, name_end, SkipSpaces(after + 1, end), end, line,
                      start, root);
      return;
    }
    if (root || after >= end) return;
    // A computation header: `name (params) -> shape {` or `name {`.
    if (after == name_end && !entry) return;  // needs a space after the name
    if (text_[after] != '(' && text_[after] != '{') return;
    size_t last = end;
    while (last > after && (text_[last - 1] == ' ' || text_[last - 1] == '\t'))
      --last;
    if (last == after || text_[last - 1] != '{') return;
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
      for (; pos < end; ++pos) {
        char c = text_[pos];
        if (c == '(') ++depth;
        if (c == ')' && --depth == 0) {
          ++pos;
          break;
        }
      }
    } else {
      for (; pos < end; ++pos) {
        char c = text_[pos];
        if (c == '[' || c == '{' || c == '(') {
          if (c == '(' && depth == 0) break;
          ++depth;
        } else if (c == ']' || c == '}' || c == ')') {
          --depth;
        } else if (c == ' ' && depth <= 0) {
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
      opcode_begin = SkipSpaces(pos, end);
    }
    size_t opcode_end = NameEnd(opcode_begin, end);
    Symbol& added = out_.symbols[symbol_index];
    if (shape_end > shape_begin) {
      added.shape =
          Intern(text_.substr(shape_begin, shape_end - shape_begin));
    }
    if (opcode_end > opcode_begin && opcode_end < end &&
        text_[opcode_end] == '(') {
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
      while (pos < end && text_[pos] != '=' && text_[pos] != '}' &&
             text_[pos] != ' ')
        ++pos;
      if (pos >= end || text_[pos] != '=') break;
      std::string_view key_text = text_.substr(key, pos - key);
      ++pos;
      size_t value = pos, value_end = pos;
      if (pos < end && text_[pos] == '"') {
        value = ++pos;
        while (pos < end && text_[pos] != '"') {
          pos += text_[pos] == '\\' ? 2 : 1;
        }
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
    if (op_name_end > op_name) {
      std::string_view text = text_.substr(op_name, op_name_end - op_name);
      if (seen_op_names_.insert(text).second) {
        Add(SymbolKind::kMetadata, op_name, op_name_end, line, line_start);
      }
    }
    if (file_end > file) {
      std::string_view file_text = text_.substr(file, file_end - file);
      // Keyed by hash, so that repeats (the common case) allocate nothing.
      uint64_t key = XXH3_64bits_withSeed(file_text.data(), file_text.size(),
                                          source_line.size()) ^
                     XXH3_64bits(source_line.data(), source_line.size());
      if (seen_locations_.insert(key).second) {
        std::string name(file_text);
        if (!source_line.empty()) {
          name += ':';
          name.append(source_line);
        }
        Symbol s;
        s.kind = SymbolKind::kMetadata;
        s.name = AddToPool(name);
        s.line = line;
        s.column = static_cast<uint32_t>(file - line_start + 1);
        s.module = module_;
        out_.symbols.push_back(s);
      }
    }
  }

  std::string_view text_;
  ScanOptions options_;
  FileSymbols out_;
  uint32_t module_ = kNoRef;
  absl::flat_hash_map<std::string_view, uint32_t> interned_;
  absl::flat_hash_set<std::string_view> seen_op_names_;
  absl::flat_hash_set<uint64_t> seen_locations_;
};

}  // namespace

std::string_view SymbolKindName(SymbolKind kind) {
  switch (kind) {
    case SymbolKind::kModule: return "module";
    case SymbolKind::kComputation: return "computation";
    case SymbolKind::kInstruction: return "instruction";
    case SymbolKind::kMetadata: return "metadata";
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

FileSymbols ScanSymbols(std::string_view text, const ScanOptions& options) {
  return Scanner(text, options).Run();
}

}  // namespace hlo::index
