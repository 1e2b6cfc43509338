#include "hlo/index/workspace_index.h"

#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <set>
#include <thread>

#include "hlo/index/discovery.h"
#include "hlo/index/query.h"
#include "hlo/index/scanner.h"
#include "xxhash.h"

namespace hlo::index {

namespace fs = std::filesystem;

struct WorkspaceIndex::FileEntry {
  FileKey key;
  std::string display_path;
  bool is_hlo = false;
  uint64_t content_hash = 0;
  uint64_t content_high = 0;  // with content_hash, XXH3-128 (0: unknown)
  uint32_t symbol_count = 0;
  // Its block uses, in `uses_storage`: a vector of them, or a mapped cache
  // file (adopted as it is), or a twin's (a byte-identical file). Read
  // only; replaced whole.
  std::span<const BlockUse> uses;
  std::shared_ptr<const void> uses_storage;
  ModuleRanges modules;
  DumpFileName dump;
  std::string module_name;  // first HloModule in the file

  void SetUses(std::vector<BlockUse> owned) {
    auto kept = std::make_shared<const std::vector<BlockUse>>(std::move(owned));
    uses = *kept;
    uses_storage = std::move(kept);
  }
  void ShareUses(std::span<const BlockUse> shared,
                 std::shared_ptr<const void> storage) {
    uses = shared;
    uses_storage = std::move(storage);
  }
};

// Derived lookup tables, rebuilt lazily after changes (O(distinct records +
// block uses)): which records carry a name, and where each block is used.
struct WorkspaceIndex::Tables {
  uint64_t generation = 0;
  bool has_postings = true;     // false: only order and rank are filled
  std::vector<uint64_t> masks;  // CharMask per name id (fuzzy.h)
  // Records of name i: postings[post_begin[i] .. post_begin[i + 1]), as
  // (block, offset in block).
  std::vector<uint32_t> post_begin;
  std::vector<std::pair<uint32_t, uint32_t>> postings;
  // Uses of block b: uses[use_begin[b] .. use_begin[b + 1]), as (file id,
  // use index), in file-path then line order.
  std::vector<uint32_t> use_begin;
  std::vector<std::pair<uint32_t, uint32_t>> uses;
  std::vector<uint32_t> order;  // live HLO files by display path
  std::vector<uint32_t> rank;   // file id -> position in `order`
  size_t memory = 0;
};

// What a cache adoption maps: ids in the loaded cache -> ids in the store.
struct WorkspaceIndex::Adoption {
  const FolderCache* cache = nullptr;
  bool identity = false;  // the store was assigned from this cache
  std::vector<uint32_t> block_map, name_map, other_map;
};

namespace {

// Bytes sniffed for "is this HLO?" before scanning the whole file.
constexpr size_t kSniffBytes = 64 << 10;

// The bytes of a file, read once. Files up to kReadLimit are read into a
// buffer reused by the thread, in pieces that are cut into chunks while
// they are in the CPU's cache (a copy from the page cache also costs less
// than setting up and tearing down a mapping); larger ones are mapped. A
// file that does not start like HLO is read no further than its first
// kSniffBytes.
class FileBytes {
 public:
  static constexpr size_t kReadLimit = 16 << 20;
  // One per thread, reused by each file it reads: kReadLimit bytes of
  // address space, backed only as far as files reach, in huge pages where
  // the kernel allows (4 KB pages would each cost a fault on first use).
  class Buffer {
   public:
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() {
      if (data_ != nullptr) ::munmap(data_, kReadLimit);
    }
    char* data() {
      if (data_ == nullptr) {
        void* p = ::mmap(nullptr, kReadLimit, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) return nullptr;
        ::madvise(p, kReadLimit, MADV_HUGEPAGE);  // advice: may be refused
        data_ = static_cast<char*>(p);
      }
      return data_;
    }

   private:
    char* data_ = nullptr;
  };

  ~FileBytes() {
    if (map_ != nullptr) ::munmap(map_, size_);
    if (fd_ >= 0) ::close(fd_);
  }
  // On success `key` is refreshed from the open descriptor, `is_hlo` set,
  // and bytes() holds the head of the file (all of a mapped one).
  bool Open(const std::string& path, FileKey* key, Buffer* buffer, bool* is_hlo,
            std::string* error) {
    path_ = &path;
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
    *is_hlo = false;
    if (size_ == 0) return true;
    if (size_ > kReadLimit) {
      map_ =
          ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd_, 0);
      if (map_ == MAP_FAILED) {
        map_ = nullptr;
        *error = path + ": mmap: " + std::strerror(errno);
        return false;
      }
      bytes_ = std::string_view(static_cast<const char*>(map_), size_);
      *is_hlo = LooksLikeHloText(bytes_.substr(0, kSniffBytes));
      return true;
    }
    data_ = buffer->data();
    if (data_ == nullptr) {
      *error = path + ": no memory to read it";
      return false;
    }
    // The head first: most files that are not HLO stop there.
    if (!ReadUpTo(std::min(size_, kSniffBytes), error)) return false;
    *is_hlo = LooksLikeHloText(bytes_);
    return true;
  }

