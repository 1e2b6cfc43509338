// Parses every HLO text file of the shared corpus (INDEX.tsv): nothing may
// crash, and every file not marked neg_hint must parse without errors unless
// tests/corpus_known_invalid.txt lists it with a reason.
#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/parser.h"

namespace hlo {
namespace {

namespace fs = std::filesystem;

struct Entry {
  std::string path;  // relative to the corpus root
  bool neg_hint = false;
};

fs::path CorpusDir() {
  if (const char* env = std::getenv("HLO_LSP_CORPUS"); env && *env) return env;
  return fs::path(HLO_LSP_SOURCE_DIR) / ".." / "shared" / "corpus";
}

std::vector<std::string_view> SplitTabs(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  for (size_t tab; (tab = line.find('\t', start)) != std::string_view::npos;
       start = tab + 1) {
    fields.push_back(line.substr(start, tab - start));
  }
  fields.push_back(line.substr(start));
  return fields;
}

std::vector<Entry> ReadIndex(const fs::path& index_path) {
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
        if (note.substr(start, end - start) == "neg_hint") entry.neg_hint = true;
        start = end + 1;
      }
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

// path -> reason, from tests/corpus_known_invalid.txt.
std::map<std::string, std::string> ReadKnownInvalid() {
  std::map<std::string, std::string> known;
  std::ifstream file(fs::path(HLO_LSP_SOURCE_DIR) /
                     "tests/corpus_known_invalid.txt");
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string_view> fields = SplitTabs(line);
    known[std::string(fields[0])] =
        fields.size() > 1 ? std::string(fields[1]) : "";
  }
  return known;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}

// Skips blanks and whole-line '#' or '//' comments.
size_t SkipBlanksAndComments(std::string_view text, size_t i) {
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

size_t SkipIdentifier(std::string_view text, size_t i) {
  while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) ||
                             text[i] == '_')) {
    ++i;
  }
  return i;
}

// Text protos (`hlo_module {\n name: "x"`, `arguments {\n shape {`) are not
// HLO. Header-less HLO also starts `name {`, but continues `name =`.
bool IsTextProto(std::string_view text) {
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
bool IsFormatTemplate(std::string_view text) {
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
    bool word_start = std::isupper(static_cast<unsigned char>(c)) &&
                      (i == 0 || !(std::isalnum(static_cast<unsigned char>(
                                       text[i - 1])) ||
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

// Names the file being parsed if the parser crashes, then lets the previous
// handler (the sanitizer's, or the default) do its work.
char g_current_file[4096];
struct sigaction g_previous[32];

void OnCrash(int signal_number) {
  const char prefix[] = "\ncorpus test crashed while parsing: ";
  (void)!::write(2, prefix, sizeof(prefix) - 1);
  (void)!::write(2, g_current_file, std::strlen(g_current_file));
  (void)!::write(2, "\n", 1);
  ::sigaction(signal_number, &g_previous[signal_number], nullptr);
}

void InstallCrashReporter() {
  for (int signal_number : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) {
    struct sigaction action = {};
    action.sa_handler = OnCrash;
    ::sigaction(signal_number, &action, &g_previous[signal_number]);
  }
}

std::string FirstDiagnostics(const std::string& path, const ParsedFile& file,
                             int count) {
  std::ostringstream out;
  for (const Diagnostic& d : file.diagnostics) {
    if (d.severity != Severity::kError) continue;
    if (count-- == 0) break;
    LineColumn at = file.lines().ToLineColumn(d.span.begin);
    out << "    " << path << ":" << at.line + 1 << ":" << at.column + 1
        << ": " << d.message << "\n";
  }
  return out.str();
}

TEST(CorpusTest, EveryFileParsesWithoutCrashAndCleanFilesHaveNoErrors) {
  const fs::path corpus = CorpusDir();
  const char* ci = std::getenv("CI");
  const bool in_ci = ci != nullptr && std::string_view(ci) == "true";
  if (!fs::exists(corpus / "INDEX.tsv")) {
    if (in_ci) FAIL() << "CI=true but the corpus is missing: " << corpus;
    GTEST_SKIP() << "no corpus at " << corpus << " (set HLO_LSP_CORPUS)";
  }
  std::vector<Entry> entries = ReadIndex(corpus / "INDEX.tsv");
  std::map<std::string, std::string> known_invalid = ReadKnownInvalid();
  ASSERT_GT(entries.size(), 0u);
  EXPECT_LT(known_invalid.size() * 100, entries.size())
      << "tests/corpus_known_invalid.txt must stay under 1% of the corpus";

  InstallCrashReporter();
  size_t parsed = 0, clean = 0, known_failing = 0, neg_hint_failing = 0,
         skipped = 0, missing = 0;
  double bytes = 0, seconds = 0;
  std::map<std::string, bool> listed_seen;  // known-invalid path -> failed?
  std::vector<std::string> unexpected;
  for (const Entry& entry : entries) {
    if (EndsWith(entry.path, ".pb") || EndsWith(entry.path, ".pb.gz")) {
      ++skipped;
      continue;
    }
    std::ifstream in(corpus / entry.path, std::ios::binary);
    if (!in) {
      ++missing;
      ADD_FAILURE() << "listed in INDEX.tsv but unreadable: " << entry.path;
      continue;
    }
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    if (IsTextProto(text) || IsFormatTemplate(text)) {
      ++skipped;
      continue;
    }
    std::snprintf(g_current_file, sizeof(g_current_file), "%s",
                  entry.path.c_str());
    auto start = std::chrono::steady_clock::now();
    std::unique_ptr<ParsedFile> file = Parse(text);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             start)
                   .count();
    bytes += text.size();
    ++parsed;
    bool failed = file->HasErrors();
    auto known = known_invalid.find(entry.path);
    if (known != known_invalid.end()) listed_seen[entry.path] = failed;
    if (!failed) {
      ++clean;
    } else if (entry.neg_hint) {
      ++neg_hint_failing;
    } else if (known != known_invalid.end()) {
      ++known_failing;
    } else {
      unexpected.push_back(entry.path + "\n" +
                           FirstDiagnostics(entry.path, *file, 3));
    }
  }
  for (const auto& [path, reason] : known_invalid) {
    auto seen = listed_seen.find(path);
    if (seen == listed_seen.end()) {
      std::printf("known-invalid entry not in the corpus: %s\n", path.c_str());
    } else if (!seen->second) {
      std::printf("known-invalid entry now parses clean, remove it: %s\n",
                  path.c_str());
    }
  }
  for (const std::string& failure : unexpected) {
    std::printf("unexpected errors in %s", failure.c_str());
  }
  std::printf(
      "corpus: %zu files parsed, %zu clean, %zu known-invalid, %zu neg_hint "
      "with errors, %zu unexpected failures, %zu skipped (binary, text "
      "proto or format template), %.1f MB at %.1f MB/s\n",
      parsed, clean, known_failing, neg_hint_failing, unexpected.size(),
      skipped, bytes / 1e6, seconds > 0 ? bytes / 1e6 / seconds : 0.0);
  EXPECT_TRUE(unexpected.empty())
      << unexpected.size()
      << " files not marked neg_hint have errors (listed above); fix the "
         "parser or list them with a reason in tests/corpus_known_invalid.txt";
  EXPECT_EQ(missing, 0u);
}

}  // namespace
}  // namespace hlo
