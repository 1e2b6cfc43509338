// What the corpus tests count as an HLO text file of ../shared/corpus, and
// how they read INDEX.tsv: one copy, so the parse test and the proto round
// trip agree on which files are HLO.
#ifndef HLO_LSP_TESTS_CORPUS_FILES_H_
#define HLO_LSP_TESTS_CORPUS_FILES_H_

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace hlo::corpus_files {

namespace fs = std::filesystem;

struct Entry {
  std::string path;  // relative to the corpus root
  bool neg_hint = false;
};

inline fs::path CorpusDir() {
  if (const char* env = std::getenv("HLO_LSP_CORPUS"); env && *env) return env;
  return fs::path(HLO_LSP_SOURCE_DIR) / ".." / "shared" / "corpus";
}

inline std::vector<std::string_view> SplitTabs(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  for (size_t tab; (tab = line.find('\t', start)) != std::string_view::npos;
       start = tab + 1) {
    fields.push_back(line.substr(start, tab - start));
  }
  fields.push_back(line.substr(start));
  return fields;
}

inline std::vector<Entry> ReadIndex(const fs::path& index_path) {
  std::vector<Entry> entries;
  std::ifstream index(index_path);
  std::string line;
  bool header = true;
  while (std::getline(index, line)) {
    if (header) {  // file bytes repository source_path note
      header = false;
      continue;
    }
    std::vector<std::string_view> fields = SplitTabs(line);
    if (fields.empty() || fields[0].empty()) continue;
    Entry entry{std::string(fields[0])};
    if (fields.size() >= 5) {
      // The note is ';'-separated: "test=Foo.Bar;neg_hint".
      std::string_view note = fields[4];
      for (size_t start = 0; start <= note.size();) {
        size_t end = note.find(';', start);
        if (end == std::string_view::npos) end = note.size();
        if (note.substr(start, end - start) == "neg_hint")
          entry.neg_hint = true;
        start = end + 1;
      }
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

// Kept for tests/corpus; new code calls std::string(_view)::ends_with.
inline bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.ends_with(suffix);
}

// Skips blanks and whole-line '#' or '//' comments.
inline size_t SkipBlanksAndComments(std::string_view text, size_t i) {
  while (i < text.size()) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      ++i;
    } else if (c == '#' || text.substr(i, 2) == "//") {
      size_t eol = text.find('\n', i);
      i = eol == std::string_view::npos ? text.size() : eol + 1;
    } else {
      break;
    }
  }
  return i;
}

inline size_t SkipIdentifier(std::string_view text, size_t i) {
  while (
      i < text.size() &&
      (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) {
    ++i;
  }
  return i;
}

// Text protos (`hlo_module {\n name: "x"`, `arguments {\n shape {`) are not
// HLO. Header-less HLO also starts `name {`, but continues `name =`.
inline bool IsTextProto(std::string_view text) {
  size_t i = SkipBlanksAndComments(text, 0);
  size_t end = SkipIdentifier(text, i);
  if (end == i) return false;
  std::string_view first = text.substr(i, end - i);
  if (first == "HloModule" || first == "ENTRY") return false;
  while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
  if (end >= text.size()) return false;
  if (text[end] == ':') return true;
  if (text[end] != '{') return false;
  i = SkipBlanksAndComments(text, end + 1);
  end = SkipIdentifier(text, i);
  if (end == i) return false;
  while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
  return end < text.size() && (text[end] == ':' || text[end] == '{');
}

// C++ format templates that slipped past the corpus extractor's filter
// (SOURCES.md says templates were meant to be dropped): `<<ABType>>`,
// `{{DIM_SIZE}}`, or an all-caps placeholder where a type or a dimension
// goes (`TYPE[`, `DTYPE1[`, `[INDICES_BOUND]`, `= SHAPE parameter`). They
// are substituted by the test before parsing, so as files they are not HLO.
inline bool IsFormatTemplate(std::string_view text) {
  auto upper_run = [&](size_t i) {
    size_t j = i;
    while (j < text.size() &&
           (std::isupper(static_cast<unsigned char>(text[j])) ||
            std::isdigit(static_cast<unsigned char>(text[j])) ||
            text[j] == '_')) {
      ++j;
    }
    return j;
  };
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    char c = text[i];
    if ((c == '<' && text[i + 1] == '<') || (c == '{' && text[i + 1] == '{')) {
      size_t j = i + 2;
      while (j < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[j])) ||
              text[j] == '_')) {
        ++j;
      }
      char close = c == '<' ? '>' : '}';
      if (j > i + 2 && j + 1 < text.size() && text[j] == close &&
          text[j + 1] == close) {
        return true;
      }
    }
    // An all-caps word of 4+ letters directly before '[' or after '[', or
    // standing as the shape of an instruction.
    bool word_start =
        std::isupper(static_cast<unsigned char>(c)) &&
        (i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) ||
                     text[i - 1] == '_' || text[i - 1] == '%' ||
                     text[i - 1] == '"' || text[i - 1] == '.'));
    if (!word_start) continue;
    size_t j = upper_run(i);
    if (j - i < 4 || (j < text.size() &&
                      std::islower(static_cast<unsigned char>(text[j])))) {
      continue;
    }
    bool after_bracket = i > 0 && text[i - 1] == '[';
    bool before_bracket = j < text.size() && text[j] == '[';
    bool as_shape = i >= 2 && text.substr(i - 2, 2) == "= " &&
                    j < text.size() && text[j] == ' ';
    if (after_bracket || before_bracket || as_shape) return true;
  }
  return false;
}

}  // namespace hlo::corpus_files

#endif  // HLO_LSP_TESTS_CORPUS_FILES_H_