  // Where the whole file will be, and how long fstat said it is.
  const char* data() const { return map_ ? bytes_.data() : data_; }
  size_t expected_size() const { return size_; }

  // Reads the rest of the file, cutting it into chunks piece by piece.
  bool ReadAll(ChunkCutter* cutter, std::string* error) {
    if (map_ == nullptr) {
      // Pieces small enough to still be in cache when they are cut.
      constexpr size_t kPiece = 256 << 10;
      cutter->Advance(bytes_.size());
      while (bytes_.size() < size_) {
        size_t before = bytes_.size();
        if (!ReadUpTo(std::min(size_, before + kPiece), error)) return false;
        if (bytes_.size() == before) break;  // shrank since fstat
        cutter->Advance(bytes_.size());
      }
    } else {
      cutter->Advance(bytes_.size());
    }
    return true;
  }
  std::string_view bytes() const { return bytes_; }

 private:
  // Reads on until bytes() reaches `want` or the file ends (it may have
  // shrunk since fstat).
  bool ReadUpTo(size_t want, std::string* error) {
    size_t have = bytes_.size();
    while (have < want) {
      ssize_t n = ::read(fd_, data_ + have, want - have);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        *error = *path_ + ": " + std::strerror(errno);
        return false;
      }
      if (n == 0) break;
      have += static_cast<size_t>(n);
    }
    bytes_ = std::string_view(data_, have);
    return true;
  }

  const std::string* path_ = nullptr;
  char* data_ = nullptr;
  int fd_ = -1;
  void* map_ = nullptr;
  size_t size_ = 0;
  std::string_view bytes_;
};

struct Hit {
  uint32_t file;
  uint32_t use;
  uint32_t offset;
  double score;
};

// Runs `work(thread, i)` for i in [0, count) on up to `threads` threads.
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
    fs::path dir = options_.cache_dir.empty() ? CacheStore::DefaultDir()
                                              : options_.cache_dir;
    if (!dir.empty()) cache_ = std::make_unique<CacheStore>(dir);
  }
}

WorkspaceIndex::~WorkspaceIndex() { Persist(/*force=*/true); }

void WorkspaceIndex::Warn(std::string message) {
  std::lock_guard<std::mutex> lock(warnings_mutex_);
  if (warnings_.size() < 1000) warnings_.push_back(std::move(message));
}

std::vector<std::string> WorkspaceIndex::TakeWarnings() {
  std::lock_guard<std::mutex> lock(warnings_mutex_);
  return std::exchange(warnings_, {});
}

void WorkspaceIndex::PutFile(std::unique_ptr<FileEntry> entry) {
  MarkDirty(entry->key.path);
  auto [it, inserted] = by_path_.try_emplace(entry->key.path, 0);
  if (!inserted) {
    store_may_hold_unused_ = true;
    ForgetContent(it->second);
    files_[it->second] = std::move(entry);
  } else {
    uint32_t id;
    if (!free_ids_.empty()) {
      id = free_ids_.back();
      free_ids_.pop_back();
      files_[id] = std::move(entry);
    } else {
      id = static_cast<uint32_t>(files_.size());
      files_.push_back(std::move(entry));
    }
    it->second = id;
  }
  const FileEntry& e = *files_[it->second];
  if (e.content_high != 0) {
    by_content_.try_emplace({e.content_hash, e.content_high}, it->second);
  }
  Changed();
}

void WorkspaceIndex::ForgetContent(uint32_t id) {
  const FileEntry& e = *files_[id];
  auto it = by_content_.find({e.content_hash, e.content_high});
  if (it != by_content_.end() && it->second == id) by_content_.erase(it);
}

void WorkspaceIndex::EraseFile(const std::string& path) {
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return;
  MarkDirty(path);
  store_may_hold_unused_ = true;
  ForgetContent(it->second);
  files_[it->second].reset();
  free_ids_.push_back(it->second);
  by_path_.erase(it);
  Changed();
}

void WorkspaceIndex::MarkDirty(std::string_view path) {
  for (Folder& f : folders_) {
    if (IsUnder(path, f.path)) f.dirty = true;
  }
}

uint32_t WorkspaceIndex::AdoptName(Adoption* a, uint32_t name) {
  if (a->identity) return name;
  uint32_t& mapped = a->name_map[name];
  if (mapped == kNoRef) {
    const FolderCache& c = *a->cache;
    mapped = store_.names().Intern(c.name_arena.substr(
        c.name_offsets[name], c.name_offsets[name + 1] - c.name_offsets[name]));
  }
  return mapped;
}

uint32_t WorkspaceIndex::AdoptBlock(Adoption* a, uint32_t block) {
  if (a->identity) return block;
  uint32_t& mapped = a->block_map[block];
  if (mapped != kNoRef) return mapped;
  const FolderCache& c = *a->cache;
  auto other = [&](uint32_t id) {
    if (id == kNoRef) return kNoRef;
    uint32_t& m = a->other_map[id];
    if (m == kNoRef) {
      m = store_.others().Intern(c.other_arena.substr(
          c.other_offsets[id], c.other_offsets[id + 1] - c.other_offsets[id]));
    }
    return m;
  };
  std::vector<Record> records(c.records.begin() + c.block_begin[block],
                              c.records.begin() + c.block_begin[block + 1]);
  for (Record& r : records) {
    r.name = AdoptName(a, r.name);
    r.shape = other(r.shape);
    r.opcode = other(r.opcode);
  }
  mapped = store_.AddBlock(records);
  return mapped;
}

