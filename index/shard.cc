#include "index/shard.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <system_error>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/whole_file.h"
#include "xxhash.h"
#if defined(__x86_64__)
// The checksums run over the whole cache (tens of MB): the library's
// AVX2/AVX-512 code, picked at run time, is ~3x its SSE2 default.
#include "xxh_x86dispatch.h"
#endif

namespace hlo::index {
namespace {

constexpr char kMagic[8] = {'H', 'L', 'O', 'I', 'D', 'X', 'F', '\0'};
// Bump when Record or the layout changes, or which files are indexed (6:
// protos, which version 5 kept as not HLO).
constexpr uint32_t kVersion = 6;

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t reserved;
  uint64_t payload_size;
  uint64_t payload_hash;  // XXH3 of the payload
  uint64_t header_hash;   // XXH3 of the header up to here
};
static_assert(sizeof(Header) == 40);

struct Counts {
  uint32_t folder_size, file_count, name_count, name_arena, other_count,
      other_arena, block_count, record_count, use_count, module_count,
      path_arena, reserved;
};

struct FileRecord {
  uint64_t size;
  int64_t mtime_ns;
  int64_t ctime_ns;
  uint64_t inode;
  uint64_t content_hash;
  uint32_t path_offset, path_size, uses_begin, uses_count, modules_begin,
      modules_count, symbol_count, flags;
};
static_assert(sizeof(FileRecord) == 72);
constexpr uint32_t kFileIsHlo = 1;

size_t Pad8(size_t n) { return (n + 7) & ~size_t{7}; }

// Reads aligned sections; fails (ok() false) on any overrun.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  template <typename T>
  std::span<const T> Take(uint64_t count) {
    uint64_t n = count * sizeof(T);
    if (!ok_ || count > bytes_.size() || n > bytes_.size() - pos_) {
      ok_ = false;
      return {};
    }
    const T* p = reinterpret_cast<const T*>(bytes_.data() + pos_);
    pos_ = Pad8(pos_ + n);
    if (pos_ > bytes_.size()) pos_ = bytes_.size();
    return std::span<const T>(p, count);
  }
  std::string_view TakeString(uint64_t size) {
    std::span<const char> s = Take<char>(size);
    return std::string_view(s.data(), s.size());
  }
  bool ok() const { return ok_; }
  bool at_end() const { return pos_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// The header's own checks: magic, version, its hash, and the payload size
// it declares against the file's.
bool HeaderMatches(std::string_view head, uint64_t file_size) {
  if (head.size() < sizeof(Header)) return false;
  Header h;
  std::memcpy(&h, head.data(), sizeof(h));
  return std::memcmp(h.magic, kMagic, sizeof(kMagic)) == 0 &&
         h.version == kVersion &&
         h.header_hash == XXH3_64bits(&h, offsetof(Header, header_hash)) &&
         file_size >= sizeof(Header) &&
         h.payload_size == file_size - sizeof(Header);
}

bool OffsetsOk(std::span<const uint32_t> offsets, uint64_t arena) {
  if (offsets.empty() || offsets[0] != 0 || offsets.back() != arena) {
    return false;
  }
  for (size_t i = 1; i < offsets.size(); ++i) {
    if (offsets[i] < offsets[i - 1]) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<FileKey> StatFile(const std::filesystem::path& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(
        absl::StrCat(path.string(), ": ", std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(path.string() + ": not a regular file");
  }
  FileKey key;
  if (path.is_absolute()) {
    key.path = path.lexically_normal().string();
  } else {
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(path, ec);
    key.path = (ec ? path : absolute).lexically_normal().string();
  }
  FillKeyFromStat(st, &key);
  return key;
}

void FillKeyFromStat(const struct stat& st, FileKey* key) {
  auto nanoseconds = [](const struct timespec& t) {
    return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
  };
  key->size = static_cast<uint64_t>(st.st_size);
  key->mtime_ns = nanoseconds(st.st_mtim);
  key->ctime_ns = nanoseconds(st.st_ctim);
  key->inode = static_cast<uint64_t>(st.st_ino);
}

uint64_t ContentHash(std::string_view bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

size_t EncodedCache::size() const {
  size_t n = 0;
  for (std::string_view p : parts_) n += p.size();
  return n;
}

std::string EncodedCache::Flatten() const {
  std::string out;
  out.reserve(size());
  for (std::string_view p : parts_) out.append(p);
  return out;
}

namespace {
constexpr char kZeros[8] = {};
}  // namespace

void EncodedCache::Borrow(std::string_view bytes) {
  parts_.push_back(bytes);
  if (size_t pad = Pad8(bytes.size()) - bytes.size()) {
    parts_.push_back(std::string_view(kZeros, pad));
  }
}

void EncodedCache::BorrowJoined(std::span<const std::string_view> pieces) {
  size_t size = 0;
  for (std::string_view piece : pieces) {
    if (piece.empty()) continue;
    parts_.push_back(piece);
    size += piece.size();
  }
  if (size_t pad = Pad8(size) - size) {
    parts_.push_back(std::string_view(kZeros, pad));
  }
}

EncodedCache EncodeFolderCache(std::string_view folder,
                               const SymbolStore& store,
                               std::span<const CachedFile> files,
                               bool all_used) {
  EncodedCache out;
  // Renumber the blocks and strings the files use, in their old order.
  const uint32_t unused = all_used ? 0 : kNoRef;
  std::vector<uint32_t> block_map(store.block_count(), unused);
  std::vector<uint32_t> name_map(store.names().size(), unused);
  std::vector<uint32_t> other_map(store.others().size(), unused);
  uint32_t blocks = 0, records = 0;
  if (all_used) {
    std::iota(block_map.begin(), block_map.end(), 0u);
    blocks = store.block_count();
    records = static_cast<uint32_t>(store.records().size());
  } else {
    for (const CachedFile& f : files) {
      for (const BlockUse& u : f.uses) block_map[u.block] = 0;
      for (const auto& m : f.modules) name_map[m.second] = 0;
    }
    for (uint32_t b = 0; b < block_map.size(); ++b) {
      if (block_map[b] == kNoRef) continue;
      block_map[b] = blocks++;
      for (const Record& r : store.Block(b)) {
        ++records;
        name_map[r.name] = 0;
        if (r.shape != kNoRef) other_map[r.shape] = 0;
        if (r.opcode != kNoRef) other_map[r.opcode] = 0;
      }
    }
  }
  // A table with nothing to drop (a fresh index) is written as it is.
  auto renumber = [](std::vector<uint32_t>* map, const StringTable& table,
                     EncodedCache* out, std::span<const uint32_t>* offsets,
                     std::string_view* arena) {
    if (std::find(map->begin(), map->end(), kNoRef) == map->end()) {
      std::iota(map->begin(), map->end(), 0u);
      *offsets = table.offsets();
      *arena = table.arena();
      return true;
    }
    std::vector<uint32_t> new_offsets;
    std::string new_arena;
    new_offsets.reserve(map->size() + 1);
    new_arena.reserve(table.bytes());
    new_offsets.push_back(0);
    for (uint32_t i = 0; i < map->size(); ++i) {
      if ((*map)[i] == kNoRef) continue;
      (*map)[i] = static_cast<uint32_t>(new_offsets.size() - 1);
      new_arena.append(table.Get(i));
      new_offsets.push_back(static_cast<uint32_t>(new_arena.size()));
    }
    *offsets = out->Keep(std::move(new_offsets));
    *arena = out->Keep(std::move(new_arena));
    return false;
  };
  std::span<const uint32_t> name_offsets, other_offsets;
  std::string_view name_arena, other_arena;
  const bool names_whole =
      renumber(&name_map, store.names(), &out, &name_offsets, &name_arena);
  const bool others_whole =
      renumber(&other_map, store.others(), &out, &other_offsets, &other_arena);

  std::span<const uint32_t> block_begin;
  std::span<const Record> out_records;
  if (names_whole && others_whole && blocks == block_map.size()) {
    block_begin = store.block_begin();
    out_records = store.records();
  } else {
    std::vector<uint32_t> new_begin;
    std::vector<Record> new_records;
    new_begin.reserve(blocks + 1);
    new_records.reserve(records);
    new_begin.push_back(0);
    for (uint32_t b = 0; b < block_map.size(); ++b) {
      if (block_map[b] == kNoRef) continue;
      for (Record r : store.Block(b)) {
        r.name = name_map[r.name];
        if (r.shape != kNoRef) r.shape = other_map[r.shape];
        if (r.opcode != kNoRef) r.opcode = other_map[r.opcode];
        new_records.push_back(r);
      }
      new_begin.push_back(static_cast<uint32_t>(new_records.size()));
    }
    block_begin = out.Keep(std::move(new_begin));
    out_records = out.Keep(std::move(new_records));
  }
  std::vector<FileRecord> file_records;
  std::vector<BlockUse> uses;
  // With block ids kept as they are (all_used), each file's uses are
  // written from where they lie, not copied into one array first.
  std::vector<std::string_view> use_pieces;
  std::vector<std::pair<uint32_t, uint32_t>> modules;
  std::string paths;
  size_t use_count = 0, path_bytes = 0;
  for (const CachedFile& f : files) {
    use_count += f.uses.size();
    path_bytes += f.key.path.size();
  }
  file_records.reserve(files.size());
  if (all_used) {
    use_pieces.reserve(files.size());
  } else {
    uses.reserve(use_count);
  }
  uint32_t uses_so_far = 0;
  paths.reserve(path_bytes);
  for (const CachedFile& f : files) {
    FileRecord fr;
    std::memset(&fr, 0, sizeof(fr));
    fr.size = f.key.size;
    fr.mtime_ns = f.key.mtime_ns;
    fr.ctime_ns = f.key.ctime_ns;
    fr.inode = f.key.inode;
    fr.content_hash = f.content_hash;
    fr.path_offset = static_cast<uint32_t>(paths.size());
    fr.path_size = static_cast<uint32_t>(f.key.path.size());
    paths += f.key.path;
    fr.uses_begin = uses_so_far;
    fr.uses_count = static_cast<uint32_t>(f.uses.size());
    uses_so_far += fr.uses_count;
    if (all_used) {
      use_pieces.push_back(std::string_view(
          reinterpret_cast<const char*>(f.uses.data()), f.uses.size_bytes()));
    } else {
      for (BlockUse u : f.uses) {
        u.block = block_map[u.block];
        uses.push_back(u);
      }
    }
    fr.modules_begin = static_cast<uint32_t>(modules.size());
    fr.modules_count = static_cast<uint32_t>(f.modules.size());
    for (auto m : f.modules) {
      m.second = name_map[m.second];
      modules.push_back(m);
    }
    fr.symbol_count = f.symbol_count;
    fr.flags = f.is_hlo ? kFileIsHlo : 0;
    file_records.push_back(fr);
  }
  Counts c;
  std::memset(&c, 0, sizeof(c));
  c.folder_size = static_cast<uint32_t>(folder.size());
  c.file_count = static_cast<uint32_t>(file_records.size());
  c.name_count = static_cast<uint32_t>(name_offsets.size() - 1);
  c.name_arena = static_cast<uint32_t>(name_arena.size());
  c.other_count = static_cast<uint32_t>(other_offsets.size() - 1);
  c.other_arena = static_cast<uint32_t>(other_arena.size());
  c.block_count = blocks;
  c.record_count = records;
  c.use_count = uses_so_far;
  c.module_count = static_cast<uint32_t>(modules.size());
  c.path_arena = static_cast<uint32_t>(paths.size());

  // The sections, each padded to 8 bytes, then the header in front.
  out.Borrow(
      out.Keep(std::string(reinterpret_cast<const char*>(&c), sizeof(c))));
  out.Borrow(out.Keep(std::string(folder)));
  out.Borrow(name_offsets);
  out.Borrow(name_arena);
  out.Borrow(other_offsets);
  out.Borrow(other_arena);
  out.Borrow(block_begin);
  out.Borrow(out_records);
  out.Borrow(out.Keep(std::move(file_records)));
  if (all_used) {
    out.BorrowJoined(use_pieces);
  } else {
    out.Borrow(out.Keep(std::move(uses)));
  }
  out.Borrow(out.Keep(std::move(modules)));
  out.Borrow(out.Keep(std::move(paths)));

  Header h;
  std::memset(&h, 0, sizeof(h));
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kVersion;
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  for (std::string_view part : out.parts_) {
    XXH3_64bits_update(state, part.data(), part.size());
    h.payload_size += part.size();
  }
  h.payload_hash = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  h.header_hash = XXH3_64bits(&h, offsetof(Header, header_hash));
  out.parts_.insert(
      out.parts_.begin(),
      out.Keep(std::string(reinterpret_cast<const char*>(&h), sizeof(h))));
  return out;
}

std::optional<FolderCache> DecodeFolderCache(
    std::string_view bytes, std::shared_ptr<const void> storage) {
  if (bytes.size() < sizeof(Header) ||
      (reinterpret_cast<uintptr_t>(bytes.data()) & 7) != 0) {
    return std::nullopt;
  }
  if (!HeaderMatches(bytes, bytes.size())) return std::nullopt;
  Header h;
  std::memcpy(&h, bytes.data(), sizeof(h));
  std::string_view payload = bytes.substr(sizeof(Header));
  if (h.payload_hash != XXH3_64bits(payload.data(), payload.size())) {
    return std::nullopt;
  }
  Reader r(payload);
  std::span<const Counts> counts = r.Take<Counts>(1);
  if (!r.ok()) return std::nullopt;
  const Counts c = counts[0];
  FolderCache out;
  out.folder = std::string(r.TakeString(c.folder_size));
  out.name_offsets = r.Take<uint32_t>(uint64_t{c.name_count} + 1);
  out.name_arena = r.TakeString(c.name_arena);
  out.other_offsets = r.Take<uint32_t>(uint64_t{c.other_count} + 1);
  out.other_arena = r.TakeString(c.other_arena);
  out.block_begin = r.Take<uint32_t>(uint64_t{c.block_count} + 1);
  out.records = r.Take<Record>(c.record_count);
  std::span<const FileRecord> files = r.Take<FileRecord>(c.file_count);
  std::span<const BlockUse> uses = r.Take<BlockUse>(c.use_count);
  std::span<const std::pair<uint32_t, uint32_t>> modules =
      r.Take<std::pair<uint32_t, uint32_t>>(c.module_count);
  std::string_view paths = r.TakeString(c.path_arena);
  if (!r.ok() || !r.at_end()) return std::nullopt;
  // Every id and range in bounds, so that even a shard that passed the
  // checksum by accident cannot make us read wild.
  if (!OffsetsOk(out.name_offsets, c.name_arena) ||
      !OffsetsOk(out.other_offsets, c.other_arena) ||
      !OffsetsOk(out.block_begin, c.record_count)) {
    return std::nullopt;
  }
  for (const Record& rec : out.records) {
    if (rec.name >= c.name_count ||
        (rec.shape != kNoRef && rec.shape >= c.other_count) ||
        (rec.opcode != kNoRef && rec.opcode >= c.other_count) ||
        rec.kind >= kSymbolKindCount) {
      return std::nullopt;
    }
  }
  for (const BlockUse& u : uses) {
    if (u.block >= c.block_count) return std::nullopt;
  }
  for (const auto& m : modules) {
    if (m.second >= c.name_count) return std::nullopt;
  }
  out.files.reserve(files.size());
  for (const FileRecord& fr : files) {
    if (uint64_t{fr.path_offset} + fr.path_size > paths.size() ||
        uint64_t{fr.uses_begin} + fr.uses_count > uses.size() ||
        uint64_t{fr.modules_begin} + fr.modules_count > modules.size()) {
      return std::nullopt;
    }
    CachedFile f;
    f.key.path = std::string(paths.substr(fr.path_offset, fr.path_size));
    f.key.size = fr.size;
    f.key.mtime_ns = fr.mtime_ns;
    f.key.ctime_ns = fr.ctime_ns;
    f.key.inode = fr.inode;
    f.content_hash = fr.content_hash;
    f.is_hlo = (fr.flags & kFileIsHlo) != 0;
    f.symbol_count = fr.symbol_count;
    f.uses = uses.subspan(fr.uses_begin, fr.uses_count);
    f.modules = modules.subspan(fr.modules_begin, fr.modules_count);
    out.files.push_back(std::move(f));
  }
  out.storage = std::move(storage);
  return out;
}

CacheStore::CacheStore(std::filesystem::path dir)
    : dir_(std::move(dir) / absl::StrCat("index-v", kVersion)) {}

std::filesystem::path CacheStore::DefaultDir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') {
    return std::filesystem::path(xdg) / "hlo-lsp";
  }
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != '\0') {
    return std::filesystem::path(home) / ".cache" / "hlo-lsp";
  }
  return {};
}

std::filesystem::path CacheStore::PathFor(std::string_view folder) const {
  uint64_t h = XXH3_64bits(folder.data(), folder.size());
  return dir_ / absl::StrFormat("%016x.idx", h);
}

CacheStore::LoadResult CacheStore::Load(std::string_view folder,
                                        FolderCache* out) const {
  // Anything but a regular file is a miss (a FIFO is never waited on); a
  // header that does not verify is refused before the rest is read.
  base::WholeFile::Options options;
  options.head_bytes = sizeof(Header);
  options.accept_head = [](std::string_view head, uint64_t file_size) {
    return HeaderMatches(head, file_size);
  };
  absl::StatusOr<base::WholeFile> file =
      base::WholeFile::Read(PathFor(folder).string(), options);
  if (!file.ok()) {
    return absl::IsDataLoss(file.status()) ? LoadResult::kCorrupt
                                           : LoadResult::kMiss;
  }
  if (file->bytes().empty()) return LoadResult::kMiss;
  auto storage = std::make_shared<base::WholeFile>(*std::move(file));
  std::string_view bytes = storage->bytes();
  std::optional<FolderCache> cache = DecodeFolderCache(bytes, storage);
  if (!cache || cache->folder != folder) return LoadResult::kCorrupt;
  *out = std::move(*cache);
  return LoadResult::kHit;
}

absl::Status CacheStore::Save(std::string_view folder,
                              const EncodedCache& bytes) const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return absl::UnavailableError(dir_.string() + ": " + ec.message());
  std::filesystem::path target = PathFor(folder);
  // Write then rename, so that a reader never sees half a file.
  std::string temp =
      absl::StrCat(target.string(), ".tmp.", ::getpid(), ".",
                   std::hash<std::thread::id>()(std::this_thread::get_id()));
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::UnavailableError(temp + ": " + std::strerror(errno));
  }
  // The parts straight from where they are (some are the store's own
  // arrays), a batch of them per call.
  std::vector<struct iovec> iov;
  for (std::string_view part : bytes.parts()) {
    if (part.empty()) continue;
    iov.push_back({const_cast<char*>(part.data()), part.size()});
  }
  bool failed = false;
  for (size_t next = 0; next < iov.size();) {
    int count = static_cast<int>(std::min<size_t>(iov.size() - next, IOV_MAX));
    ssize_t n = ::writev(fd, iov.data() + next, count);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      failed = true;
      break;
    }
    // Skip what was written; a part written in part is continued.
    size_t done = static_cast<size_t>(n);
    while (next < iov.size() && done >= iov[next].iov_len) {
      done -= iov[next].iov_len;
      ++next;
    }
    if (done > 0) {
      iov[next].iov_base = static_cast<char*>(iov[next].iov_base) + done;
      iov[next].iov_len -= done;
    }
  }
  ::close(fd);
  if (failed || ::rename(temp.c_str(), target.c_str()) != 0) {
    ::unlink(temp.c_str());
    return absl::UnavailableError(target.string() + ": write failed");
  }
  return absl::OkStatus();
}

}  // namespace hlo::index
