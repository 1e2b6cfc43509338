#include "exec/npz.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "exec/strings.h"

namespace hlo::exec {
namespace {

absl::Status Bad(const std::string& m) { return absl::InvalidArgumentError(m); }

// NumPy descr of the storage used for `t` ("" when NumPy has the type).
std::string Descr(PrimitiveType t, bool* bits_only) {
  using P = PrimitiveType;
  *bits_only = false;
  switch (t) {
    case P::kPred:
      return "|b1";
    case P::kS8:
      return "|i1";
    case P::kS16:
      return "<i2";
    case P::kS32:
      return "<i4";
    case P::kS64:
      return "<i8";
    case P::kU8:
      return "|u1";
    case P::kU16:
      return "<u2";
    case P::kU32:
      return "<u4";
    case P::kU64:
      return "<u8";
    case P::kF16:
      return "<f2";
    case P::kF32:
      return "<f4";
    case P::kF64:
      return "<f8";
    case P::kC64:
      return "<c8";
    case P::kC128:
      return "<c16";
    default:
      break;
  }
  *bits_only = true;
  return StorageBytes(t) == 2 ? "<u2" : "|u1";
}

std::optional<PrimitiveType> FromDescr(std::string_view d) {
  using P = PrimitiveType;
  if (d.size() < 2) return std::nullopt;
  if (d[0] == '>' && d.substr(1) != "i1" && d.substr(1) != "u1" &&
      d.substr(1) != "b1")
    return std::nullopt;  // big endian
  std::string_view k = d.substr(1);
  static const std::map<std::string_view, P> kTypes = {
      {"b1", P::kPred}, {"i1", P::kS8},   {"i2", P::kS16}, {"i4", P::kS32},
      {"i8", P::kS64},  {"u1", P::kU8},   {"u2", P::kU16}, {"u4", P::kU32},
      {"u8", P::kU64},  {"f2", P::kF16},  {"f4", P::kF32}, {"f8", P::kF64},
      {"c8", P::kC64},  {"c16", P::kC128}};
  auto it = kTypes.find(k);
  if (it == kTypes.end()) return std::nullopt;
  return it->second;
}

std::string NpyWithHeader(const std::string& dict, const void* data, size_t n) {
  std::string header = dict;
  // magic(6) + version(2) + len(2) + header, padded to 64 with '\n' last.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  uint16_t len = static_cast<uint16_t>(header.size());
  out.push_back(static_cast<char>(len & 0xff));
  out.push_back(static_cast<char>(len >> 8));
  out += header;
  out.append(static_cast<const char*>(data), n);
  return out;
}

std::string ShapeTuple(const std::vector<int64_t>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    s += std::to_string(dims[i]);
    if (dims.size() == 1 || i + 1 < dims.size()) s += ",";
    if (i + 1 < dims.size()) s += " ";
  }
  return s + ")";
}

// A bytes scalar (|S<n>) for NAME.dtype entries.
std::string EncodeString(std::string_view text) {
  std::string dict = Cat("{'descr': '|S", text.size(),
                         "', 'fortran_order': False, 'shape': (), }");
  return NpyWithHeader(dict, text.data(), text.size());
}

struct NpyHeader {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> dims;
  size_t data_offset = 0;
};

absl::StatusOr<NpyHeader> ParseHeader(std::string_view b) {
  if (b.size() < 10 || b.substr(0, 6) != std::string_view("\x93NUMPY", 6))
    return Bad("not a .npy file");
  const int major = static_cast<uint8_t>(b[6]);
  size_t len, start;
  if (major == 1) {
    len = static_cast<uint8_t>(b[8]) | (static_cast<uint8_t>(b[9]) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) return Bad("truncated .npy header");
    len = 0;
    for (int i = 0; i < 4; ++i)
      len |= size_t{static_cast<uint8_t>(b[8 + i])} << (8 * i);
    start = 12;
  } else {
    return Bad("unknown .npy version");
  }
  if (b.size() < start + len) return Bad("truncated .npy header");
  std::string_view h = b.substr(start, len);
  NpyHeader out;
  out.data_offset = start + len;
  auto value_of = [&](std::string_view key) -> std::string_view {
    size_t k = h.find(key);
    if (k == std::string_view::npos) return {};
    size_t colon = h.find(':', k + key.size());
    if (colon == std::string_view::npos) return {};
    return h.substr(colon + 1);
  };
  std::string_view d = value_of("'descr'");
  size_t q1 = d.find('\''),
         q2 = q1 == std::string_view::npos ? q1 : d.find('\'', q1 + 1);
  if (q2 == std::string_view::npos) return Bad("npy header without descr");
  out.descr = std::string(d.substr(q1 + 1, q2 - q1 - 1));
  std::string_view f = value_of("'fortran_order'");
  out.fortran = f.find("True") < f.find_first_of(",}");
  std::string_view s = value_of("'shape'");
  size_t open = s.find('('), close = s.find(')');
  if (open == std::string_view::npos || close == std::string_view::npos ||
      close < open)
    return Bad("npy header without shape");
  std::string_view dims = s.substr(open + 1, close - open - 1);
  int64_t cur = -1;
  for (char c : dims) {
    if (c >= '0' && c <= '9') {
      cur = (cur < 0 ? 0 : cur) * 10 + (c - '0');
      if (cur > (int64_t{1} << 50)) return Bad("npy dimension too large");
    } else if (c == ',') {
      if (cur >= 0) out.dims.push_back(cur);
      cur = -1;
    }
  }
  if (cur >= 0) out.dims.push_back(cur);
  return out;
}

uint16_t U16(const uint8_t* p) { return p[0] | (p[1] << 8); }
uint32_t U32(const uint8_t* p) { return U16(p) | (uint32_t{U16(p + 2)} << 16); }
uint64_t U64(const uint8_t* p) { return U32(p) | (uint64_t{U32(p + 4)} << 32); }
void Put16(std::string& s, uint16_t v) {
  s.push_back(v & 0xff);
  s.push_back(v >> 8);
}
void Put32(std::string& s, uint32_t v) {
  Put16(s, v & 0xffff);
  Put16(s, v >> 16);
}

}  // namespace