void WorkspaceIndex::IndexFiles(const std::vector<fs::path>& files,
                                const FolderCache* cache) {
  // The loaded cache, by path; adopted into an empty store as it is.
  absl::flat_hash_map<std::string_view, const CachedFile*> cached;
  Adoption adoption;
  if (cache != nullptr) {
    cached.reserve(cache->files.size());
    for (const CachedFile& f : cache->files) cached[f.key.path] = &f;
    adoption.cache = cache;
    std::unique_lock<std::shared_mutex> lock(mutex_);
    store_may_hold_unused_ = true;
    if (store_.empty()) {
      // Borrowed from the mapped cache file: no copy until a change.
      store_.Assign(cache->name_arena, cache->name_offsets, cache->other_arena,
                    cache->other_offsets, cache->block_begin, cache->records,
                    cache->storage);
      adoption.identity = true;
    } else {
      adoption.block_map.assign(cache->block_begin.size() - 1, kNoRef);
      adoption.name_map.assign(cache->name_offsets.size() - 1, kNoRef);
      adoption.other_map.assign(cache->other_offsets.size() - 1, kNoRef);
    }
  }
  std::vector<char> missing(files.size(), 0);
  ChunkCache chunks;  // text repeated across this batch's files
  std::atomic<size_t> done{0};
  size_t step = std::max<size_t>(1, files.size() / 100);
  // Neighbours in path order are often byte-identical (a pass that changed
  // nothing): visit files in a scattered order so that one is done before
  // its twin starts and the twin reuses its scan.
  std::vector<uint32_t> order(files.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [](uint32_t a, uint32_t b) {
    return (a * 2654435761u) < (b * 2654435761u);
  });
  std::vector<FileBytes::Buffer> buffers(threads_);  // mapped on first use
  ParallelFor(files.size(), threads_, [&](size_t thread, size_t k) {
    size_t i = order[k];
    absl::StatusOr<FileKey> key = StatFile(files[i]);
    bool unchanged = false;
    if (!key.ok()) {
      missing[i] = 1;
    } else {
      std::shared_lock<std::shared_mutex> lock(mutex_);
      auto it = by_path_.find(key->path);
      unchanged = it != by_path_.end() && files_[it->second]->key == *key;
    }
    if (key.ok() && !unchanged) {
      auto entry = std::make_unique<FileEntry>();
      entry->display_path = files[i].string();
      entry->key = *key;
      const CachedFile* hit = nullptr;
      if (auto it = cached.find(key->path); it != cached.end()) {
        if (it->second->key == *key) {
          hit = it->second;
        } else {
          ++shards_stale_;
        }
      }
      SegmentedFile segmented;
      bool ok = true;
      bool copied = false;  // from a file with the same content
      if (hit == nullptr) {
        FileBytes file;
        std::string error;
        if (!file.Open(key->path, &entry->key, &buffers[thread], &entry->is_hlo,
                       &error)) {
          Warn(error);
          ok = false;
        } else {
          // HLO text: read and cut into chunks (hashing each) piece by
          // piece, the content hash made from theirs, so the bytes are read
          // once before the scan.
          ChunkedText cut;
          if (entry->is_hlo) {
            ChunkCutter cutter(file.data(), file.expected_size());
            if (!file.ReadAll(&cutter, &error)) {
              Warn(error);
              ok = false;
              entry->is_hlo = false;
            } else {
              cut = cutter.Finish(file.bytes().size());
              entry->content_hash = cut.hash.first;
              entry->content_high = cut.hash.second | 1;  // never 0 once known
            }
          }
          std::string_view bytes = file.bytes();
          // A byte-identical file (pass dumps often are) is not scanned
          // again: its block uses are the same.
          if (entry->is_hlo) {
            std::shared_lock<std::shared_mutex> lock(mutex_);
            auto same =
                by_content_.find({entry->content_hash, entry->content_high});
            if (same != by_content_.end()) {
              const FileEntry& twin = *files_[same->second];
              entry->is_hlo = twin.is_hlo;
              entry->symbol_count = twin.symbol_count;
              entry->ShareUses(twin.uses, twin.uses_storage);
              entry->modules = twin.modules;
              entry->module_name = twin.module_name;
              copied = true;
            }
          }
          if (!copied && entry->is_hlo) {
            segmented = ScanSegments(bytes, cut, {}, &chunks);
            entry->symbol_count = segmented.symbol_count;
          }
          ++files_scanned_;
        }
      }
      if (ok) {
        std::unique_lock<std::shared_mutex> lock(mutex_);
        if (hit != nullptr) {
          entry->is_hlo = hit->is_hlo;
          entry->content_hash = hit->content_hash;
          entry->symbol_count = hit->symbol_count;
          if (adoption.identity) {
            // Read from the mapped cache where they lie.
            entry->ShareUses(hit->uses, cache->storage);
          } else {
            std::vector<BlockUse> uses;
            uses.reserve(hit->uses.size());
            for (BlockUse u : hit->uses) {
              u.block = AdoptBlock(&adoption, u.block);
              uses.push_back(u);
            }
            entry->SetUses(std::move(uses));
          }
          for (auto [first, name] : hit->modules) {
            entry->modules.push_back({first, AdoptName(&adoption, name)});
          }
          if (!entry->modules.empty()) {
            entry->module_name =
                std::string(store_.names().Get(entry->modules[0].second));
          }
          ++shards_loaded_;
        } else if (!copied) {
          MergeSegments(segmented, entry.get());
        }
        entry->dump =
            ParseDumpFileName(files[i].filename().string(), entry->module_name);
        PutFile(std::move(entry));
      }
    }
    size_t n = done.fetch_add(1) + 1;
    if (options_.progress && (n % step == 0 || n == files.size())) {
      std::lock_guard<std::mutex> lock(progress_mutex_);
      options_.progress(IndexProgress{n, files.size()});
    }
  });
  std::unique_lock<std::shared_mutex> lock(mutex_);
  for (size_t i = 0; i < files.size(); ++i) {
    if (missing[i]) EraseFile(AbsoluteNormal(files[i]));
  }
}

