// ScanSegments must give what a plain scan gives: the same symbols,
// positions, flags, modules and strings, on first sight of a text and when
// its chunks come from the cache (in the same file, in a copy with lines
// added or removed, or after other files); metadata symbols may repeat once
// per segment, and the first of each per file is the plain scan's.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "index/scanner.h"

namespace hlo::index {
namespace {

namespace fs = std::filesystem;

std::string Describe(const FileSymbols& f, const Symbol& s, uint32_t line,
                     std::string_view module) {
  std::ostringstream out;
  out << static_cast<int>(s.kind) << " " << f.Name(s) << " " << line << ":"
      << s.column << " flags=" << int{s.flags} << " module=" << module
      << " op=" << f.String(s.opcode) << " shape=" << f.String(s.shape);
  return out.str();
}

// The file's symbols in order, described; metadata only at its first
// occurrence by name.
std::vector<std::string> Flatten(const SegmentedFile& file) {
  std::vector<std::string> out;
  std::set<std::string, std::less<>> seen_metadata;
  std::string module;
  uint32_t count = 0;
  for (const FileSegment& segment : file.segments) {
    FileSymbols f = segment.chunk ? segment.chunk->View() : segment.symbols;
    EXPECT_EQ(segment.symbol_base, count);
    count += static_cast<uint32_t>(f.symbols.size());
    for (const Symbol& s : f.symbols) {
      if (s.kind == SymbolKind::kModule) module = std::string(f.Name(s));
      if (s.kind == SymbolKind::kMetadata &&
          !seen_metadata.insert(std::string(f.Name(s))).second) {
        continue;
      }
      out.push_back(Describe(f, s, s.line + segment.line_base, module));
    }
  }
  EXPECT_EQ(count, file.symbol_count);
  return out;
}

// Fails with the first differing symbol.
void ExpectSameScan(const std::string& text, ChunkCache* cache,
                    const std::string& what) {
  FileSymbols plain = ScanSymbols(text);
  std::vector<std::string> expected;
  for (const Symbol& s : plain.symbols) {
    expected.push_back(Describe(plain, s, s.line, plain.ModuleName(s)));
  }
  std::vector<std::string> got =
      Flatten(ScanSegments(text, CutChunks(text), {}, cache));
  ASSERT_EQ(expected.size(), got.size()) << what;
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(expected[i], got[i]) << what << ", symbol " << i;
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

// Chunks tile the text at line ends, count its lines, and depend on
// content only: a few lines added in front leave the later chunks alone.
TEST(ScannerChunksTest, ChunksTileTheTextAtLineEnds) {
  std::vector<std::string> texts = Texts();
  texts.push_back("no newline at all");
  texts.push_back(std::string(200, 'x') + "\r\n" + std::string(70, '\n'));
  texts.push_back(std::string(300 << 10, 'y'));  // one line over the cap
  std::string many;  // ~400 KB of distinct instruction lines
  for (int i = 0; many.size() < (400 << 10); ++i) {
    many += "  %x." + std::to_string(i) + " = f32[" + std::to_string(i % 97) +
            "] add(%y." + std::to_string(i * 7) + ", %z)\n";
  }
  texts.push_back(many);
  for (const std::string& text : texts) {
    ChunkedText cut = CutChunks(text);
    size_t pos = 0;
    uint64_t lines = 0;
    for (const ChunkedText::Chunk& c : cut.chunks) {
      ASSERT_EQ(c.begin, pos);
      ASSERT_GT(c.end, c.begin);
      ASSERT_TRUE(c.end == text.size() || text[c.end - 1] == '\n');
      uint32_t newlines = static_cast<uint32_t>(
          std::count(text.begin() + c.begin, text.begin() + c.end, '\n'));
      ASSERT_EQ(c.lines, newlines + (text[c.end - 1] != '\n' ? 1 : 0));
      lines += c.lines;
      pos = c.end;
    }
    ASSERT_EQ(pos, text.size());
    EXPECT_EQ(lines, std::count(text.begin(), text.end(), '\n') +
                         (text.back() != '\n' ? 1 : 0));
    if (text.size() < 256 << 10) continue;
    ChunkedText shifted = CutChunks("// one\n// two\n// three\n" + text);
    std::set<std::pair<uint64_t, uint64_t>> keys;
    for (const ChunkedText::Chunk& c : cut.chunks) keys.insert(c.key);
    size_t shared = 0;
    for (const ChunkedText::Chunk& c : shifted.chunks)
      shared += keys.count(c.key);
    EXPECT_GE(shared + 3, cut.chunks.size()) << "of " << cut.chunks.size();
  }
}

// The cut rule written out plainly (chunking.cc): a chunk ends after a line
// once it has 32 lines, if the line is blank or its last four bytes b1..b4
// give (b1 ^ b3 ^ (b2 + b4)) & 127 == 42; or once it reaches 64 KiB; or at
// the end. The vector code must find exactly these ends.
std::vector<size_t> PlainChunkEnds(const std::string& text) {
  std::vector<size_t> ends;
  size_t begin = 0;
  uint32_t lines = 0;
  auto byte = [&](size_t pos, size_t back) -> uint8_t {
    return pos >= back ? static_cast<uint8_t>(text[pos - back]) : 0;
  };
  for (size_t i = 0; i <= text.size(); ++i) {
    bool end_of_text = i == text.size();
    if (!end_of_text && text[i] != '\n') continue;
    if (end_of_text && (i == begin || text[i - 1] == '\n')) break;
    ++lines;
    size_t next = end_of_text ? i : i + 1;
    bool blank = i == 0 || byte(i, 1) == '\n' ||
                 (byte(i, 1) == '\r' && byte(i, 2) == '\n');
    bool hashed = ((byte(i, 1) ^ byte(i, 3) ^
                    static_cast<uint8_t>(byte(i, 2) + byte(i, 4))) &
                   127) == 42;
    if ((!end_of_text && (blank || hashed) && lines >= 32) ||
        next - begin >= (64 << 10) || next == text.size()) {
      ends.push_back(next);
      begin = next;
      lines = 0;
    }
  }
  return ends;
}

TEST(ScannerChunksTest, ChunkEndsFollowThePlainRule) {
  std::vector<std::string> texts = Texts();
  std::string lines;
  for (int i = 0; lines.size() < (200 << 10); ++i) {
    lines += "  %w." + std::to_string(i * 13) + " = f32[" +
             std::to_string(i % 61) + "]{0} negate(%u." + std::to_string(i) +
             ")" + (i % 7 == 0 ? "\r\n" : "\n");
    if (i % 97 == 0) lines += "\n";
  }
  texts.push_back(lines);
  for (const std::string& text : texts) {
    std::vector<size_t> got;
    for (const ChunkedText::Chunk& c : CutChunks(text).chunks) {
      got.push_back(c.end);
    }
    ASSERT_EQ(got, PlainChunkEnds(text));
  }
}

// A text cut as it arrives in pieces (or shorter than its file's size said)
// gives the chunks of the whole text cut at once.
TEST(ScannerChunksTest, CuttingInPiecesGivesTheSameChunks) {
  std::vector<std::string> texts = Texts();
  std::string many;
  for (int i = 0; many.size() < (300 << 10); ++i) {
    many += "  %v." + std::to_string(i) + " = s32[] constant(" +
            std::to_string(i * 31) + ")\n";
    if (i % 45 == 0) many += "\n";
  }
  texts.push_back(many);
  texts.push_back(std::string(100, '\n'));
  for (const std::string& text : texts) {
    ChunkedText whole = CutChunks(text);
    auto same = [&](const ChunkedText& got, std::string_view what) {
      ASSERT_EQ(got.chunks.size(), whole.chunks.size()) << what;
      for (size_t i = 0; i < got.chunks.size(); ++i) {
        ASSERT_EQ(got.chunks[i].end, whole.chunks[i].end) << what << " " << i;
        ASSERT_EQ(got.chunks[i].key, whole.chunks[i].key) << what << " " << i;
      }
      EXPECT_EQ(got.hash, whole.hash) << what;
    };
    for (size_t piece : {size_t{1}, size_t{63}, size_t{4097}, size_t{65536}}) {
      ChunkCutter cutter(text.data(), text.size());
      for (size_t have = 0; have < text.size();) {
        have = std::min(text.size(), have + piece);
        cutter.Advance(have);
      }
      same(cutter.Finish(text.size()), "pieces of " + std::to_string(piece));
    }
    ChunkCutter shrunk(text.data(), text.size() + 1000);
    shrunk.Advance(text.size());
    same(shrunk.Finish(text.size()), "shorter than expected");
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
    for (int j = 0; j < i; ++j)
      text += "  %pad" + std::to_string(j) + " = f32[] constant(0)\n";
  }
  ChunkCache cache;
  ExpectSameScan(text, &cache, "first");
  ExpectSameScan(text, &cache, "cached");
  ExpectSameScan(DropLines(text, 7), &cache, "minus lines");
}

}  // namespace
}  // namespace hlo::index
