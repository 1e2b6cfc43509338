// Feeds arbitrary bytes to the index's chunk cutter and scanners: chunks
// must tile the text at line ends whatever the pieces it arrives in, and a
// scan through shared chunks must find what a plain scan finds (metadata at
// its first occurrence per file), on first sight and from the cache.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "index/chunking.h"
#include "index/scanner.h"

namespace {

using hlo::index::ChunkCache;
using hlo::index::ChunkCutter;
using hlo::index::ChunkedText;
using hlo::index::FileSymbols;
using hlo::index::Symbol;
using hlo::index::SymbolKind;

void Check(bool ok) {
  if (!ok) std::abort();
}

using Row =
    std::tuple<int, std::string, uint32_t, uint32_t, std::string, std::string>;

Row Describe(const FileSymbols& f, const Symbol& s, uint32_t line) {
  return {static_cast<int>(s.kind),
          std::string(f.Name(s)),
          line,
          s.column,
          std::string(f.String(s.shape)),
          std::string(f.String(s.opcode))};
}

std::vector<Row> Segmented(const std::string& text, ChunkCache* cache) {
  std::vector<Row> rows;
  std::set<std::string> metadata;
  ChunkedText cut = hlo::index::CutChunks(text);
  for (const hlo::index::FileSegment& segment :
       hlo::index::ScanSegments(text, cut, {}, cache).segments) {
    FileSymbols f = segment.chunk ? segment.chunk->View() : segment.symbols;
    for (const Symbol& s : f.symbols) {
      if (s.kind == SymbolKind::kMetadata &&
          !metadata.insert(std::string(f.Name(s))).second) {
        continue;
      }
      rows.push_back(Describe(f, s, s.line + segment.line_base));
    }
  }
  return rows;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ChunkedText whole = hlo::index::CutChunks(text);
  size_t pos = 0;
  for (const ChunkedText::Chunk& c : whole.chunks) {
    Check(c.begin == pos && c.end > c.begin && c.end <= text.size());
    Check(c.end == text.size() || text[c.end - 1] == '\n');
    pos = c.end;
  }
  Check(pos == text.size());

  const size_t piece = size == 0 ? 1 : 1 + data[0] * 7;
  ChunkCutter cutter(text.data(), text.size() + (size % 3));
  for (size_t have = 0; have < text.size();) {
    have = std::min(text.size(), have + piece);
    cutter.Advance(have);
  }
  ChunkedText pieces = cutter.Finish(text.size());
  Check(pieces.hash == whole.hash &&
        pieces.chunks.size() == whole.chunks.size());
  for (size_t i = 0; i < whole.chunks.size(); ++i) {
    Check(pieces.chunks[i].end == whole.chunks[i].end &&
          pieces.chunks[i].key == whole.chunks[i].key);
  }

  FileSymbols plain = hlo::index::ScanSymbols(text);
  std::vector<Row> expected;
  for (const Symbol& s : plain.symbols) {
    expected.push_back(Describe(plain, s, s.line));
  }
  ChunkCache cache;
  Check(Segmented(text, &cache) == expected);
  Check(Segmented(text, &cache) == expected);  // every chunk from the cache
  return 0;
}