void WorkspaceIndex::MergeSegments(const SegmentedFile& file,
                                   FileEntry* entry) {
  // Uses and modules relative to a segment, placed in the file.
  std::vector<BlockUse> file_uses;
  auto append = [&](const std::vector<BlockUse>& uses,
                    const ModuleRanges& modules, const FileSegment& segment) {
    for (BlockUse use : uses) {
      use.base_line += segment.line_base;
      use.first_symbol += segment.symbol_base;
      file_uses.push_back(use);
    }
    for (auto [first, name] : modules) {
      entry->modules.push_back({first + segment.symbol_base, name});
    }
  };
  // Shared chunks are merged first, so that the file's uses are counted
  // and allocated once (grown by doubling, then shrunk to fit, they were
  // copied about three times over). A chunk is merged once; every file
  // using it then costs a copy of its few block uses. Segments scanned for
  // this file alone (rare) are merged as they are appended.
  size_t use_count = 0;
  for (const FileSegment& segment : file.segments) {
    if (segment.chunk == nullptr) continue;
    ScannedChunk& chunk = *segment.chunk;
    if (!chunk.merged) {
      store_.Merge(chunk.View(), chunk.blocks, &chunk.uses, &chunk.modules);
      chunk.merged = true;
      chunk.ReleaseScan();
    }
    use_count += chunk.uses.size();
  }
  file_uses.reserve(use_count);
  for (const FileSegment& segment : file.segments) {
    if (segment.chunk != nullptr) {
      append(segment.chunk->uses, segment.chunk->modules, segment);
    } else {
      std::vector<BlockUse> uses;
      ModuleRanges modules;
      store_.Merge(segment.symbols, segment.blocks, &uses, &modules);
      append(uses, modules, segment);  // line_base is 0: lines are absolute
    }
  }
  entry->SetUses(std::move(file_uses));
  if (!entry->modules.empty()) {
    entry->module_name =
        std::string(store_.names().Get(entry->modules[0].second));
  }
}

void WorkspaceIndex::AddFolder(const fs::path& folder) {
  std::string path = AbsoluteNormal(folder);
  bool is_folder = fs::is_directory(folder);
  if (is_folder) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    bool known = false;
    for (const Folder& f : folders_) known |= f.path == path;
    if (!known) folders_.push_back(Folder{path, true, {}});
  }
  DiscoveryResult found = DiscoverFiles(folder);
  for (std::string& w : found.warnings) Warn(std::move(w));
  FolderCache cache;
  bool loaded = false;
  if (cache_ && is_folder) {
    switch (cache_->Load(path, &cache)) {
      case CacheStore::LoadResult::kHit:
        loaded = true;
        break;
      case CacheStore::LoadResult::kCorrupt:
        ++shards_corrupt_;
        break;
      case CacheStore::LoadResult::kMiss:
        break;
    }
  }
  size_t scanned = files_scanned_;
  IndexFiles(found.files, loaded ? &cache : nullptr);
  if (is_folder) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    // Nothing new since the cache was written: no need to write it again.
    for (Folder& f : folders_) {
      if (f.path == path && loaded && files_scanned_ == scanned &&
          cache.files.size() == found.files.size()) {
        f.dirty = false;
      }
    }
  }
  if (options_.save_after_add) Persist(/*force=*/true);
  WarmTables();
  // Scanning leaves freed buffers behind.
  if (options_.release_memory) ::malloc_trim(0);
}

void WorkspaceIndex::WarmTables() {
  // A long-lived index builds the lookup tables now, so that the next
  // query does not wait for them.
  if (!options_.name_table) return;
  std::shared_lock<std::shared_mutex> lock(mutex_);
  CurrentTables();
}

