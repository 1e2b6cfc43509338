#include "server/documents.h"

#include <sys/stat.h>

#include <cctype>
#include <chrono>
#include <fstream>
#include <sstream>

#include "hlo/parser.h"

namespace hlo_lsp {
namespace {

constexpr size_t kMaxDiskEntries = 4;
// Files we refuse to read from disk (offsets are 32-bit).
constexpr int64_t kMaxFileBytes = (int64_t{1} << 32) - 1;

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Position Snapshot::ToPosition(hlo::Offset offset) const {
  hlo::LineColumn lc = file->lines().ToLineColumn(offset, unit);
  return {lc.line, lc.column};
}

Range Snapshot::ToRange(hlo::Span span) const {
  return {ToPosition(span.begin), ToPosition(span.end)};
}

hlo::Offset Snapshot::ToOffset(Position position) const {
  return file->lines().ToOffset({position.line, position.character}, unit);
}

std::shared_ptr<const Snapshot> MakeSnapshot(
    std::string uri, int64_t version, uint64_t generation,
    std::shared_ptr<const std::string> text, hlo::ColumnUnit unit) {
  auto snap = std::make_shared<Snapshot>();
  snap->uri = std::move(uri);
  snap->version = version;
  snap->generation = generation;
  snap->unit = unit;
  snap->text = std::move(text);
  snap->file = hlo::Parse(*snap->text);
  return snap;
}

std::string UriToPath(const std::string& uri) {
  constexpr std::string_view kPrefix = "file://";
  if (uri.compare(0, kPrefix.size(), kPrefix) != 0) return "";
  std::string_view rest = std::string_view(uri).substr(kPrefix.size());
  // file://host/path: only the local host is supported.
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return "";
  std::string_view host = rest.substr(0, slash);
  if (!host.empty() && host != "localhost") return "";
  rest.remove_prefix(slash);
  std::string path;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size()) {
      int hi = HexValue(rest[i + 1]);
      int lo = HexValue(rest[i + 2]);
      if (hi >= 0 && lo >= 0) {
        path.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    if (rest[i] == '?' || rest[i] == '#') break;
    path.push_back(rest[i]);
  }
  if (path.find('\0') != std::string::npos) return "";
  return path;
}

std::string ProtoViewSource(const std::string& uri) {
  constexpr std::string_view kScheme = "hlo-proto:";
  if (uri.compare(0, kScheme.size(), kScheme) != 0) return uri;
  const size_t query = uri.find('?');
  if (query == std::string::npos) return uri;
  std::string source;
  for (size_t i = query + 1; i < uri.size() && uri[i] != '#'; ++i) {
    int hi = i + 2 < uri.size() ? HexValue(uri[i + 1]) : -1;
    int lo = hi >= 0 ? HexValue(uri[i + 2]) : -1;
    if (uri[i] == '%' && lo >= 0) {
      source.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      source.push_back(uri[i]);
    }
  }
  return UriToPath(source).empty() ? uri : source;
}

std::string PathToUri(const std::string& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' ||
        c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

void ApplyChange(std::string* text, const ContentChange& change,
                 hlo::ColumnUnit unit) {
  if (!change.range) {
    *text = change.text;
    return;
  }
  hlo::LineIndex lines(*text);
  hlo::Offset begin = lines.ToOffset(
      {change.range->start.line, change.range->start.character}, unit);
  hlo::Offset end = lines.ToOffset(
      {change.range->end.line, change.range->end.character}, unit);
  if (end < begin) std::swap(begin, end);
  text->replace(begin, end - begin, change.text);
}

DocumentStore::DocumentStore(ThreadPool* parse_pool, ParsedCallback on_parsed)
    : parse_pool_(parse_pool), on_parsed_(std::move(on_parsed)) {}

DocumentStore::~DocumentStore() { Shutdown(); }

void DocumentStore::Open(DidOpenParams params) {
  auto doc = std::make_shared<Document>();
  doc->text = std::make_shared<std::string>(std::move(params.text));
  std::lock_guard<std::mutex> lock(mutex_);
  doc->version = params.version;
  doc->generation = next_generation_++;
  auto it = docs_.find(params.uri);
  if (it != docs_.end()) it->second->closed = true;
  docs_[params.uri] = doc;
  ScheduleParseLocked(params.uri, doc);
}

bool DocumentStore::Change(const DidChangeParams& params) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = docs_.find(params.uri);
  if (it == docs_.end()) return false;
  Document& doc = *it->second;
  if (doc.text_shared) {
    doc.text = std::make_shared<std::string>(*doc.text);
    doc.text_shared = false;
  }
  for (const ContentChange& change : params.changes) {
    ApplyChange(doc.text.get(), change, unit_);
  }
  doc.version = params.version;
  doc.generation = next_generation_++;
  ScheduleParseLocked(params.uri, it->second);
  return true;
}

void DocumentStore::Close(const std::string& uri) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = docs_.find(uri);
    if (it == docs_.end()) return;
    it->second->closed = true;
    docs_.erase(it);
  }
  parsed_.notify_all();
}

