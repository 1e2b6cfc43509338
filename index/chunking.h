// Content-defined chunks of lines: the unit in which the index shares scans
// between the files of a dump folder (see ChunkCache in scanner.h).
#ifndef HLO_LSP_INDEX_CHUNKING_H_
#define HLO_LSP_INDEX_CHUNKING_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace hlo::index {

struct ScanOptions {
  // Metadata symbols (op_name, source_file:line): kept once per distinct
  // name, at the first occurrence in a file (ScanSymbols) or in a chunk
  // (ScanSegments): pass dumps repeat them on every instruction, and the
  // instructions themselves are symbols already.
  bool metadata = true;
};

// A text cut into chunks of whole lines, each with its hash (XXH3-128 of
// its bytes, seeded by the options), and a hash of the whole text made from
// them (equal texts hash alike): what the index uses to spot byte-identical
// files without a second pass over the bytes. A chunk ends after a blank
// line or a line whose cheap hash picks it, once it holds a few lines, or
// past a size: cut points depend on content only, so an edit moves no
// others.
struct ChunkedText {
  struct Chunk {
    size_t begin = 0, end = 0;
    uint32_t lines = 0;
    std::pair<uint64_t, uint64_t> key;
  };
  std::vector<Chunk> chunks;
  std::pair<uint64_t, uint64_t> hash;
};
ChunkedText CutChunks(std::string_view text, const ScanOptions& options = {});

// CutChunks for a text that arrives in pieces (read from a file), cutting
// each piece while it is still in the CPU's cache. `data` holds the text as
// it arrives; `expected_size` is its size as far as known (a file's size).
class ChunkCutter {
 public:
  ChunkCutter(const char* data, size_t expected_size,
              const ScanOptions& options = {});
  ~ChunkCutter();
  ChunkCutter(const ChunkCutter&) = delete;
  ChunkCutter& operator=(const ChunkCutter&) = delete;

  // The first `available` bytes are there (never decreasing).
  void Advance(size_t available);
  // The text is complete: `size` bytes (at most expected_size).
  ChunkedText Finish(size_t size);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace hlo::index

#endif  // HLO_LSP_INDEX_CHUNKING_H_