void WorkspaceIndex::RemoveFolder(const fs::path& folder) {
  std::string prefix = AbsoluteNormal(folder);
  Persist(/*force=*/true);
  {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    folders_.erase(
        std::remove_if(folders_.begin(), folders_.end(),
                       [&](const Folder& f) { return f.path == prefix; }),
        folders_.end());
    std::vector<std::string> gone;
    for (const auto& [path, id] : by_path_) {
      if (!IsUnder(path, prefix)) continue;
      bool covered = false;  // still under another workspace folder
      for (const Folder& f : folders_) covered |= IsUnder(path, f.path);
      if (!covered) gone.push_back(path);
    }
    for (const std::string& path : gone) EraseFile(path);
    for (Folder& f : folders_) f.dirty = false;  // nothing of theirs changed
    Compact();
  }
  ::malloc_trim(0);
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
        std::vector<std::string> gone;
        for (const auto& [file, id] : by_path_) {
          if (IsUnder(file, prefix) && !present.count(file))
            gone.push_back(file);
        }
        for (const std::string& file : gone) EraseFile(file);
      }
      files.insert(files.end(), found.files.begin(), found.files.end());
    } else if (IsCandidateByName(path.filename().string())) {
      files.push_back(path);  // a vanished file is dropped by IndexFiles
    }
  }
  IndexFiles(files, nullptr);
  Persist(/*force=*/false);
  WarmTables();
}

void WorkspaceIndex::Persist(bool force) {
  if (!cache_) return;
  std::lock_guard<std::mutex> persist_lock(persist_mutex_);
  auto now = std::chrono::steady_clock::now();
  {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    for (Folder& folder : folders_) {
      if (!folder.dirty) continue;
      if (!force && now - folder.saved < std::chrono::seconds(10)) continue;
      std::vector<CachedFile> files;
      for (const auto& [path, id] : by_path_) {
        if (!IsUnder(path, folder.path)) continue;
        const FileEntry& e = *files_[id];
        CachedFile f;
        f.key = e.key;
        f.content_hash = e.content_hash;
        f.is_hlo = e.is_hlo;
        f.symbol_count = e.symbol_count;
        f.uses = e.uses;
        f.modules = e.modules;
        files.push_back(std::move(f));
      }
      // Written under the shared lock: the encoding borrows the store's
      // arrays, which writers would change. A fresh index of this folder
      // alone uses all of the store.
      const bool all_used =
          !store_may_hold_unused_ && files.size() == by_path_.size();
      absl::Status saved = cache_->Save(
          folder.path, EncodeFolderCache(folder.path, store_, files, all_used));
      if (!saved.ok()) Warn(std::string(saved.message()));
      // Guarded by persist_mutex_ (writers of these fields hold it or the
      // exclusive lock, never both orders).
      folder.dirty = false;
      folder.saved = now;
    }
  }
}

void WorkspaceIndex::Compact() {
  // Blocks and strings of forgotten files stay in the store until here:
  // rebuild it from the live files (through the cache encoding, which keeps
  // only what they use) when it holds much more than they need.
  std::vector<uint8_t> used(store_.block_count(), 0);
  size_t live_records = 0;
  std::vector<CachedFile> files;
  std::vector<uint32_t> ids;
  for (const auto& [path, id] : by_path_) {
    const FileEntry& e = *files_[id];
    for (const BlockUse& u : e.uses) {
      if (!used[u.block]) {
        used[u.block] = 1;
        live_records += store_.Block(u.block).size();
      }
    }
    CachedFile f;
    f.key = e.key;
    f.uses = e.uses;
    f.modules = e.modules;
    files.push_back(std::move(f));
    ids.push_back(id);
  }
  if (live_records * 2 > store_.records().size()) return;
  std::string bytes = EncodeFolderCache("", store_, files).Flatten();
  std::optional<FolderCache> compact = DecodeFolderCache(bytes, nullptr);
  if (!compact) return;
  store_.Assign(compact->name_arena, compact->name_offsets,
                compact->other_arena, compact->other_offsets,
                compact->block_begin, compact->records);
  for (size_t i = 0; i < ids.size(); ++i) {
    FileEntry& e = *files_[ids[i]];
    e.SetUses(std::vector<BlockUse>(compact->files[i].uses.begin(),
                                    compact->files[i].uses.end()));
    e.modules.assign(compact->files[i].modules.begin(),
                     compact->files[i].modules.end());
  }
  store_may_hold_unused_ = false;  // rebuilt from the live files alone
  Changed();
}

