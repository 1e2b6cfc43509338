// gzip: detecting and inflating it (a gzip'ed proto is decoded as the
// plain one).
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hlo/proto/decode.h"

namespace hlo::proto {

bool IsGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<uint8_t>(bytes[0]) == 0x1f &&
         static_cast<uint8_t>(bytes[1]) == 0x8b;
}

absl::StatusOr<std::string> Gunzip(std::string_view bytes, size_t max_bytes) {
  z_stream stream{};
  // 32 + MAX_WBITS: accept gzip and zlib headers.
  if (inflateInit2(&stream, 32 + MAX_WBITS) != Z_OK) {
    return absl::InternalError("zlib initialisation failed");
  }
  std::string out;
  size_t fed = 0;  // input bytes handed to zlib so far
  absl::Status status;
  char buffer[1 << 16];
  while (true) {
    if (stream.avail_in == 0 && fed < bytes.size()) {
      const size_t more = std::min<size_t>(bytes.size() - fed, 1u << 30);
      stream.next_in =
          reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + fed));
      stream.avail_in = static_cast<uInt>(more);
      fed += more;
    }
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof(buffer);
    const int rc = inflate(&stream, Z_NO_FLUSH);
    const size_t produced = sizeof(buffer) - stream.avail_out;
    if (out.size() + produced > max_bytes) {
      status = absl::ResourceExhaustedError(absl::StrCat(
          "gzip data inflates to more than ", max_bytes, " bytes"));
      break;
    }
    out.append(buffer, produced);
    const bool input_done = stream.avail_in == 0 && fed == bytes.size();
    if (rc == Z_STREAM_END) {
      if (input_done) break;
      // Concatenated gzip members form one stream, as gunzip treats them.
      if (inflateReset(&stream) != Z_OK) break;
      continue;
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && input_done) {
      status = absl::DataLossError(
          absl::StrCat("gzip stream is truncated after ", bytes.size(),
                       " compressed bytes (", out.size(), " bytes inflated)"));
      break;
    }
    if (rc == Z_BUF_ERROR) continue;
    status = absl::DataLossError(absl::StrCat(
        "gzip stream is corrupt near compressed byte ", fed - stream.avail_in,
        ": ", stream.msg ? stream.msg : "bad data"));
    break;
  }
  inflateEnd(&stream);
  if (!status.ok()) return status;
  return out;
}

}  // namespace hlo::proto
