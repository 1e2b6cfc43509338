// Hand-made .npy and .npz bytes for reader tests: any header text, any
// data, stored or deflated entries, repeated names and lying sizes, none of
// which exec/npz.cc's writer would produce.
#ifndef HLO_LSP_TESTS_EXEC_NPZ_TEST_UTIL_H_
#define HLO_LSP_TESTS_EXEC_NPZ_TEST_UTIL_H_

#include <zlib.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hlo::exec::testing {

// A version 1.0 .npy: `dict` padded with spaces to 64 bytes and a '\n', as
// NumPy pads it, then `data`.
inline std::string Npy(std::string_view dict, std::string_view data) {
  std::string header(dict);
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  return out + header + std::string(data);
}

// The header NumPy writes for a float32 array of `shape` ("(2, 3)").
inline std::string F32Npy(std::string_view shape, std::string_view data) {
  return Npy("{'descr': '<f4', 'fortran_order': False, 'shape': " +
                 std::string(shape) + ", }",
             data);
}

// A raw deflate stream of `data`.
inline std::string Deflate(std::string_view data) {
  z_stream zs{};
  deflateInit2(&zs, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, data.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

struct ZipEntry {
  std::string name;
  std::string data;       // the uncompressed contents
  bool deflated = false;  // method 8 (a raw deflate stream) rather than 0
  int64_t declared = -1;  // uncompressed size to declare; -1: data's size
  int64_t cut = -1;       // keep only this many stored bytes; -1: all
};

inline void Put(std::string& s, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
}

// A zip32 archive of `entries` (CRCs left 0: the reader does not check).
inline std::string Zip(const std::vector<ZipEntry>& entries) {
  std::string out, central;
  for (const ZipEntry& e : entries) {
    const uint64_t usize = e.declared >= 0 ? e.declared : e.data.size();
    std::string bytes = e.deflated ? Deflate(e.data) : e.data;
    if (e.cut >= 0) bytes.resize(e.cut);
    const uint32_t offset = static_cast<uint32_t>(out.size());
    auto common = [&](std::string& s) {
      Put(s, 0, 2);                   // flags
      Put(s, e.deflated ? 8 : 0, 2);  // method
      Put(s, 0x00210000, 4);          // time, date
      Put(s, 0, 4);                   // crc
      Put(s, bytes.size(), 4);
      Put(s, usize, 4);
      Put(s, e.name.size(), 2);
      Put(s, 0, 2);  // extra
    };
    Put(out, 0x04034b50, 4);
    Put(out, 20, 2);
    common(out);
    out += e.name + bytes;
    Put(central, 0x02014b50, 4);
    Put(central, 20, 2);
    Put(central, 20, 2);
    common(central);
    Put(central, 0, 6);  // comment length, disk, internal attributes
    Put(central, 0, 4);  // external attributes
    Put(central, offset, 4);
    central += e.name;
  }
  const uint32_t cd_offset = static_cast<uint32_t>(out.size());
  out += central;
  Put(out, 0x06054b50, 4);
  Put(out, 0, 4);
  Put(out, entries.size(), 2);
  Put(out, entries.size(), 2);
  Put(out, central.size(), 4);
  Put(out, cd_offset, 4);
  Put(out, 0, 2);
  return out;
}

}  // namespace hlo::exec::testing

#endif  // HLO_LSP_TESTS_EXEC_NPZ_TEST_UTIL_H_
