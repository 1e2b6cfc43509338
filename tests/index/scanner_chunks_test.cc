// ScanSymbols with a ChunkCache must give exactly what a plain scan gives:
// the same symbols, positions, flags, modules and strings, on first sight
// of a text and when its chunks come from the cache (in the same file, in a
// copy with lines added or removed, or after other files).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/index/scanner.h"

namespace hlo::index {
namespace {

namespace fs = std::filesystem;

std::string Describe(const FileSymbols& f, const Symbol& s) {
  std::ostringstream out;
  out << static_cast<int>(s.kind) << " " << f.Name(s) << " " << s.line << ":"
      << s.column << " flags=" << int{s.flags} << " mask=" << s.name_mask
      << " module=" << s.module << " op=" << f.String(s.opcode)
      << " shape=" << f.String(s.shape);
  return out.str();
}

// Fails with the first differing symbol.
void ExpectSameScan(const std::string& text, ChunkCache* cache,
                    const std::string& what) {
  FileSymbols plain = ScanSymbols(text);
  FileSymbols chunked = ScanSymbols(text, {}, cache);
  ASSERT_EQ(plain.symbols.size(), chunked.symbols.size()) << what;
  for (size_t i = 0; i < plain.symbols.size(); ++i) {
    ASSERT_EQ(Describe(plain, plain.symbols[i]),
              Describe(chunked, chunked.symbols[i]))
        << what << ", symbol " << i;
  }
}

std::vector<std::string> Texts() {
  std::vector<std::string> texts;
  const char* source = std::getenv("HLO_LSP_SOURCE_DIR");
  fs::path root(source ? source : HLO_LSP_SOURCE_DIR);
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root / "examples", ec)) {
    files.push_back(e.path());
  }
  // A small sample of the corpus when it is there (every 40th file).
  std::vector<fs::path> corpus;
  fs::path shared = root / ".." / "shared" / "corpus";
  if (fs::is_directory(shared, ec)) {
    for (auto it = fs::recursive_directory_iterator(shared, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      std::string ext = it->path().extension().string();
      if (it->is_regular_file() && (ext == ".hlo" || ext == ".txt")) {
        corpus.push_back(it->path());
      }
    }
  }
  std::sort(corpus.begin(), corpus.end());
  for (size_t i = 0; i < corpus.size(); i += 40) files.push_back(corpus[i]);
  for (const fs::path& p : files) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    if (buffer.str().size() < (4 << 20)) texts.push_back(buffer.str());
  }
  return texts;
}

// Every tenth line dropped: the chunks around each edit are new, the rest
// come from the cache at other line numbers.
std::string DropLines(const std::string& text, size_t every) {
  std::string out;
  size_t line = 0, pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    end = end == std::string::npos ? text.size() : end + 1;
    if (++line % every != 0) out.append(text, pos, end - pos);
    pos = end;
  }
  return out;
}

TEST(ScannerChunksTest, SameAsPlainScan) {
  std::vector<std::string> texts = Texts();
  ASSERT_FALSE(texts.empty());
  ChunkCache cache;
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string& t = texts[i];
    std::string name = "text " + std::to_string(i);
    ExpectSameScan(t, &cache, name + " (first)");
    ExpectSameScan(t, &cache, name + " (cached)");
    ExpectSameScan(DropLines(t, 10), &cache, name + " minus lines");
    ExpectSameScan(t + "\n" + t, &cache, name + " twice");
    if (HasFatalFailure()) return;
  }
}

TEST(ScannerChunksTest, StateAcrossChunks) {
  // Headers, comments and values that run over many lines, a signature
  // broken over lines, a tuple shape over lines, and repeats of each.
  std::string unit =
      "HloModule m, frontend_attributes={\n"
      "  a=\"1\",\n  b=\"{\"\n}\n\n"
      "/* a comment\n over\n lines */\n"
      "%c (p: f32[],\n    q: f32[])\n    -> f32[] {\n"
      "  %p = f32[] parameter(0), metadata={op_name=\"x\"}\n"
      "  %q = f32[] parameter(1), metadata={op_name=\"x\" "
      "source_file=\"f.py\" source_line=3}\n"
      "  %t = (f32[],\n    f32[]) tuple(%p, %q)\n"
      "  %v =\n    f32[] add(%p, %q)\n"
      "  ROOT %r = f32[] add(%p, %q), frontend_attributes={\n"
      "    k=\"v\"\n  }\n"
      "}\n\n";
  std::string text;
  for (int i = 0; i < 12; ++i) {
    text += unit;
    for (int j = 0; j < i; ++j) text += "  %pad" + std::to_string(j) + " = f32[] constant(0)\n";
  }
  ChunkCache cache;
  ExpectSameScan(text, &cache, "first");
  ExpectSameScan(text, &cache, "cached");
  ExpectSameScan(DropLines(text, 7), &cache, "minus lines");
}

}  // namespace
}  // namespace hlo::index
