#include "hlo/index/shard.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xxhash.h"

namespace hlo::index {
namespace {

constexpr char kMagic[8] = {'H', 'L', 'O', 'I', 'D', 'X', 'S', '\0'};
constexpr uint32_t kVersion = 2;  // bump when Symbol or the layout changes

// The path is padded to 8 bytes so that the tables after it are aligned.
uint64_t PaddedPathSize(uint64_t size) { return (size + 7) & ~uint64_t{7}; }
constexpr uint32_t kFlagIsHlo = 1;

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t flags;
  uint64_t size;
  int64_t mtime_ns;
  uint64_t inode;
  uint64_t content_hash;
  uint32_t path_size;
  uint32_t symbol_count;
  uint32_t string_count;
  uint32_t pool_size;
  uint64_t payload_hash;  // XXH3 of path + payload
  uint64_t header_hash;   // XXH3 of the header up to here
};
static_assert(sizeof(Header) == 80);

template <typename T>
void Append(std::string* out, std::span<const T> v) {
  out->append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// A read-only mapping of a shard (no zero-fill, no extra copy).
class MappedShard {
 public:
  explicit MappedShard(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
      void* data = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ,
                          MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (data != MAP_FAILED) {
        data_ = data;
        size_ = static_cast<size_t>(st.st_size);
      }
    }
    ::close(fd);
  }
  ~MappedShard() {
    if (data_ != nullptr) ::munmap(data_, size_);
  }
  bool ok() const { return data_ != nullptr; }
  std::string_view bytes() const {
    return std::string_view(static_cast<const char*>(data_), size_);
  }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

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
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  key.path = (ec ? path : absolute).lexically_normal().string();
  key.size = static_cast<uint64_t>(st.st_size);
  key.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 +
                 st.st_mtim.tv_nsec;
  key.inode = static_cast<uint64_t>(st.st_ino);
  return key;
}

uint64_t ContentHash(std::string_view bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

std::string EncodeShard(const FileKey& key, const IndexedFile& file) {
  const FileSymbols& s = file.symbols;
  Header h;
  std::memset(&h, 0, sizeof(h));
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kVersion;
  h.flags = file.is_hlo ? kFlagIsHlo : 0;
  h.size = key.size;
  h.mtime_ns = key.mtime_ns;
  h.inode = key.inode;
  h.content_hash = file.content_hash;
  h.path_size = static_cast<uint32_t>(key.path.size());
  h.symbol_count = static_cast<uint32_t>(s.symbols.size());
  h.string_count = static_cast<uint32_t>(s.strings.size());
  h.pool_size = static_cast<uint32_t>(s.pool.size());
  std::string body;
  body.reserve(key.path.size() + s.symbols.size() * sizeof(Symbol) +
               s.strings.size() * sizeof(PoolRef) + s.pool.size());
  body.append(key.path);
  body.resize(PaddedPathSize(key.path.size()), '\0');
  Append(&body, s.symbols);
  Append(&body, s.strings);
  body.append(s.pool);
  h.payload_hash = XXH3_64bits(body.data(), body.size());
  h.header_hash = XXH3_64bits(&h, offsetof(Header, header_hash));
  std::string out(reinterpret_cast<const char*>(&h), sizeof(h));
  out += body;
  return out;
}

std::optional<IndexedFile> DecodeShard(std::string_view bytes,
                                       const FileKey& key,
                                       std::shared_ptr<const void> storage) {
  if (bytes.size() < sizeof(Header)) return std::nullopt;
  Header h;
  std::memcpy(&h, bytes.data(), sizeof(h));
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0 ||
      h.version != kVersion ||
      h.header_hash != XXH3_64bits(&h, offsetof(Header, header_hash))) {
    return std::nullopt;
  }
  uint64_t expected = sizeof(Header) + PaddedPathSize(h.path_size) +
                      uint64_t{h.symbol_count} * sizeof(Symbol) +
                      uint64_t{h.string_count} * sizeof(PoolRef) + h.pool_size;
  if (bytes.size() != expected) return std::nullopt;
  std::string_view body = bytes.substr(sizeof(Header));
  if (h.payload_hash != XXH3_64bits(body.data(), body.size())) {
    return std::nullopt;
  }
  if (body.substr(0, h.path_size) != key.path || h.size != key.size ||
      h.mtime_ns != key.mtime_ns || h.inode != key.inode) {
    return std::nullopt;
  }
  IndexedFile file;
  file.is_hlo = (h.flags & kFlagIsHlo) != 0;
  file.content_hash = h.content_hash;
  // The tables are used in place (aligned: see PaddedPathSize); `storage`
  // keeps the bytes alive.
  if ((reinterpret_cast<uintptr_t>(body.data()) & 7) != 0) return std::nullopt;
  const char* p = body.data() + PaddedPathSize(h.path_size);
  file.symbols.symbols = std::span<const Symbol>(
      reinterpret_cast<const Symbol*>(p), h.symbol_count);
  p += h.symbol_count * sizeof(Symbol);
  file.symbols.strings = std::span<const PoolRef>(
      reinterpret_cast<const PoolRef*>(p), h.string_count);
  p += h.string_count * sizeof(PoolRef);
  file.symbols.pool = std::string_view(p, h.pool_size);
  file.symbols.storage = std::move(storage);
  file.symbols.storage_bytes = bytes.size();
  // Every reference must stay inside the pool and the tables, so a shard
  // that passed the checksum by accident still cannot make us read wild.
  auto ref_ok = [&](PoolRef r) {
    return uint64_t{r.offset} + r.size <= h.pool_size;
  };
  for (const PoolRef& r : file.symbols.strings) {
    if (!ref_ok(r)) return std::nullopt;
  }
  for (const Symbol& s : file.symbols.symbols) {
    if (!ref_ok(s.name) ||
        (s.module != kNoRef && s.module >= h.symbol_count) ||
        (s.opcode != kNoRef && s.opcode >= h.string_count) ||
        (s.shape != kNoRef && s.shape >= h.string_count) ||
        static_cast<int>(s.kind) >= kSymbolKindCount) {
      return std::nullopt;
    }
  }
  return file;
}

ShardStore::ShardStore(std::filesystem::path dir)
    : dir_(std::move(dir) / absl::StrCat("shards-v", kVersion)) {}

std::filesystem::path ShardStore::DefaultDir() {
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

std::filesystem::path ShardStore::ShardPath(std::string_view file_path) const {
  uint64_t h = XXH3_64bits(file_path.data(), file_path.size());
  return dir_ / absl::StrFormat("%016x.shard", h);
}

ShardStore::LoadResult ShardStore::Load(const FileKey& key,
                                        IndexedFile* out) const {
  auto mapped = std::make_shared<MappedShard>(ShardPath(key.path).string());
  if (!mapped->ok()) return LoadResult::kMiss;
  std::string_view bytes = mapped->bytes();
  std::optional<IndexedFile> file = DecodeShard(bytes, key, mapped);
  if (!file) {
    // Tell a shard for an older version of the file from a damaged one.
    if (bytes.size() >= sizeof(Header)) {
      Header h;
      std::memcpy(&h, bytes.data(), sizeof(h));
      if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) == 0 &&
          h.version == kVersion &&
          h.header_hash == XXH3_64bits(&h, offsetof(Header, header_hash)) &&
          (h.size != key.size || h.mtime_ns != key.mtime_ns ||
           h.inode != key.inode)) {
        return LoadResult::kStale;
      }
    }
    return LoadResult::kCorrupt;
  }
  *out = std::move(*file);
  return LoadResult::kHit;
}

absl::Status ShardStore::Save(const FileKey& key,
                              const IndexedFile& file) const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return absl::UnavailableError(dir_.string() + ": " + ec.message());
  std::string bytes = EncodeShard(key, file);
  std::filesystem::path target = ShardPath(key.path);
  // Write then rename, so that a reader never sees half a shard.
  std::string temp = absl::StrCat(
      target.string(), ".tmp.", ::getpid(), ".",
      std::hash<std::thread::id>()(std::this_thread::get_id()));
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::UnavailableError(temp + ": " + std::strerror(errno));
  }
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  if (done != bytes.size() || ::rename(temp.c_str(), target.c_str()) != 0) {
    ::unlink(temp.c_str());
    return absl::UnavailableError(target.string() + ": write failed");
  }
  return absl::OkStatus();
}

}  // namespace hlo::index
