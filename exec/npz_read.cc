// Reading .npy and .npz. An archive is untrusted input: an entry's bytes must
// be exactly what its .npy header describes (no trailing data), names must
// not repeat, and a deflated entry is inflated only up to its declared size,
// after its header has shown that size is what the array needs.
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "exec/npz.h"
#include "exec/npz_internal.h"
#include "exec/strings.h"

namespace hlo::exec {
namespace {

using npz_internal::NpyHeader;
using npz_internal::ParseNpyHeader;

uint16_t U16(const uint8_t* p) { return p[0] | (p[1] << 8); }
uint32_t U32(const uint8_t* p) { return U16(p) | (uint32_t{U16(p + 2)} << 16); }
uint64_t U64(const uint8_t* p) { return U32(p) | (uint64_t{U32(p + 4)} << 32); }
// Whether [at, at + len) lies within n bytes (without overflowing).
bool Within(uint64_t at, uint64_t len, uint64_t n) {
  return at <= n && len <= n - at;
}

struct ZipEntry {
  std::string name;
  uint16_t method = 0;
  uint64_t csize = 0, usize = 0;
  size_t data = 0;  // offset of the entry's (compressed) bytes
};

// The central directory's entries; a name given twice is an error.
absl::StatusOr<std::vector<ZipEntry>> ZipEntries(std::string_view bytes) {
  const auto* b = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t n = bytes.size();
  if (n < 22) return Bad("not a zip file");
  size_t eocd = std::string_view::npos;
  for (size_t i = n - 22 + 1; i-- > 0 && n - i <= 22 + 65535;) {
    if (U32(b + i) == 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd == std::string_view::npos)
    return Bad("not a zip file (no end record)");
  uint64_t count = U16(b + eocd + 10);
  uint64_t cd_offset = U32(b + eocd + 16);
  if (cd_offset == 0xffffffffu || count == 0xffff) {  // zip64
    if (eocd < 20 || U32(b + eocd - 20) != 0x07064b50)
      return Bad("bad zip64 locator");
    const uint64_t z64 = U64(b + eocd - 20 + 8);
    if (!Within(z64, 56, n) || U32(b + z64) != 0x06064b50)
      return Bad("bad zip64 record");
    count = U64(b + z64 + 32);
    cd_offset = U64(b + z64 + 48);
  }
  std::vector<ZipEntry> out;
  std::set<std::string> seen;
  uint64_t p = cd_offset;
  for (uint64_t e = 0; e < count; ++e) {
    if (!Within(p, 46, n) || U32(b + p) != 0x02014b50)
      return Bad("bad zip central directory");
    ZipEntry z;
    z.method = U16(b + p + 10);
    z.csize = U32(b + p + 20);
    z.usize = U32(b + p + 24);
    const uint16_t name_len = U16(b + p + 28), extra_len = U16(b + p + 30),
                   comment_len = U16(b + p + 32);
    uint64_t local = U32(b + p + 42);
    if (!Within(p + 46, name_len + extra_len, n)) return Bad("bad zip entry");
    z.name = std::string(bytes.substr(p + 46, name_len));
    if (!seen.insert(z.name).second)
      return Bad(Cat(z.name, ": the zip holds it twice"));
    // zip64 extra field: sizes and offset when their 32-bit fields are full.
    const size_t extra_end = p + 46 + name_len + extra_len;
    for (size_t x = p + 46 + name_len; x + 4 <= extra_end;) {
      const uint16_t id = U16(b + x), len = U16(b + x + 2);
      const size_t end = std::min(x + 4 + len, extra_end);
      size_t q = x + 4;
      auto wide = [&](uint64_t* field) {
        if (*field == 0xffffffffu && q + 8 <= end) {
          *field = U64(b + q);
          q += 8;
        }
      };
      if (id == 0x0001) {
        wide(&z.usize);
        wide(&z.csize);
        wide(&local);
      }
      x += 4 + len;
    }
    p += 46 + name_len + extra_len + comment_len;
    if (!Within(local, 30, n) || U32(b + local) != 0x04034b50)
      return Bad(Cat(z.name, ": bad zip local header"));
    z.data = local + 30 + U16(b + local + 26) + U16(b + local + 28);
    if (!Within(z.data, z.csize, n))
      return Bad(Cat(z.name, ": truncated zip entry"));
    out.push_back(std::move(z));
  }
  return out;
}

// A raw deflate stream inflated piece by piece, so that the caller decides,
// from what it has read so far, how much more to accept.
class Inflater {
 public:
  explicit Inflater(std::string_view in) : in_(in) {}
  ~Inflater() {
    if (init_) inflateEnd(&zs_);
  }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  // Appends exactly the next `n` bytes of output to `out`.
  absl::Status Take(uint64_t n, std::string* out) {
    size_t at = out->size();
    out->resize(at + n);
    while (at < out->size()) {
      if (ended_)
        return Bad("the deflate stream ends before its declared size");
      auto made = Step(out->data() + at, out->size() - at);
      if (!made.ok()) return made.status();
      at += *made;
    }
    return absl::OkStatus();
  }

  // OK when the stream ends here; an error when it has more output.
  absl::Status Finish(uint64_t declared) {
    char extra;
    while (!ended_) {
      auto made = Step(&extra, 1);
      if (!made.ok()) return made.status();
      if (*made != 0)
        return Bad(Cat("the deflate stream holds more than the declared ",
                       declared, " bytes"));
    }
    return absl::OkStatus();
  }

 private:
  static constexpr size_t kChunk = size_t{1} << 30;  // fits zlib's uInt

  // One inflate call writing at most `cap` bytes to `dst`; the bytes written.
  absl::StatusOr<size_t> Step(char* dst, size_t cap) {
    if (!init_) {
      if (inflateInit2(&zs_, -15) != Z_OK) return Bad("zlib init failed");
      init_ = true;
    }
    if (zs_.avail_in == 0 && fed_ < in_.size()) {
      const size_t chunk = std::min(in_.size() - fed_, kChunk);
      zs_.next_in =
          reinterpret_cast<Bytef*>(const_cast<char*>(in_.data() + fed_));
      zs_.avail_in = static_cast<uInt>(chunk);
      fed_ += chunk;
    }
    zs_.next_out = reinterpret_cast<Bytef*>(dst);
    zs_.avail_out = static_cast<uInt>(std::min(cap, kChunk));
    const uInt room = zs_.avail_out;
    const int rc = inflate(&zs_, Z_NO_FLUSH);
    const size_t made = room - zs_.avail_out;
    if (rc == Z_STREAM_END) ended_ = true;
    if (rc == Z_STREAM_END || rc == Z_OK) return made;
    // Output room was given, so no progress means the input ran out.
    if (rc == Z_BUF_ERROR) return Bad("the deflate stream is truncated");
    return Bad(Cat("bad deflate data: ", zs_.msg ? zs_.msg : "zlib error"));
  }

  std::string_view in_;
  size_t fed_ = 0;
  z_stream zs_{};
  bool init_ = false, ended_ = false;
};

// The bytes of a .npy entry: a view into the zip when stored; else inflated
// into `owned`, the header first, and the rest only when the declared size
// is what that header needs.
absl::StatusOr<std::string_view> NpyEntryBytes(std::string_view zip,
                                               const ZipEntry& e,
                                               std::string* owned) {
  const std::string_view raw = zip.substr(e.data, e.csize);
  if (e.method == 0) {
    if (e.csize != e.usize)
      return Bad(Cat("stored entry of ", e.csize, " bytes declares ", e.usize));
    return raw;
  }
  if (e.method != 8)
    return Bad(Cat("unsupported zip compression method ", e.method));
  // Deflate expands at most 1032:1; a larger declared size cannot be true.
  if (e.usize / 1032 > e.csize + 1)
    return Bad(Cat("declares ", e.usize, " bytes, more than its ", e.csize,
                   " deflated bytes can hold"));
  Inflater in(raw);
  absl::Status st = in.Take(std::min<uint64_t>(e.usize, 12), owned);
  if (!st.ok()) return st;
  auto header_end = npz_internal::NpyHeaderEnd(*owned);
  if (!header_end.ok()) return header_end.status();
  if (*header_end > e.usize)
    return Bad(
        Cat("the .npy header runs past the declared ", e.usize, " bytes"));
  st = in.Take(*header_end - owned->size(), owned);
  if (!st.ok()) return st;
  auto h = ParseNpyHeader(*owned);
  if (!h.ok()) return h.status();
  const uint64_t need = h->data_offset + static_cast<uint64_t>(h->data_bytes);
  if (need != e.usize)
    return Bad(
        Cat("declares ", e.usize, " bytes, its .npy header needs ", need));
  st = in.Take(e.usize - owned->size(), owned);
  if (st.ok()) st = in.Finish(e.usize);
  if (!st.ok()) return st;
  return std::string_view(*owned);
}

// The header of a .npy whose data must follow it exactly.
absl::StatusOr<NpyHeader> ExactHeader(std::string_view bytes) {
  auto h = ParseNpyHeader(bytes);
  if (!h.ok()) return h;
  const uint64_t have = bytes.size() - h->data_offset,
                 need = static_cast<uint64_t>(h->data_bytes);
  if (have < need)
    return Bad(Cat("truncated .npy data: ", have, " of ", need, " bytes"));
  if (have > need)
    return Bad(Cat(have - need, " bytes after the array data (its shape needs ",
                   need, ")"));
  return h;
}

// The text of a `.dtype` companion: a scalar byte or UTF-32 string.
absl::StatusOr<std::string> DecodeNpyText(std::string_view bytes) {
  auto h = ExactHeader(bytes);
  if (!h.ok()) return h.status();
  if (!h->dims.empty() || (h->descr[1] != 'S' && h->descr[1] != 'U'))
    return Bad(Cat("expected a scalar string, not ", h->descr));
  std::string text;
  for (char c : bytes.substr(h->data_offset))
    if (c) text.push_back(c);  // UTF-32 of ASCII: keep the non-zero bytes
  return text;
}

bool EndsWith(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

absl::StatusOr<Literal> DecodeNpy(std::string_view bytes, PrimitiveType as) {
  auto h = ExactHeader(bytes);
  if (!h.ok()) return h.status();
  auto t = npz_internal::TypeOfDescr(h->descr);
  if (!t) return Bad(Cat("unsupported .npy dtype ", h->descr));
  PrimitiveType type = *t;
  if (as != PrimitiveType::kInvalid && IsArrayType(as)) {
    if (StorageBytes(as) != StorageBytes(type))
      return Bad(Cat("a ", PrimitiveTypeName(as), " array needs ",
                     StorageBytes(as), "-byte bit patterns, the file has ",
                     h->descr));
    type = as;
  }
  std::vector<int64_t> dims = h->dims;
  if (h->fortran) std::reverse(dims.begin(), dims.end());
  auto lit = Literal::CreateArray(type, dims);
  if (!lit.ok()) return lit;
  std::memcpy(lit->raw(), bytes.data() + h->data_offset, lit->byte_size());
  if (PrimitiveTypeBitWidth(type) < 8 || type == PrimitiveType::kPred) {
    VisitType(type, [&]<typename T>() {
      auto* d = lit->data<typename T::S>();
      for (int64_t i = 0; i < lit->count(); ++i) {
        if constexpr (T::kKind == Kind::kPred) {
          d[i] = d[i] != 0;
        } else if constexpr (T::kKind == Kind::kSigned ||
                             T::kKind == Kind::kUnsigned) {
          d[i] = T::Store(static_cast<typename T::C>(d[i]));
        } else if constexpr (std::is_same_v<typename T::S, uint8_t>) {
          if (T::kBits == 4) d[i] &= 0xf;  // f4e2m1fn: keep the low bits
        }
      }
    });
  }
  if (h->fortran && dims.size() > 1) {
    // Column-major data read as reversed dims: transpose back.
    auto out = Literal::CreateArray(type, h->dims);
    if (!out.ok()) return out;
    std::vector<int64_t> idx(h->dims.size(), 0);
    std::vector<int64_t> rstr(dims.size(), 1);
    for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d)
      rstr[d] = rstr[d + 1] * dims[d + 1];
    const int eb = out->element_bytes();
    for (int64_t i = 0; i < out->count(); ++i) {
      int64_t src = 0;
      for (size_t d = 0; d < idx.size(); ++d)
        src += idx[d] * rstr[idx.size() - 1 - d];
      std::memcpy(out->raw() + i * eb, lit->raw() + src * eb, eb);
      for (int d = static_cast<int>(idx.size()) - 1; d >= 0; --d) {
        if (++idx[d] < h->dims[d]) break;
        idx[d] = 0;
      }
    }
    return out;
  }
  return lit;
}

absl::StatusOr<NamedArrays> DecodeNpz(std::string_view bytes) {
  auto entries = ZipEntries(bytes);
  if (!entries.ok()) return entries.status();
  struct Npy {
    std::string owned;  // inflated bytes, when not stored
    std::string_view bytes;
  };
  std::map<std::string, Npy> files;  // by entry name; stable addresses
  for (const ZipEntry& e : *entries) {
    if (!EndsWith(e.name, ".npy")) continue;  // not ours to read
    Npy& npy = files[e.name];
    auto b = NpyEntryBytes(bytes, e, &npy.owned);
    if (!b.ok()) return Bad(Cat(e.name, ": ", b.status().message()));
    npy.bytes = *b;
  }
  NamedArrays out;
  for (const auto& [file, npy] : files) {
    std::string name = file.substr(0, file.size() - 4);
    if (EndsWith(name, ".dtype")) continue;
    PrimitiveType as = PrimitiveType::kInvalid;
    auto dt = files.find(name + ".dtype.npy");
    if (dt != files.end()) {
      auto tname = DecodeNpyText(dt->second.bytes);
      if (!tname.ok())
        return Bad(Cat(dt->first, ": ", tname.status().message()));
      auto t = PrimitiveTypeFromName(*tname);
      if (!t)
        return Bad(Cat(dt->first, ": names an unknown type '", *tname, "'"));
      as = *t;
    }
    auto lit = DecodeNpy(npy.bytes, as);
    if (!lit.ok()) {
      return absl::Status(lit.status().code(),
                          Cat(file, ": ", lit.status().message()));
    }
    out.push_back({name, std::make_shared<const Literal>(*std::move(lit))});
  }
  return out;
}

absl::StatusOr<NamedArrays> ReadNpzFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return DecodeNpz(ss.str());
}

}  // namespace hlo::exec
