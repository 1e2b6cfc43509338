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
#include "tests/corpus_files.h"

namespace hlo {
namespace {

namespace fs = std::filesystem;

using corpus_files::CorpusDir;
using corpus_files::EndsWith;
using corpus_files::Entry;
using corpus_files::IsFormatTemplate;
using corpus_files::IsTextProto;
using corpus_files::ReadIndex;
using corpus_files::SplitTabs;

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
    out << "    " << path << ":" << at.line + 1 << ":" << at.column + 1 << ": "
        << d.message << "\n";
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
    seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
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
