// Open documents and their parsed snapshots. Edits are applied on the
// caller's (reader) thread; parsing runs in a worker pool, one parse in
// flight per document, and a burst of edits coalesces into one parse of the
// latest text. Readers get an immutable shared_ptr<const Snapshot>.
#ifndef HLO_LSP_SERVER_DOCUMENTS_H_
#define HLO_LSP_SERVER_DOCUMENTS_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hlo/line_index.h"
#include "hlo/syntax.h"
#include "server/protocol.h"
#include "server/thread_pool.h"

namespace hlo_lsp {

// One parsed state of a document: its text and syntax model.
struct Snapshot {
  std::string uri;
  int64_t version = 0;      // the client's version (0 for files from disk)
  uint64_t generation = 0;  // our edit counter; grows with every change
  bool from_disk = false;
  hlo::ColumnUnit unit = hlo::ColumnUnit::kUtf16CodeUnits;
  std::shared_ptr<const std::string> text;
  std::unique_ptr<const hlo::ParsedFile> file;

  // Conversions at the protocol edge, in the negotiated encoding.
  Position ToPosition(hlo::Offset offset) const;
  Range ToRange(hlo::Span span) const;
  hlo::Offset ToOffset(Position position) const;
};

// Builds a snapshot by parsing `text` now (on the calling thread).
std::shared_ptr<const Snapshot> MakeSnapshot(
    std::string uri, int64_t version, uint64_t generation,
    std::shared_ptr<const std::string> text, hlo::ColumnUnit unit);

// file:///a%20b -> /a b; empty when the URI is not a file URI.
std::string UriToPath(const std::string& uri);
std::string PathToUri(const std::string& path);
// The file behind a proto's text view, `hlo-proto:/dir/X.txt?<file URI,
// percent-encoded>` (what the VS Code client opens for X.pb): that file URI;
// any other URI unchanged.
std::string ProtoViewSource(const std::string& uri);

// Applies one LSP content change to `text` (positions in `unit`).
void ApplyChange(std::string* text, const ContentChange& change,
                 hlo::ColumnUnit unit);

class DocumentStore {
 public:
  using ParsedCallback = std::function<void(std::shared_ptr<const Snapshot>)>;

  // `on_parsed` runs on a parse thread for every snapshot that is still the
  // latest when its parse ends (diagnostics are published from there).
  DocumentStore(ThreadPool* parse_pool, ParsedCallback on_parsed);
  ~DocumentStore();

  void set_unit(hlo::ColumnUnit unit) { unit_ = unit; }
  hlo::ColumnUnit unit() const { return unit_; }

  void Open(DidOpenParams params);  // takes the text
  // False when the document is not open.
  bool Change(const DidChangeParams& params);
  void Close(const std::string& uri);
  bool IsOpen(const std::string& uri);

  // The edit counter of an open document; 0 when it is not open.
  uint64_t Generation(const std::string& uri);

  // The snapshot of `uri` at generation >= min_generation. Waits for the
  // parse when needed (until it lands, `cancelled` turns true or Shutdown).
  // For a document that is not open, reads and parses the file from disk
  // (cached while its size and mtime stay the same). nullptr when there is
  // nothing to serve.
  std::shared_ptr<const Snapshot> Get(const std::string& uri,
                                      uint64_t min_generation,
                                      const std::atomic<bool>* cancelled);

  // The snapshots of open documents that are their latest text, for
  // republishing diagnostics; a document still parsing publishes its own.
  std::vector<std::shared_ptr<const Snapshot>> LatestSnapshots();

  // The snapshot of an open document parsed at its latest edit, at once:
  // nullptr when it is not open or a parse is pending (never waits, never
  // reads a file; for the reader thread).
  std::shared_ptr<const Snapshot> Current(const std::string& uri);

  // Wakes every waiter; later waits return at once.
  void Shutdown();

 private:
  struct Document {
    // The latest text. Shared with the snapshot being parsed; a change
    // copies it first when `text_shared` (copy on write), so opening a
    // document or parsing a quiet one copies nothing.
    std::shared_ptr<std::string> text;
    bool text_shared = false;
    int64_t version = 0;
    uint64_t generation = 0;
    bool parse_in_flight = false;
    bool closed = false;
    std::shared_ptr<const Snapshot> snapshot;
  };
  struct DiskEntry {
    int64_t size = -1;
    int64_t mtime_ns = -1;
    int64_t ctime_ns = -1;  // moves even when a rewrite restores the mtime
    std::shared_ptr<const Snapshot> snapshot;
  };

  void ScheduleParseLocked(const std::string& uri,
                           const std::shared_ptr<Document>& doc);
  void ParseNow(std::string uri, std::shared_ptr<Document> doc);
  std::shared_ptr<const Snapshot> GetFromDisk(const std::string& uri);

  ThreadPool* parse_pool_;
  ParsedCallback on_parsed_;
  std::atomic<hlo::ColumnUnit> unit_{hlo::ColumnUnit::kUtf16CodeUnits};
  std::mutex mutex_;
  std::condition_variable parsed_;
  bool shutdown_ = false;
  std::map<std::string, std::shared_ptr<Document>> docs_;
  std::mutex disk_mutex_;
  std::map<std::string, DiskEntry> disk_;  // small: a few recent files
  uint64_t next_generation_ = 1;
};

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_DOCUMENTS_H_
