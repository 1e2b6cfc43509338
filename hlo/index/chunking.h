// Content-defined chunks of lines: the unit in which the index shares scans
// between the files of a dump folder (see ChunkCache in scanner.h).
#ifndef HLO_LSP_HLO_INDEX_CHUNKING_H_
#define HLO_LSP_HLO_INDEX_CHUNKING_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace hlo::index {

struct ScanOptions {
  // Metadata symbols (op_name, source_file:line) are kept once per distinct
  // name and file, at the first occurrence: pass dumps repeat them on every
  // instruction, and the instructions themselves are symbols already.
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

}  // namespace hlo::index

#endif  // HLO_LSP_HLO_INDEX_CHUNKING_H_