absl::StatusOr<std::string> EncodeNpy(const Literal& literal) {
  if (literal.is_tuple()) return Bad("a tuple has no .npy form");
  bool bits_only;
  std::string descr = Descr(literal.type(), &bits_only);
  std::string dict =
      Cat("{'descr': '", descr,
          "', 'fortran_order': False, 'shape': ", ShapeTuple(literal.dims()),
          ", }");
  if (PrimitiveTypeBitWidth(literal.type()) < 8 &&
      literal.type() != PrimitiveType::kPred) {
    // Sub-byte: unsigned bit patterns of the width.
    const int bits = PrimitiveTypeBitWidth(literal.type());
    std::string data(literal.count(), '\0');
    for (int64_t i = 0; i < literal.count(); ++i)
      data[i] = static_cast<char>(literal.raw()[i] & ((1 << bits) - 1));
    return NpyWithHeader(dict, data.data(), data.size());
  }
  return NpyWithHeader(dict, literal.raw(), literal.byte_size());
}

absl::StatusOr<Literal> DecodeNpy(std::string_view bytes, PrimitiveType as) {
  auto h = ParseHeader(bytes);
  if (!h.ok()) return h.status();
  auto t = FromDescr(h->descr);
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
  if (bytes.size() - h->data_offset < static_cast<size_t>(lit->byte_size()))
    return Bad("truncated .npy data");
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
    std::vector<int64_t> perm(dims.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = perm.size() - 1 - i;
    // Column-major data read as reversed dims: transpose back.
    std::vector<int64_t> strides(dims.size(), 1);
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

absl::StatusOr<std::string> EncodeNpz(const NamedArrays& arrays) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& [name, value] : arrays) {
    auto npy = EncodeNpy(*value);
    if (!npy.ok()) return npy.status();
    files.push_back({name + ".npy", *std::move(npy)});
    bool bits_only;
    Descr(value->type(), &bits_only);
    if (bits_only)
      files.push_back({name + ".dtype.npy",
                       EncodeString(PrimitiveTypeName(value->type()))});
  }
  std::string out, central;
  for (const auto& [name, data] : files) {
    if (data.size() >= 0xffffffffu)
      return Bad("array too large for a zip32 .npz");
    const uint32_t crc = crc32(0, reinterpret_cast<const Bytef*>(data.data()),
                               static_cast<uInt>(data.size()));
    const uint32_t offset = static_cast<uint32_t>(out.size());
    Put32(out, 0x04034b50);
    Put16(out, 20);
    Put16(out, 0);
    Put16(out, 0);
    Put16(out, 0);
    Put16(out, 0x21);  // time, date (1980-01-01)
    Put32(out, crc);
    Put32(out, data.size());
    Put32(out, data.size());
    Put16(out, name.size());
    Put16(out, 0);
    out += name;
    out += data;
    Put32(central, 0x02014b50);
    Put16(central, 20);
    Put16(central, 20);
    Put16(central, 0);
    Put16(central, 0);
    Put16(central, 0);
    Put16(central, 0x21);
    Put32(central, crc);
    Put32(central, data.size());
    Put32(central, data.size());
    Put16(central, name.size());
    Put16(central, 0);
    Put16(central, 0);
    Put16(central, 0);
    Put16(central, 0);
    Put32(central, 0);
    Put32(central, offset);
    central += name;
    if (out.size() >= 0xffffffffu)
      return Bad("archive too large for a zip32 .npz");
  }
  const uint32_t cd_offset = static_cast<uint32_t>(out.size());
  out += central;
  Put32(out, 0x06054b50);
  Put16(out, 0);
  Put16(out, 0);
  Put16(out, files.size());
  Put16(out, files.size());
  Put32(out, central.size());
  Put32(out, cd_offset);
  Put16(out, 0);
  return out;
}

