#include "hlo/index/workspace_index.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <set>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "hlo/index/discovery.h"
#include "hlo/index/query.h"
#include "hlo/index/scanner.h"

namespace hlo::index {

namespace fs = std::filesystem;

struct WorkspaceIndex::Entry {
  FileKey key;
  std::string display_path;
  IndexedFile file;
  DumpFileName dump;
  std::string module_name;  // first HloModule in the file
};

struct WorkspaceIndex::NameTable {
  uint64_t generation = 0;
  std::vector<EntryPtr> entries;        // HLO files, sorted by display path
  std::vector<std::string_view> names;  // distinct, into the entries' pools
  std::vector<uint16_t> masks;          // NameMask16 of each name
  // Occurrences of name i: postings[offsets[i] .. offsets[i + 1]), each an
  // (entry, symbol) pair in entry (= path) then file order.
  std::vector<uint32_t> offsets;
  std::vector<std::pair<uint32_t, uint32_t>> postings;
  size_t memory = 0;
};

namespace {

// Bytes sniffed for "is this HLO?" before scanning the whole file.
constexpr size_t kSniffBytes = 64 << 10;

// A read-only mapping of a whole file.
class MappedFile {
 public:
  ~MappedFile() {
    if (data_ != nullptr) ::munmap(data_, size_);
    if (fd_ >= 0) ::close(fd_);
  }
  // On success `key` is refreshed from the open descriptor.
  bool Open(const std::string& path, FileKey* key, std::string* error) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd_ < 0 || ::fstat(fd_, &st) != 0) {
      *error = path + ": " + std::strerror(errno);
      return false;
    }
    size_ = static_cast<size_t>(st.st_size);
    key->size = size_;
    key->mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 +
                    st.st_mtim.tv_nsec;
    key->inode = static_cast<uint64_t>(st.st_ino);
    if (size_ >= (uint64_t{1} << 32)) {
      *error = path + ": larger than 4 GiB, not indexed";
      return false;
    }
    if (size_ == 0) return true;
    void* data = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (data == MAP_FAILED) {
      *error = path + ": mmap: " + std::strerror(errno);
      return false;
    }
    data_ = data;
    ::madvise(data_, size_, MADV_SEQUENTIAL | MADV_WILLNEED);
    return true;
  }
  std::string_view bytes() const {
    return data_ ? std::string_view(static_cast<const char*>(data_), size_)
                 : std::string_view();
  }

 private:
  int fd_ = -1;
  void* data_ = nullptr;
  size_t size_ = 0;
};

struct Hit {
  uint32_t entry;
  uint32_t symbol;
  double score;
};

