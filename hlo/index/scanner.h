// A line-oriented symbol scanner over HLO text that does not need the full
// parse: `HloModule name`, computation headers, `[ROOT] %name = shape op(`,
// and `metadata={op_name="..." source_file="..." source_line=N}`. It agrees
// with hlo::Parse on module, computation and (non-nested) instruction names
// and positions for printed dumps (tests/index/scanner_agreement_test.cc).
#ifndef HLO_LSP_HLO_INDEX_SCANNER_H_
#define HLO_LSP_HLO_INDEX_SCANNER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "hlo/index/symbols.h"

namespace hlo::index {

struct ScanOptions {
  // Metadata symbols (op_name, source_file:line) are kept once per distinct
  // name and file, at the first occurrence: pass dumps repeat them on every
  // instruction, and the instructions themselves are symbols already.
  bool metadata = true;
};

struct ScannedChunk;

// Scans of text chunks, shared by the files of one indexing batch: the
// files of a dump folder repeat the same text (a module's pass dumps differ
// by a few lines), so a file is cut into content-defined chunks of lines
// and a chunk seen before (same bytes, scanned from the same clean state) is
// not scanned again. Thread-safe.
class ChunkCache {
 public:
  ChunkCache();
  ~ChunkCache();
  std::shared_ptr<const ScannedChunk> Find(std::pair<uint64_t, uint64_t> key);
  void Insert(std::pair<uint64_t, uint64_t> key,
              std::shared_ptr<const ScannedChunk> chunk);

 private:
  static constexpr int kShards = 16;
  struct Shard {
    std::mutex mutex;
    absl::flat_hash_map<std::pair<uint64_t, uint64_t>,
                        std::shared_ptr<const ScannedChunk>>
        chunks;
  };
  Shard shards_[kShards];
};

// With a cache, the result is the same as without (symbols, positions,
// strings), only faster on repeated text.
FileSymbols ScanSymbols(std::string_view text, const ScanOptions& options = {},
                        ChunkCache* cache = nullptr);

// A text cut into the chunks of lines the cache works on, each with its
// hash, and a hash of the whole text made from them (equal texts hash
// alike): what the index uses to spot byte-identical files without a
// second pass over the bytes.
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
// ScanSymbols(text, options, cache) with the chunks already cut (`chunked`
// must come from CutChunks(text, options)).
FileSymbols ScanSymbols(std::string_view text, const ChunkedText& chunked,
                        const ScanOptions& options, ChunkCache* cache);

}  // namespace hlo::index

#endif  // HLO_LSP_HLO_INDEX_SCANNER_H_