std::shared_ptr<const WorkspaceIndex::Tables> WorkspaceIndex::CurrentTables(
    bool postings) const {
  std::lock_guard<std::mutex> lock(tables_mutex_);
  uint64_t generation = generation_;
  if (tables_ && tables_->generation == generation) return tables_;
  auto t = std::make_shared<Tables>();
  t->generation = generation;
  if (!postings) {
    // A one-shot index (the CLI) asks once: file order only, not kept.
    t->has_postings = false;
    FileOrder(t.get());
    return t;
  }
  const StringTable& names = store_.names();
  // Name masks: the previous table's are still right for the old names.
  t->masks.reserve(names.size());
  if (tables_) {
    size_t keep = std::min<size_t>(tables_->masks.size(), names.size());
    t->masks.assign(tables_->masks.begin(), tables_->masks.begin() + keep);
  }
  for (uint32_t i = static_cast<uint32_t>(t->masks.size()); i < names.size();
       ++i) {
    t->masks.push_back(CharMask(names.Get(i)));
  }
  // Postings over the live blocks only.
  FileOrder(t.get());
  uint32_t blocks = store_.block_count();
  t->use_begin.assign(blocks + 1, 0);
  for (uint32_t f : t->order) {
    for (const BlockUse& u : files_[f]->uses) ++t->use_begin[u.block + 1];
  }
  for (uint32_t b = 0; b < blocks; ++b) t->use_begin[b + 1] += t->use_begin[b];
  t->uses.resize(t->use_begin[blocks]);
  {
    std::vector<uint32_t> fill(t->use_begin.begin(), t->use_begin.end() - 1);
    for (uint32_t f : t->order) {
      std::span<const BlockUse> uses = files_[f]->uses;
      for (uint32_t u = 0; u < uses.size(); ++u) {
        t->uses[fill[uses[u].block]++] = {f, u};
      }
    }
  }
  t->post_begin.assign(names.size() + 1, 0);
  std::span<const uint32_t> begin = store_.block_begin();
  std::span<const Record> records = store_.records();
  for (uint32_t b = 0; b < blocks; ++b) {
    if (t->use_begin[b] == t->use_begin[b + 1]) continue;  // unused
    for (uint32_t r = begin[b]; r < begin[b + 1]; ++r) {
      ++t->post_begin[records[r].name + 1];
    }
  }
  for (uint32_t i = 0; i < names.size(); ++i) {
    t->post_begin[i + 1] += t->post_begin[i];
  }
  t->postings.resize(t->post_begin[names.size()]);
  {
    std::vector<uint32_t> fill(t->post_begin.begin(), t->post_begin.end() - 1);
    for (uint32_t b = 0; b < blocks; ++b) {
      if (t->use_begin[b] == t->use_begin[b + 1]) continue;
      for (uint32_t r = begin[b]; r < begin[b + 1]; ++r) {
        t->postings[fill[records[r].name]++] = {b, r - begin[b]};
      }
    }
  }
  t->memory = t->masks.capacity() * 8 + t->post_begin.capacity() * 4 +
              t->postings.capacity() * 8 + t->use_begin.capacity() * 4 +
              t->uses.capacity() * 8 + t->order.capacity() * 4 +
              t->rank.capacity() * 4;
  tables_ = std::move(t);
  return tables_;
}

void WorkspaceIndex::FileOrder(Tables* t) const {
  // Sorted as (path, id) pairs: a comparison through files_ cost two
  // pointer chases more than the compare itself.
  std::vector<std::pair<std::string_view, uint32_t>> by_name;
  by_name.reserve(by_path_.size());
  for (const auto& [path, id] : by_path_) {
    const FileEntry& e = *files_[id];
    if (e.is_hlo) by_name.emplace_back(e.display_path, id);
  }
  std::sort(by_name.begin(), by_name.end());
  t->order.reserve(by_name.size());
  for (const auto& [name, id] : by_name) t->order.push_back(id);
  t->rank.assign(files_.size(), kNoRef);
  for (uint32_t r = 0; r < t->order.size(); ++r) t->rank[t->order[r]] = r;
}

