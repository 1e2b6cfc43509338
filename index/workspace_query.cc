// WorkspaceIndex, querying: the derived lookup tables (name masks,
// postings, block uses, file order) and Query over them.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <optional>
#include <shared_mutex>

#include "absl/container/flat_hash_map.h"
#include "index/fuzzy.h"
#include "index/query.h"
#include "index/workspace_index.h"
#include "index/workspace_internal.h"

namespace hlo::index {

using workspace_internal::ParallelFor;

namespace {

struct Hit {
  uint32_t file;
  uint32_t use;
  uint32_t offset;
  double score;
};

// A QueryControl's verdict shared by the threads of one query: the first
// to see it say stop records why; the others end at their next check.
class Stopper {
 public:
  explicit Stopper(const QueryControl& control) : control_(control) {}
  // True when the query must end now.
  bool Stop() {
    if (stopped_.load(std::memory_order_relaxed)) return true;
    absl::Status status = control_.Check();
    if (status.ok()) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    if (status_.ok()) status_ = std::move(status);
    stopped_ = true;
    return true;
  }
  bool stopped() const { return stopped_.load(std::memory_order_relaxed); }
  absl::Status status() {
    std::lock_guard<std::mutex> lock(mutex_);
    return status_;
  }

 private:
  const QueryControl& control_;
  std::atomic<bool> stopped_{false};
  std::mutex mutex_;
  absl::Status status_;
};

// Checks cost a clock read: made every this many regex or fuzzy scorings
// (each costs far more than the mask tests that reject most names) and
// every this many files or blocks walked.
constexpr uint32_t kCheckEvery = 64;

}  // namespace

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
    std::string_view text, size_t limit, const QueryControl& control) const {
  absl::StatusOr<SymbolQuery> parsed = SymbolQuery::Parse(text);
  if (!parsed.ok()) return parsed.status();
  const SymbolQuery& query = *parsed;
  Stopper stopper(control);
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
      if (i % kCheckEvery == 0 && stopper.Stop()) return stopper.status();
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
      if (b % kCheckEvery == 0 && stopper.Stop()) return stopper.status();
      for (const Record& r : store_.Block(b)) {
        if (record_hits(r)) {
          block_hit[b] = 1;
          break;
        }
      }
    }
    for (uint32_t f : t.order) {
      if (stopper.Stop()) return stopper.status();
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
    // Each distinct name is scored once. Chunks keep their matches only: a
    // table of a score per name (4 MB written and scanned per query on an
    // index of a million names) cost more than the mask tests themselves.
    constexpr size_t kChunk = 4096;
    size_t chunks = (names.size() + kChunk - 1) / kChunk;
    std::vector<std::vector<std::pair<uint32_t, float>>> found(chunks);
    // The mask test rejects most names in a nanosecond or two: threads pay
    // off only for very many names (starting one costs ~50 us).
    const uint64_t required = query.required_char_mask();
    ParallelFor(chunks, chunks > 64 ? threads_ : 1, [&](size_t, size_t chunk) {
      size_t end = std::min<size_t>(names.size(), (chunk + 1) * kChunk);
      uint32_t scored = 0;
      for (size_t i = chunk * kChunk; i < end; ++i) {
        // Inline, the mask test is most of the loop: most names fail it.
        if ((t.masks[i] & required) != required) continue;
        if (t.post_begin[i] == t.post_begin[i + 1]) continue;
        if (scored++ % kCheckEvery == 0 && stopper.Stop()) return;
        std::optional<double> s =
            query.NameScoreWithCharMask(names.Get(i), t.masks[i]);
        if (s) {
          found[chunk].emplace_back(static_cast<uint32_t>(i),
                                    static_cast<float>(*s));
        }
      }
    });
    if (stopper.stopped()) return stopper.status();
    std::vector<std::pair<uint32_t, float>> matching;
    for (const auto& in_chunk : found) {
      matching.insert(matching.end(), in_chunk.begin(), in_chunk.end());
    }
    // Stable: equal scores keep name order, as the table's scan did.
    std::stable_sort(
        matching.begin(), matching.end(),
        [](const auto& a, const auto& b) { return a.second > b.second; });
    // Best names first; once `limit` hits are in and the score drops,
    // nothing later can enter.
    float last_score = INFINITY;
    uint32_t walked = 0;
    for (const auto& [name, score] : matching) {
      if (walked++ % kCheckEvery == 0 && stopper.Stop()) {
        return stopper.status();
      }
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
      if (stopper.Stop()) return stopper.status();
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

}  // namespace hlo::index
