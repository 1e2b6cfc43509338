// A line-oriented symbol scanner over HLO text that does not need the full
// parse: `HloModule name`, computation headers, `[ROOT] %name = shape op(`,
// and `metadata={op_name="..." source_file="..." source_line=N}`. It agrees
// with hlo::Parse on module, computation and (non-nested) instruction names
// and positions for printed dumps (tests/index/scanner_agreement_test.cc).
#ifndef HLO_LSP_INDEX_SCANNER_H_
#define HLO_LSP_INDEX_SCANNER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "index/chunking.h"
#include "index/store.h"
#include "index/symbols.h"

namespace hlo::index {

// Where a scan stands between lines: a chunk can be scanned on its own
// (and its scan shared) only from the clean state.
struct ScannerState {
  int header_depth = 0;
  bool in_block_comment = false;
  bool in_header_string = false;
  bool previous_ended_with_equals = false;
  bool Clean() const {
    return header_depth == 0 && !in_block_comment && !in_header_string &&
           !previous_ended_with_equals;
  }
};

// The scan of a chunk of lines from a clean state, shared by every file of
// an indexing batch that repeats those bytes: its symbols (lines numbered
// from 1; metadata kept once per distinct name within the chunk), their
// blocks prepared for a SymbolStore, and the state at its end. The merge
// results are filled once, by whoever owns the store, under its lock.
struct ScannedChunk {
  // Set once when scanned and never changed: read without the store's lock
  // while the tables below may be released by a merge.
  uint32_t symbol_count = 0;
  ScannerState end_state;

  std::vector<Symbol> symbols;
  std::vector<PoolRef> strings;
  std::string pool;
  std::vector<PreparedBlock> blocks;

  bool merged = false;
  std::vector<BlockUse> uses;  // relative to the chunk (lines, symbols)
  ModuleRanges modules;        // symbol index within the chunk

  // Views of the tables above (no ownership: keep the chunk alive).
  FileSymbols View() const;
  // Frees the scan once merged: later uses need only `uses` and `modules`,
  // and the freed memory serves the next scans instead of new pages.
  void ReleaseScan();
};

// Chunk scans shared by the files of one indexing batch: the files of a
// dump folder repeat the same text (a module's pass dumps differ by a few
// lines), so a file is cut into content-defined chunks of lines and a chunk
// seen before (same bytes, scanned from the clean state) is not scanned,
// prepared or merged again. Thread-safe.
class ChunkCache {
 public:
  ChunkCache();
  ~ChunkCache();
  // Chunks live as long as the cache: plain pointers (a shared count would
  // be one contended atomic per chunk use).
  ScannedChunk* Find(std::pair<uint64_t, uint64_t> key);
  // Returns the chunk kept for `key`: `chunk`, or one inserted before.
  ScannedChunk* Insert(std::pair<uint64_t, uint64_t> key,
                       std::unique_ptr<ScannedChunk> chunk);

 private:
  static constexpr int kShards = 16;
  struct Shard {
    std::mutex mutex;
    absl::flat_hash_map<std::pair<uint64_t, uint64_t>,
                        std::unique_ptr<ScannedChunk>>
        chunks;
  };
  Shard shards_[kShards];
};

// The symbols of a whole text, metadata kept once per distinct op_name and
// source location, at the first occurrence.
FileSymbols ScanSymbols(std::string_view text, const ScanOptions& options = {});

// A stretch of a file as the index takes it in: a shared chunk, or symbols
// scanned for this file alone (where a chunk could not be scanned on its
// own: it starts inside a multi-line value, or its lookahead ran past it).
struct FileSegment {
  ScannedChunk* chunk = nullptr;  // in the ChunkCache; null: `symbols`
  FileSymbols symbols;            // absolute lines
  std::vector<PreparedBlock> blocks;
  uint32_t line_base = 0;    // lines of the file before a chunk
  uint32_t symbol_base = 0;  // symbols of the file before the segment
};
struct SegmentedFile {
  std::vector<FileSegment> segments;
  uint32_t symbol_count = 0;
};
// The file's symbols are those of ScanSymbols(text, options), except that
// metadata symbols repeat once per segment they occur in (whoever reads the
// index keeps the first per file). `chunked` must come from
// CutChunks(text, options).
SegmentedFile ScanSegments(std::string_view text, const ChunkedText& chunked,
                           const ScanOptions& options, ChunkCache* cache);

}  // namespace hlo::index

#endif  // HLO_LSP_INDEX_SCANNER_H_
