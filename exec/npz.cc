#include "exec/npz.h"

#include <zlib.h>

#include <fstream>
#include <functional>

#include "exec/strings.h"

namespace hlo::exec {
namespace {

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

absl::Status WriteNpzFile(const std::string& path, const NamedArrays& arrays) {
  auto bytes = EncodeNpz(arrays);
  if (!bytes.ok()) return bytes.status();
  std::ofstream f(path, std::ios::binary);
  if (!f) return absl::PermissionDeniedError("cannot write " + path);
  f.write(bytes->data(), bytes->size());
  if (!f) return absl::DataLossError("write failed: " + path);
  return absl::OkStatus();
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