// Runs `work(i)` for i in [0, count) on up to `threads` threads.
template <typename Work>
void ParallelFor(size_t count, size_t threads, Work work) {
  threads = std::max<size_t>(1, std::min(threads, count));
  std::atomic<size_t> next{0};
  auto worker = [&](size_t thread) {
    for (size_t i; (i = next.fetch_add(1)) < count;) work(thread, i);
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (std::thread& t : pool) t.join();
}

bool IsUnder(std::string_view path, std::string_view folder) {
  if (path.substr(0, folder.size()) != folder) return false;
  return path.size() == folder.size() || folder.empty() ||
         folder.back() == '/' || path[folder.size()] == '/';
}

std::string AbsoluteNormal(const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  std::string s = (ec ? path : absolute).lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

WorkspaceIndex::WorkspaceIndex(IndexOptions options)
    : options_(std::move(options)) {
  threads_ = options_.threads != 0
                 ? options_.threads
                 : std::max(1u, std::thread::hardware_concurrency());
  if (options_.use_cache) {
    fs::path dir = options_.cache_dir.empty() ? ShardStore::DefaultDir()
                                              : options_.cache_dir;
    if (!dir.empty()) store_ = std::make_unique<ShardStore>(dir);
  }
}

WorkspaceIndex::~WorkspaceIndex() = default;

void WorkspaceIndex::Warn(std::string message) {
  std::lock_guard<std::mutex> lock(warnings_mutex_);
  if (warnings_.size() < 1000) warnings_.push_back(std::move(message));
}

std::vector<std::string> WorkspaceIndex::TakeWarnings() {
  std::lock_guard<std::mutex> lock(warnings_mutex_);
  return std::exchange(warnings_, {});
}

WorkspaceIndex::EntryPtr WorkspaceIndex::IndexOne(const fs::path& path,
                                                  const FileKey& stat_key) {
  auto entry = std::make_shared<Entry>();
  entry->display_path = path.string();
  entry->key = stat_key;
  bool loaded = false;
  if (store_) {
    switch (store_->Load(stat_key, &entry->file)) {
      case ShardStore::LoadResult::kHit:
        loaded = true;
        ++shards_loaded_;
        break;
      case ShardStore::LoadResult::kStale:
        ++shards_stale_;
        break;
      case ShardStore::LoadResult::kCorrupt:
        ++shards_corrupt_;
        break;
      case ShardStore::LoadResult::kMiss:
        break;
    }
  }
  if (!loaded) {
    MappedFile mapped;
    std::string error;
    if (!mapped.Open(stat_key.path, &entry->key, &error)) {
      Warn(error);
      return nullptr;
    }
    std::string_view bytes = mapped.bytes();
    entry->file = IndexedFile();
    entry->file.is_hlo = LooksLikeHloText(bytes.substr(0, kSniffBytes));
    if (entry->file.is_hlo) entry->file.symbols = ScanSymbols(bytes);
    entry->file.content_hash = ContentHash(bytes);
    ++files_scanned_;
    if (store_) {
      absl::Status saved = store_->Save(entry->key, entry->file);
      if (!saved.ok()) Warn(std::string(saved.message()));
    }
  }
  for (const Symbol& s : entry->file.symbols.symbols) {
    if (s.kind == SymbolKind::kModule) {
      entry->module_name = std::string(entry->file.symbols.Name(s));
      break;
    }
  }
  entry->dump =
      ParseDumpFileName(path.filename().string(), entry->module_name);
  return entry;
}

void WorkspaceIndex::IndexFiles(const std::vector<fs::path>& files) {
  std::vector<EntryPtr> results(files.size());
  std::vector<char> missing(files.size(), 0);
  std::atomic<size_t> done{0};
  size_t step = std::max<size_t>(1, files.size() / 100);
  ParallelFor(files.size(), threads_, [&](size_t, size_t i) {
    absl::StatusOr<FileKey> key = StatFile(files[i]);
    if (!key.ok()) {
      missing[i] = 1;
    } else {
      std::shared_lock<std::shared_mutex> lock(mutex_);
      auto it = files_.find(key->path);
      if (it != files_.end() && it->second->key == *key) {
        results[i] = it->second;  // unchanged since it was indexed
      }
    }
    if (key.ok() && !results[i]) {
      results[i] = IndexOne(files[i], *key);
    }
    size_t n = done.fetch_add(1) + 1;
    if (options_.progress && (n % step == 0 || n == files.size())) {
      std::lock_guard<std::mutex> lock(progress_mutex_);
      options_.progress(IndexProgress{n, files.size()});
    }
  });
  {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    for (size_t i = 0; i < files.size(); ++i) {
      if (results[i]) {
        files_[results[i]->key.path] = results[i];
      } else if (missing[i]) {
        files_.erase(AbsoluteNormal(files[i]));
      }
    }
  }
  Changed();
}

void WorkspaceIndex::Changed() {
  ++generation_;
  // Build the name table now, so that the next query does not wait for it.
  if (options_.name_table) CurrentNameTable();
}

std::shared_ptr<const WorkspaceIndex::NameTable>
WorkspaceIndex::CurrentNameTable() const {
  std::lock_guard<std::mutex> lock(table_mutex_);
  uint64_t generation = generation_;
  if (table_ && table_->generation == generation) return table_;
  auto table = std::make_shared<NameTable>();
  table->generation = generation;
  table->entries = Snapshot();
  size_t total = 0;
  for (const EntryPtr& e : table->entries) total += e->file.symbols.symbols.size();
  absl::flat_hash_map<std::string_view, uint32_t> ids;
  ids.reserve(total / 4 + 16);
  std::vector<uint32_t> symbol_ids(total);  // name id of every symbol
  std::vector<uint32_t> counts;
  size_t n = 0;
  for (size_t e = 0; e < table->entries.size(); ++e) {
    const FileSymbols& file = table->entries[e]->file.symbols;
    for (size_t k = 0; k < file.symbols.size(); ++k, ++n) {
      const Symbol& s = file.symbols[k];
      auto [it, inserted] = ids.try_emplace(
          file.Name(s), static_cast<uint32_t>(table->names.size()));
      if (inserted) {
        table->names.push_back(it->first);
        table->masks.push_back(s.name_mask);
        counts.push_back(0);
      }
      symbol_ids[n] = it->second;
      ++counts[it->second];
    }
  }
  table->offsets.resize(table->names.size() + 1);
  for (size_t i = 0; i < counts.size(); ++i) {
    table->offsets[i + 1] = table->offsets[i] + counts[i];
  }
  table->postings.resize(total);
  std::vector<uint32_t> fill(table->offsets.begin(), table->offsets.end() - 1);
  n = 0;
  for (size_t e = 0; e < table->entries.size(); ++e) {
    size_t count = table->entries[e]->file.symbols.symbols.size();
    for (size_t k = 0; k < count; ++k, ++n) {
      table->postings[fill[symbol_ids[n]]++] = {static_cast<uint32_t>(e),
                                                static_cast<uint32_t>(k)};
    }
  }
  table->memory = table->postings.capacity() * 8 +
                  table->offsets.capacity() * sizeof(uint32_t) +
                  table->names.capacity() * sizeof(std::string_view) +
                  table->masks.capacity() * sizeof(uint16_t);
  table_ = std::move(table);
  return table_;
}

void WorkspaceIndex::AddFolder(const fs::path& folder) {
  DiscoveryResult found = DiscoverFiles(folder);
  for (std::string& w : found.warnings) Warn(std::move(w));
  IndexFiles(found.files);
}

void WorkspaceIndex::RemoveFolder(const fs::path& folder) {
  std::string prefix = AbsoluteNormal(folder);
  {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    for (auto it = files_.begin(); it != files_.end();) {
      it = IsUnder(it->first, prefix) ? files_.erase(it) : std::next(it);
    }
  }
  Changed();
}

void WorkspaceIndex::Refresh(const std::vector<fs::path>& paths) {
  std::vector<fs::path> files;
  for (const fs::path& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      // Drop what vanished under it, then (re)index what is there.
      DiscoveryResult found = DiscoverFiles(path);
      for (std::string& w : found.warnings) Warn(std::move(w));
      std::set<std::string> present;
      for (const fs::path& f : found.files) present.insert(AbsoluteNormal(f));
      std::string prefix = AbsoluteNormal(path);
      {
        std::unique_lock<std::shared_mutex> lock(mutex_);
        for (auto it = files_.begin(); it != files_.end();) {
          bool gone = IsUnder(it->first, prefix) && !present.count(it->first);
          it = gone ? files_.erase(it) : std::next(it);
        }
      }
      files.insert(files.end(), found.files.begin(), found.files.end());
    } else if (IsCandidateByName(path.filename().string())) {
      files.push_back(path);  // a vanished file is dropped by IndexFiles
    }
  }
  IndexFiles(files);
}

std::vector<WorkspaceIndex::EntryPtr> WorkspaceIndex::Snapshot() const {
  std::vector<EntryPtr> entries;
  {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    entries.reserve(files_.size());
    for (const auto& [path, entry] : files_) {
      if (entry->file.is_hlo) entries.push_back(entry);
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const EntryPtr& a, const EntryPtr& b) {
              return a->display_path < b->display_path;
            });
  return entries;
}

absl::StatusOr<std::vector<SymbolMatch>> WorkspaceIndex::Query(
    std::string_view text, size_t limit) const {
  absl::StatusOr<SymbolQuery> parsed = SymbolQuery::Parse(text);
  if (!parsed.ok()) return parsed.status();
  const SymbolQuery& query = *parsed;
  // Filters alone (no name to score) are faster as a per-file pass.
  std::shared_ptr<const NameTable> table =
      options_.name_table && query.has_name_part() ? CurrentNameTable()
                                                   : nullptr;
  std::vector<EntryPtr> entries = table ? table->entries : Snapshot();
  // With a name table, each distinct name is scored once (NaN: no match).
  std::vector<float> name_scores;
  if (table) {
    name_scores.resize(table->names.size());
    constexpr size_t kChunk = 4096;
    size_t chunks = (table->names.size() + kChunk - 1) / kChunk;
    ParallelFor(chunks, threads_, [&](size_t, size_t chunk) {
      size_t end = std::min(table->names.size(), (chunk + 1) * kChunk);
      for (size_t i = chunk * kChunk; i < end; ++i) {
        std::optional<double> s =
            query.NameScore(table->names[i], table->masks[i]);
        name_scores[i] = s ? static_cast<float>(*s) : NAN;
      }
    });
  }

  auto better = [&](const Hit& a, const Hit& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.entry != b.entry) return a.entry < b.entry;  // entries by path
    const Symbol& sa = entries[a.entry]->file.symbols.symbols[a.symbol];
    const Symbol& sb = entries[b.entry]->file.symbols.symbols[b.symbol];
    if (sa.line != sb.line) return sa.line < sb.line;
    return sa.column < sb.column;
  };
  // Keeps at most about 2*limit hits, pruning to the best `limit`.
  auto prune = [&](std::vector<Hit>* hits) {
    if (limit == 0 || hits->size() <= limit) return;
    std::nth_element(hits->begin(), hits->begin() + (limit - 1), hits->end(),
                     better);
    hits->resize(limit);
  };

  size_t threads = std::min(threads_, std::max<size_t>(1, entries.size() / 8));
  std::vector<std::vector<Hit>> per_thread(std::max<size_t>(threads, 1));
  std::vector<double> floors(per_thread.size(), -1e300);
  if (table) {
    // Matching names best first; their occurrences in path/line order. Once
    // `limit` hits are in and the score drops, nothing later can enter.
    std::vector<uint32_t> matching;
    for (uint32_t i = 0; i < name_scores.size(); ++i) {
      if (!std::isnan(name_scores[i])) matching.push_back(i);
    }
    std::sort(matching.begin(), matching.end(), [&](uint32_t a, uint32_t b) {
      return name_scores[a] > name_scores[b];
    });
    std::vector<Hit>& hits = per_thread[0];
    std::vector<std::optional<SymbolQuery::FilePrep>> preps(entries.size());
    float last_score = INFINITY;
    for (uint32_t name : matching) {
      float score = name_scores[name];
      if (limit != 0 && hits.size() >= limit && score < last_score) break;
      last_score = score;
      for (uint32_t p = table->offsets[name]; p < table->offsets[name + 1]; ++p) {
        auto [e, s] = table->postings[p];
        const FileSymbols& file = entries[e]->file.symbols;
        if (!preps[e]) {
          preps[e] = query.RejectsFile(entries[e]->display_path)
                         ? std::nullopt
                         : std::optional(query.Prepare(file));
          if (!preps[e]) continue;
        }
        if (!query.PassesFilters(file, file.symbols[s], *preps[e])) continue;
        hits.push_back(Hit{e, s, score});
      }
    }
    threads = 0;  // done: skip the per-file pass below
  }
  ParallelFor(threads == 0 ? 0 : entries.size(), std::max<size_t>(threads, 1),
              [&](size_t thread, size_t e) {
    const Entry& entry = *entries[e];
    if (query.RejectsFile(entry.display_path)) return;
    std::vector<Hit>& hits = per_thread[thread];
    double& floor = floors[thread];
    const FileSymbols& file = entry.file.symbols;
    SymbolQuery::FilePrep prep = query.Prepare(file);
    for (size_t s = 0; s < file.symbols.size(); ++s) {
      const Symbol& symbol = file.symbols[s];
      if (!query.PassesFilters(file, symbol, prep)) continue;
      std::optional<double> scored =
          query.NameScore(file.Name(symbol), symbol.name_mask, floor);
      if (!scored) continue;
      double score = *scored;
      hits.push_back(Hit{static_cast<uint32_t>(e), static_cast<uint32_t>(s),
                         score});
      if (limit != 0 && hits.size() >= 2 * limit + 1024) {
        prune(&hits);
        // This thread's k-th best bounds the global k-th best from below:
        // anything sure to score under it cannot make the result.
        floor = hits[limit - 1].score;
      }
    }
  });
  std::vector<Hit> hits;
  for (std::vector<Hit>& part : per_thread) {
    hits.insert(hits.end(), part.begin(), part.end());
  }
  prune(&hits);
  std::sort(hits.begin(), hits.end(), better);

  std::vector<SymbolMatch> matches;
  matches.reserve(hits.size());
  for (const Hit& hit : hits) {
    const Entry& entry = *entries[hit.entry];
    const FileSymbols& file = entry.file.symbols;
    const Symbol& s = file.symbols[hit.symbol];
    SymbolMatch m;
    m.path = entry.display_path;
    m.absolute_path = entry.key.path;
    m.line = s.line;
    m.column = s.column;
    m.kind = s.kind;
    m.flags = s.flags;
    m.name = std::string(file.Name(s));
    m.module = std::string(file.ModuleName(s));
    m.opcode = std::string(file.String(s.opcode));
    m.shape = std::string(file.String(s.shape));
    m.score = hit.score;
    matches.push_back(std::move(m));
  }
  return matches;
}

