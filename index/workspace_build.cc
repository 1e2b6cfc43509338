// WorkspaceIndex, building: reads, scans (or adopts from a loaded cache)
// the files of a batch in parallel and merges them into the store.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <shared_mutex>

#include "index/file_bytes.h"
#include "index/proto_text.h"
#include "index/scanner.h"
#include "index/workspace_index.h"
#include "index/workspace_internal.h"

namespace hlo::index {

namespace fs = std::filesystem;
using workspace_internal::AbsoluteNormal;
using workspace_internal::IsUnder;
using workspace_internal::ParallelFor;

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
          // A proto is indexed as its text view: symbols' lines are lines of
          // that view, and its hash is the view's (a twin shares lines too).
          ProtoText proto;
          if (!entry->is_hlo &&
              MaybeProto(files[i].filename().string(), bytes)) {
            absl::Status read = ReadProtoText(key->path, &file, &proto);
            if (read.ok()) {
              bytes = proto.text;
              cut = CutChunks(bytes);
              entry->content_hash = cut.hash.first;
              entry->content_high = cut.hash.second | 1;
              entry->is_hlo = true;
            } else {
              // Kept (and cached) as not HLO unless it could not be read.
              Warn(std::string(read.message()));
              ok = !absl::IsUnavailable(read);
            }
          }
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

}  // namespace hlo::index
