// The verifier (hlo::Verify, check's defaults) over every HLO text file of
// the shared corpus (../shared/corpus, INDEX.tsv): no file that parses clean
// and is not marked neg_hint may draw a finding, unless
// tests/corpus_shape_invalid.txt lists it with the reason XLA would reject
// it too. Skips without a corpus.
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

std::map<std::string, std::string> ReadKnownShapeInvalid() {
  std::map<std::string, std::string> known;
  std::ifstream file(fs::path(HLO_LSP_SOURCE_DIR) /
                     "tests/corpus_shape_invalid.txt");
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string_view> fields = corpus_files::SplitTabs(line);
    known[std::string(fields[0])] =
        fields.size() > 1 ? std::string(fields[1]) : "";
  }
  return known;
}

TEST(ShapeInferenceCorpusTest, NoFindingOnValidModules) {
  const fs::path corpus = corpus_files::CorpusDir();
  if (!fs::exists(corpus / "INDEX.tsv")) {
    GTEST_SKIP() << "no corpus at " << corpus << " (set HLO_LSP_CORPUS)";
  }
  const std::map<std::string, std::string> known = ReadKnownShapeInvalid();
  std::map<std::string, std::string> found;  // path -> first finding
  size_t checked = 0;
  for (const corpus_files::Entry& entry :
       corpus_files::ReadIndex(corpus / "INDEX.tsv")) {
    if (entry.neg_hint || entry.path.ends_with(".pb") ||
        entry.path.ends_with(".pb.gz")) {
      continue;
    }
    std::ifstream in(corpus / entry.path, std::ios::binary);
    if (!in) continue;
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    if (corpus_files::IsTextProto(text) ||
        corpus_files::IsFormatTemplate(text)) {
      continue;
    }
    std::unique_ptr<ParsedFile> file = Parse(text);
    if (file->HasErrors()) continue;  // tests/corpus_known_invalid.txt
    ++checked;
    std::vector<Diagnostic> findings = Verify(*file);
    if (findings.empty()) continue;
    LineColumn at = file->lines().ToLineColumn(findings[0].span.begin);
    found[entry.path] = std::to_string(at.line + 1) + ":" +
                        std::to_string(at.column + 1) + ": " +
                        findings[0].message;
  }
  std::printf("shape check: %zu clean modules checked, %zu known invalid\n",
              checked, known.size());
  EXPECT_GT(checked, 1000u);
  for (const auto& [path, finding] : found) {
    EXPECT_TRUE(known.contains(path))
        << "false shape finding? " << path << ":" << finding;
  }
  for (const auto& [path, reason] : known) {
    EXPECT_TRUE(found.contains(path))
        << "listed in tests/corpus_shape_invalid.txt but draws no finding "
           "(drop the entry): "
        << path;
  }
  EXPECT_LT(known.size() * 100, checked) << "keep the list under 1%";
}

}  // namespace
}  // namespace hlo