std::vector<ModuleFile> WorkspaceIndex::ModuleFiles(const fs::path& path) const {
  std::string key = AbsoluteNormal(path);
  std::vector<EntryPtr> entries = Snapshot();
  EntryPtr self;
  for (const EntryPtr& e : entries) {
    if (e->key.path == key) self = e;
  }
  std::vector<ModuleFile> out;
  if (!self) return out;
  auto to_module_file = [](const Entry& e) {
    return ModuleFile{e.display_path, e.dump, e.module_name};
  };
  if (self->dump.kind == DumpKind::kNotDump || self->dump.module_id < 0) {
    out.push_back(to_module_file(*self));
    return out;
  }
  fs::path folder = fs::path(self->key.path).parent_path();
  std::vector<EntryPtr> group;
  for (const EntryPtr& e : entries) {
    if (e->dump.module_id == self->dump.module_id &&
        e->dump.module_name == self->dump.module_name &&
        fs::path(e->key.path).parent_path() == folder) {
      group.push_back(e);
    }
  }
  std::sort(group.begin(), group.end(), [](const EntryPtr& a, const EntryPtr& b) {
    std::string ka = DumpOrderKey(a->dump), kb = DumpOrderKey(b->dump);
    return ka != kb ? ka < kb : a->display_path < b->display_path;
  });
  for (const EntryPtr& e : group) out.push_back(to_module_file(*e));
  return out;
}

IndexStats WorkspaceIndex::stats() const {
  IndexStats stats;
  {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    stats.files = files_.size();
    for (const auto& [path, entry] : files_) {
      stats.memory += entry->file.symbols.MemoryUsage() + sizeof(Entry) +
                      entry->display_path.capacity() + path.capacity();
      if (!entry->file.is_hlo) continue;
      ++stats.hlo_files;
      stats.symbols += entry->file.symbols.symbols.size();
      stats.bytes += entry->key.size;
    }
  }
  {
    std::lock_guard<std::mutex> lock(table_mutex_);
    if (table_) {
      stats.distinct_names = table_->names.size();
      stats.name_table_memory = table_->memory;
    }
  }
  stats.shards_loaded = shards_loaded_;
  stats.files_scanned = files_scanned_;
  stats.shards_stale = shards_stale_;
  stats.shards_corrupt = shards_corrupt_;
  return stats;
}

}  // namespace hlo::index