absl::StatusOr<NamedArrays> DecodeNpz(std::string_view bytes) {
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
  uint64_t entries = U16(b + eocd + 10);
  uint64_t cd_offset = U32(b + eocd + 16);
  if (cd_offset == 0xffffffffu || entries == 0xffff) {  // zip64
    if (eocd < 20 || U32(b + eocd - 20) != 0x07064b50)
      return Bad("bad zip64 locator");
    uint64_t z64 = U64(b + eocd - 20 + 8);
    if (z64 + 56 > n || U32(b + z64) != 0x06064b50)
      return Bad("bad zip64 record");
    entries = U64(b + z64 + 32);
    cd_offset = U64(b + z64 + 48);
  }
  std::map<std::string, std::string> files;
  size_t p = cd_offset;
  for (uint64_t e = 0; e < entries; ++e) {
    if (p + 46 > n || U32(b + p) != 0x02014b50)
      return Bad("bad zip central directory");
    const uint16_t method = U16(b + p + 10);
    uint64_t csize = U32(b + p + 20), usize = U32(b + p + 24);
    const uint16_t name_len = U16(b + p + 28), extra_len = U16(b + p + 30),
                   comment_len = U16(b + p + 32);
    uint64_t local = U32(b + p + 42);
    if (p + 46 + name_len + extra_len > n) return Bad("bad zip entry");
    std::string name(bytes.substr(p + 46, name_len));
    // zip64 extra field: sizes and offset when their 32-bit fields are full.
    for (size_t x = p + 46 + name_len;
         x + 4 <= p + 46 + name_len + extra_len;) {
      uint16_t id = U16(b + x), len = U16(b + x + 2);
      size_t q = x + 4;
      if (id == 0x0001) {
        if (usize == 0xffffffffu && q + 8 <= x + 4 + len) {
          usize = U64(b + q);
          q += 8;
        }
        if (csize == 0xffffffffu && q + 8 <= x + 4 + len) {
          csize = U64(b + q);
          q += 8;
        }
        if (local == 0xffffffffu && q + 8 <= x + 4 + len) {
          local = U64(b + q);
          q += 8;
        }
      }
      x += 4 + len;
    }
    p += 46 + name_len + extra_len + comment_len;
    if (local + 30 > n || U32(b + local) != 0x04034b50)
      return Bad("bad zip local header");
    const size_t data = local + 30 + U16(b + local + 26) + U16(b + local + 28);
    if (data + csize > n) return Bad("truncated zip entry " + name);
    std::string content;
    if (method == 0) {
      content = std::string(bytes.substr(data, csize));
    } else if (method == 8) {
      if (usize > (uint64_t{1} << 40)) return Bad("zip entry too large");
      content.resize(usize);
      z_stream zs{};
      if (inflateInit2(&zs, -15) != Z_OK) return Bad("zlib init failed");
      zs.next_in = const_cast<Bytef*>(b + data);
      zs.avail_in = static_cast<uInt>(csize);
      zs.next_out = reinterpret_cast<Bytef*>(content.data());
      zs.avail_out = static_cast<uInt>(usize);
      int rc = inflate(&zs, Z_FINISH);
      inflateEnd(&zs);
      if (rc != Z_STREAM_END) return Bad("bad deflate data in " + name);
    } else {
      return Bad(
          Cat("unsupported zip compression method ", method, " in ", name));
    }
    files[name] = std::move(content);
  }
  NamedArrays out;
  for (const auto& [file, content] : files) {
    if (file.size() < 4 || file.substr(file.size() - 4) != ".npy") continue;
    std::string name = file.substr(0, file.size() - 4);
    if (name.size() > 6 && name.substr(name.size() - 6) == ".dtype") continue;
    PrimitiveType as = PrimitiveType::kInvalid;
    auto dt = files.find(name + ".dtype.npy");
    if (dt != files.end()) {
      auto h = ParseHeader(dt->second);
      if (!h.ok()) return h.status();
      std::string tname = dt->second.substr(h->data_offset);
      while (!tname.empty() && tname.back() == '\0') tname.pop_back();
      // '<U' strings are UTF-32: keep the ASCII bytes.
      if (h->descr.find('U') != std::string::npos) {
        std::string ascii;
        for (char c : tname)
          if (c) ascii.push_back(c);
        tname = ascii;
      }
      auto t = PrimitiveTypeFromName(tname);
      if (!t)
        return Bad(Cat(name, ".dtype names an unknown type '", tname, "'"));
      as = *t;
    }
    auto lit = DecodeNpy(content, as);
    if (!lit.ok())
      return absl::InvalidArgumentError(
          Cat(name, ": ", lit.status().message()));
    out.push_back({name, std::make_shared<const Literal>(*std::move(lit))});
  }
  return out;
}

absl::Status WriteNpzFile(const std::string& path, const NamedArrays& arrays) {
  auto bytes = EncodeNpz(arrays);
  if (!bytes.ok()) return bytes.status();
  std::ofstream f(path, std::ios::binary);
  if (!f) return absl::PermissionDeniedError("cannot write " + path);
  f.write(bytes->data(), bytes->size());
  if (!f) return absl::DataLossError("write failed: " + path);
  return absl::OkStatus();
}

absl::StatusOr<NamedArrays> ReadNpzFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return DecodeNpz(ss.str());
}

NamedArrays FlattenResult(const Value& result, std::string_view prefix) {
  NamedArrays out;
  std::function<void(const Value&)> walk = [&](const Value& v) {
    if (v->is_tuple()) {
      for (const Value& e : v->elements()) walk(e);
    } else if (v->type() != PrimitiveType::kToken) {
      out.push_back({Cat(prefix, out.size()), v});
    }
  };
  walk(result);
  return out;
}

}  // namespace hlo::exec