absl::StatusOr<std::vector<SymbolMatch>> WorkspaceIndex::Query(
    std::string_view text, size_t limit) const {
  absl::StatusOr<SymbolQuery> parsed = SymbolQuery::Parse(text);
  if (!parsed.ok()) return parsed.status();
  const SymbolQuery& query = *parsed;
  std::shared_lock<std::shared_mutex> lock(mutex_);
  std::shared_ptr<const Tables> tables =
      CurrentTables(options_.name_table || query_count_.fetch_add(1) > 0);
  const Tables& t = *tables;
  const StringTable& names = store_.names();
  const StringTable& others = store_.others();

  // Filters, each decided once per file, opcode and module name.
  std::vector<int8_t> file_ok(files_.size(), -1);
  auto file_passes = [&](uint32_t f) {
    if (file_ok[f] < 0) {
      file_ok[f] = query.RejectsFile(files_[f]->display_path) ? 0 : 1;
    }
    return file_ok[f] == 1;
  };
  absl::flat_hash_map<uint32_t, bool> opcode_ok, module_ok;
  auto record_passes = [&](const Record& r) {
    if (!query.PassesKind(static_cast<SymbolKind>(r.kind))) return false;
    if (!query.has_opcode_filter()) return true;
    if (r.opcode == kNoRef) return false;
    auto [it, inserted] = opcode_ok.try_emplace(r.opcode, false);
    if (inserted) it->second = query.PassesOpcode(others.Get(r.opcode));
    return it->second;
  };
  auto module_of = [&](const FileEntry& e, uint32_t symbol) {
    uint32_t module = kNoRef;
    for (const auto& [first, name] : e.modules) {
      if (first <= symbol) module = name;
    }
    return module;
  };
  auto use_passes = [&](uint32_t f, uint32_t use, uint32_t offset) {
    if (!file_passes(f)) return false;
    if (!query.has_module_filter()) return true;
    const FileEntry& e = *files_[f];
    uint32_t module = module_of(e, e.uses[use].first_symbol + offset);
    if (module == kNoRef) return false;
    auto [it, inserted] = module_ok.try_emplace(module, false);
    if (inserted) it->second = query.PassesModule(names.Get(module));
    return it->second;
  };
  auto record_of = [&](const Hit& h) -> const Record& {
    return store_.Block(files_[h.file]->uses[h.use].block)[h.offset];
  };
  auto line_of = [&](const Hit& h) {
    return files_[h.file]->uses[h.use].base_line + record_of(h).line_delta;
  };
  auto better = [&](const Hit& a, const Hit& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.file != b.file) return t.rank[a.file] < t.rank[b.file];
    uint32_t la = line_of(a), lb = line_of(b);
    if (la != lb) return la < lb;
    return record_of(a).column < record_of(b).column;
  };

  std::vector<Hit> hits;
  // A file's metadata symbol (op_name, source location) is reported once, at
  // its first line: shared chunks keep one per chunk, not per file.
  absl::flat_hash_map<std::pair<uint32_t, uint32_t>, uint32_t> metadata_hit;
  auto add_hit = [&](const Hit& hit) {
    const Record& r = record_of(hit);
    if (r.kind == static_cast<uint8_t>(SymbolKind::kMetadata)) {
      auto [it, inserted] = metadata_hit.try_emplace(
          std::make_pair(hit.file, r.name), static_cast<uint32_t>(hits.size()));
      if (!inserted) {
        Hit& kept = hits[it->second];
        if (line_of(hit) < line_of(kept)) kept = hit;
        return;
      }
    }
    hits.push_back(hit);
  };
  if (query.has_name_part() && !t.has_postings) {
    // No postings (a one-shot index): score every name, then one pass over
    // the stored records marks the blocks holding a match, and one over the
    // files' block uses collects the hits. Cheaper than building postings.
    std::vector<float> scores(names.size());
    for (uint32_t i = 0; i < names.size(); ++i) {
      std::string_view name = names.Get(i);
      std::optional<double> s =
          query.NameScoreWithCharMask(name, CharMask(name));
      scores[i] = s ? static_cast<float>(*s) : NAN;
    }
    auto record_hits = [&](const Record& r) {
      return !std::isnan(scores[r.name]) && record_passes(r);
    };
    std::vector<uint8_t> block_hit(store_.block_count(), 0);
    for (uint32_t b = 0; b < store_.block_count(); ++b) {
      for (const Record& r : store_.Block(b)) {
        if (record_hits(r)) {
          block_hit[b] = 1;
          break;
        }
      }
    }
    for (uint32_t f : t.order) {
      if (!file_passes(f)) continue;
      std::span<const BlockUse> uses = files_[f]->uses;
      for (uint32_t u = 0; u < uses.size(); ++u) {
        if (!block_hit[uses[u].block]) continue;
        std::span<const Record> block = store_.Block(uses[u].block);
        for (uint32_t o = 0; o < block.size(); ++o) {
          if (!record_hits(block[o]) || !use_passes(f, u, o)) continue;
          add_hit(Hit{f, u, o, scores[block[o].name]});
        }
      }
    }
  } else if (query.has_name_part()) {
    // Each distinct name is scored once (NaN: no match).
    std::vector<float> scores(names.size());
    constexpr size_t kChunk = 4096;
    size_t chunks = (names.size() + kChunk - 1) / kChunk;
    // The mask test rejects most names in a nanosecond or two: threads pay
    // off only for very many names (starting one costs ~50 us).
    const uint64_t required = query.required_char_mask();
    ParallelFor(chunks, chunks > 64 ? threads_ : 1, [&](size_t, size_t chunk) {
      size_t end = std::min<size_t>(names.size(), (chunk + 1) * kChunk);
      for (size_t i = chunk * kChunk; i < end; ++i) {
        scores[i] = NAN;
        // Inline, the mask test is most of the loop: most names fail it.
        if ((t.masks[i] & required) != required) continue;
        if (t.post_begin[i] == t.post_begin[i + 1]) continue;
        std::optional<double> s =
            query.NameScoreWithCharMask(names.Get(i), t.masks[i]);
        if (s) scores[i] = static_cast<float>(*s);
      }
    });
    std::vector<uint32_t> matching;
    for (uint32_t i = 0; i < scores.size(); ++i) {
      if (!std::isnan(scores[i])) matching.push_back(i);
    }
    std::sort(matching.begin(), matching.end(),
              [&](uint32_t a, uint32_t b) { return scores[a] > scores[b]; });
    // Best names first; once `limit` hits are in and the score drops,
    // nothing later can enter.
    float last_score = INFINITY;
    for (uint32_t name : matching) {
      float score = scores[name];
      if (limit != 0 && hits.size() >= limit && score < last_score) break;
      last_score = score;
      for (uint32_t p = t.post_begin[name]; p < t.post_begin[name + 1]; ++p) {
        auto [block, offset] = t.postings[p];
        if (!record_passes(store_.Block(block)[offset])) continue;
        for (uint32_t u = t.use_begin[block]; u < t.use_begin[block + 1]; ++u) {
          auto [f, use] = t.uses[u];
          if (!use_passes(f, use, offset)) continue;
          add_hit(Hit{f, use, offset, score});
        }
      }
    }
  } else {
    // Filters alone: every symbol scores 0, so path and line order is the
    // final order and the walk can stop at `limit`.
    for (uint32_t f : t.order) {
      if (!file_passes(f)) continue;
      std::span<const BlockUse> uses = files_[f]->uses;
      for (uint32_t u = 0; u < uses.size(); ++u) {
        std::span<const Record> block = store_.Block(uses[u].block);
        for (uint32_t o = 0; o < block.size(); ++o) {
          if (!record_passes(block[o]) || !use_passes(f, u, o)) continue;
          add_hit(Hit{f, u, o, 0.0});
        }
      }
      if (limit != 0 && hits.size() >= limit) break;
    }
  }
  if (limit != 0 && hits.size() > limit) {
    std::nth_element(hits.begin(), hits.begin() + (limit - 1), hits.end(),
                     better);
    hits.resize(limit);
  }
  std::sort(hits.begin(), hits.end(), better);

  std::vector<SymbolMatch> matches;
  matches.reserve(hits.size());
  for (const Hit& hit : hits) {
    const FileEntry& e = *files_[hit.file];
    const Record& r = record_of(hit);
    SymbolMatch m;
    m.path = e.display_path;
    m.absolute_path = e.key.path;
    m.line = line_of(hit);
    m.column = r.column;
    m.kind = static_cast<SymbolKind>(r.kind);
    m.flags = r.flags;
    m.name = std::string(names.Get(r.name));
    uint32_t module = module_of(e, e.uses[hit.use].first_symbol + hit.offset);
    if (module != kNoRef) m.module = std::string(names.Get(module));
    if (r.opcode != kNoRef) m.opcode = std::string(others.Get(r.opcode));
    if (r.shape != kNoRef) m.shape = std::string(others.Get(r.shape));
    m.score = hit.score;
    matches.push_back(std::move(m));
  }
  return matches;
}

