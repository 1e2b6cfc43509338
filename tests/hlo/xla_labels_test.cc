// XLA's own parser and verifier tests as an oracle (tests/corpus/xla_labels/,
// made by scripts/extract-xla-labels.py): `check`'s engine (hlo::Parse, then
// hlo::Verify with the fixture's options, as the CLI runs them) must flag no
// valid module, and must flag at least the recorded share of the negatives.
// The floors below only go up: raise them when a check lands.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/verify.h"
#include "tests/corpus_files.h"

namespace hlo {
namespace {

namespace fs = std::filesystem;

// Shares of the negatives flagged (any error), in percent.
constexpr double kParserFloor = 100.0;
constexpr double kVerifierFloor = 100.0;

struct Label {
  std::string name, source, expect, options, message;
};

fs::path LabelDir() {
  return fs::path(HLO_LSP_SOURCE_DIR) / "tests/corpus/xla_labels";
}

std::vector<Label> ReadLabels() {
  std::vector<Label> labels;
  std::ifstream in(LabelDir() / "LABELS.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string_view> f = corpus_files::SplitTabs(line);
    if (f.size() < 5) continue;
    labels.push_back({std::string(f[0]), std::string(f[1]), std::string(f[2]),
                      std::string(f[3]), std::string(f[4])});
  }
  return labels;
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// What check reports for one case: every error message, parser's first.
std::vector<std::string> CheckErrors(const std::string& text,
                                     const Label& label) {
  std::unique_ptr<ParsedFile> file = Parse(text);
  std::vector<std::string> errors;
  for (const Diagnostic& d : file->diagnostics) {
    if (d.severity == Severity::kError) errors.push_back(d.message);
  }
  if (label.expect == "parses") return errors;  // XLA ran no verifier
  VerifierOptions options;
  std::string bad;
  EXPECT_TRUE(ParseVerifierOptions(label.options, &options, &bad)) << bad;
  for (const Diagnostic& d : Verify(*file, options)) {
    if (d.severity == Severity::kError) errors.push_back(d.message);
  }
  return errors;
}

struct Tally {
  int total = 0, flagged = 0, same_message = 0;
  double Rate() const { return total ? 100.0 * flagged / total : 100; }
};

TEST(XlaLabelsTest, FlagsNegativesAndNoValidModule) {
  const std::vector<Label> labels = ReadLabels();
  ASSERT_GT(labels.size(), 400u) << "no labels under " << LabelDir();
  std::map<std::string, Tally> tally;  // by source
  int valid = 0, false_errors = 0;
  const bool verbose = std::getenv("HLO_LSP_XLA_LABELS_VERBOSE") != nullptr;
  for (const Label& label : labels) {
    const std::string text = ReadText(LabelDir() / (label.name + ".hlo"));
    const std::vector<std::string> errors = CheckErrors(text, label);
    if (label.expect == "valid" || label.expect == "parses") {
      ++valid;
      if (!errors.empty()) {
        ++false_errors;
        ADD_FAILURE() << "false error on " << label.name << ": " << errors[0];
      }
      continue;
    }
    Tally& t = tally[label.source];
    ++t.total;
    if (errors.empty()) {
      if (verbose)
        std::printf("MISS %s: %s\n", label.name.c_str(), label.message.c_str());
      continue;
    }
    ++t.flagged;
    bool same = false;
    for (const std::string& e : errors) {
      same |= label.message != "-" && e.find(label.message) != e.npos;
    }
    t.same_message += same;
    if (verbose && !same) {
      std::printf("OTHER %s: want '%s' got '%s'\n", label.name.c_str(),
                  label.message.c_str(), errors[0].c_str());
    }
  }
  for (const auto& [source, t] : tally) {
    std::printf("%s negatives: %d/%d flagged (%.1f%%), %d with XLA's message\n",
                source.c_str(), t.flagged, t.total, t.Rate(), t.same_message);
  }
  std::printf("valid modules: %d, false errors: %d\n", valid, false_errors);
  EXPECT_GE(tally["parser"].Rate(), kParserFloor);
  EXPECT_GE(tally["verifier"].Rate(), kVerifierFloor);
}

}  // namespace
}  // namespace hlo
