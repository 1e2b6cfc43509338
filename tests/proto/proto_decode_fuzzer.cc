// libFuzzer target for the proto decoder and printer: any bytes must give a
// decoded proto or an error, never a crash, hang or unbounded allocation.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "hlo/proto/convert.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  hlo::proto::PrintOptions options;
  options.max_constant_elements = 1000;
  (void)hlo::proto::ConvertProtoFileToText(bytes, 1 << 20, options);
  return 0;
}