bool DocumentStore::IsOpen(const std::string& uri) {
  std::lock_guard<std::mutex> lock(mutex_);
  return docs_.count(uri) != 0;
}

uint64_t DocumentStore::Generation(const std::string& uri) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = docs_.find(uri);
  return it == docs_.end() ? 0 : it->second->generation;
}

void DocumentStore::ScheduleParseLocked(const std::string& uri,
                                        const std::shared_ptr<Document>& doc) {
  if (doc->parse_in_flight || shutdown_) return;
  doc->parse_in_flight = true;
  parse_pool_->Submit([this, uri, doc] { ParseNow(uri, doc); });
}

void DocumentStore::ParseNow(std::string uri, std::shared_ptr<Document> doc) {
  while (true) {
    std::shared_ptr<const std::string> text;
    int64_t version;
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (doc->closed || shutdown_) {
        doc->parse_in_flight = false;
        parsed_.notify_all();
        return;
      }
      text = doc->text;
      doc->text_shared = true;
      version = doc->version;
      generation = doc->generation;
    }
    auto snap = MakeSnapshot(uri, version, generation, std::move(text), unit_);
    bool latest;
    bool closed;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      doc->snapshot = snap;
      latest = doc->generation == generation;
      if (latest) doc->parse_in_flight = false;
      closed = doc->closed;
    }
    parsed_.notify_all();
    if (latest) {
      if (on_parsed_ && !closed) on_parsed_(snap);
      return;
    }
    // Edits arrived while parsing: parse again from the newest text.
  }
}

std::vector<std::shared_ptr<const Snapshot>> DocumentStore::LatestSnapshots() {
  std::vector<std::shared_ptr<const Snapshot>> out;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [uri, doc] : docs_) {
    if (doc->closed || doc->parse_in_flight || doc->snapshot == nullptr ||
        doc->snapshot->generation != doc->generation) {
      continue;
    }
    out.push_back(doc->snapshot);
  }
  return out;
}

std::shared_ptr<const Snapshot> DocumentStore::Get(
    const std::string& uri, uint64_t min_generation,
    const std::atomic<bool>* cancelled) {
  std::shared_ptr<Document> doc;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    auto it = docs_.find(uri);
    if (it != docs_.end()) {
      doc = it->second;
      while (true) {
        if (doc->snapshot && doc->snapshot->generation >= min_generation) {
          return doc->snapshot;
        }
        if (shutdown_ || doc->closed ||
            (cancelled != nullptr && cancelled->load())) {
          return nullptr;
        }
        parsed_.wait_for(lock, std::chrono::milliseconds(20));
      }
    }
  }
  return GetFromDisk(uri);
}

std::shared_ptr<const Snapshot> DocumentStore::Current(const std::string& uri) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = docs_.find(uri);
  if (it == docs_.end()) return nullptr;
  const Document& doc = *it->second;
  if (!doc.snapshot || doc.snapshot->generation != doc.generation) {
    return nullptr;
  }
  return doc.snapshot;
}

std::shared_ptr<const Snapshot> DocumentStore::GetFromDisk(
    const std::string& uri) {
  std::string path = UriToPath(uri);
  if (path.empty()) return nullptr;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_size > kMaxFileBytes) {
    return nullptr;
  }
  int64_t mtime_ns =
      int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
  int64_t ctime_ns =
      int64_t{st.st_ctim.tv_sec} * 1000000000 + st.st_ctim.tv_nsec;
  // One lock for the whole read: concurrent requests for a big file wait for
  // one parse instead of each parsing it.
  std::lock_guard<std::mutex> lock(disk_mutex_);
  auto it = disk_.find(uri);
  if (it != disk_.end() && it->second.size == st.st_size &&
      it->second.mtime_ns == mtime_ns && it->second.ctime_ns == ctime_ns) {
    return it->second.snapshot;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return nullptr;
  auto text = std::make_shared<std::string>();
  text->resize(static_cast<size_t>(st.st_size));
  in.read(text->data(), st.st_size);
  text->resize(static_cast<size_t>(in.gcount()));
  auto snap = std::const_pointer_cast<Snapshot>(
      MakeSnapshot(uri, 0, 0, std::move(text), unit_));
  snap->from_disk = true;
  if (disk_.size() >= kMaxDiskEntries) disk_.erase(disk_.begin());
  disk_[uri] = DiskEntry{st.st_size, mtime_ns, ctime_ns, snap};
  return snap;
}

void DocumentStore::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutdown_ = true;
  }
  parsed_.notify_all();
}

}  // namespace hlo_lsp