std::vector<ModuleFile> WorkspaceIndex::ModuleFiles(
    const fs::path& path) const {
  std::string key = AbsoluteNormal(path);
  std::shared_lock<std::shared_mutex> lock(mutex_);
  auto self_it = by_path_.find(key);
  std::vector<ModuleFile> out;
  if (self_it == by_path_.end() || !files_[self_it->second]->is_hlo) return out;
  const FileEntry& self = *files_[self_it->second];
  auto to_module_file = [](const FileEntry& e) {
    return ModuleFile{e.display_path, e.dump, e.module_name};
  };
  if (self.dump.kind == DumpKind::kNotDump || self.dump.module_id < 0) {
    out.push_back(to_module_file(self));
    return out;
  }
  fs::path folder = fs::path(self.key.path).parent_path();
  std::vector<const FileEntry*> group;
  for (const auto& [p, id] : by_path_) {
    const FileEntry& e = *files_[id];
    if (e.is_hlo && e.dump.module_id == self.dump.module_id &&
        e.dump.module_name == self.dump.module_name &&
        fs::path(e.key.path).parent_path() == folder) {
      group.push_back(&e);
    }
  }
  std::sort(
      group.begin(), group.end(), [](const FileEntry* a, const FileEntry* b) {
        std::string ka = DumpOrderKey(a->dump), kb = DumpOrderKey(b->dump);
        return ka != kb ? ka < kb : a->display_path < b->display_path;
      });
  for (const FileEntry* e : group) out.push_back(to_module_file(*e));
  return out;
}

IndexStats WorkspaceIndex::stats() const {
  IndexStats stats;
  {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    stats.files = by_path_.size();
    stats.memory = store_.MemoryUsage() +
                   files_.capacity() * sizeof(std::unique_ptr<FileEntry>) +
                   by_path_.capacity() * (sizeof(std::string) + 5);
    for (const auto& [path, id] : by_path_) {
      const FileEntry& e = *files_[id];
      stats.memory += sizeof(FileEntry) + e.display_path.capacity() +
                      2 * e.key.path.capacity() + e.uses.size_bytes() +
                      e.modules.capacity() * 8 + e.module_name.capacity() +
                      sizeof(DumpFileName);
      if (!e.is_hlo) continue;
      ++stats.hlo_files;
      stats.symbols += e.symbol_count;
      stats.bytes += e.key.size;
    }
    stats.distinct_names = store_.names().size();
  }
  {
    std::lock_guard<std::mutex> lock(tables_mutex_);
    if (tables_) stats.name_table_memory = tables_->memory;
  }
  stats.shards_loaded = shards_loaded_;
  stats.files_scanned = files_scanned_;
  stats.shards_stale = shards_stale_;
  stats.shards_corrupt = shards_corrupt_;
  return stats;
}

}  // namespace hlo::index
