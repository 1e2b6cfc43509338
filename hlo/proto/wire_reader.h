// One reader of protobuf wire-format fields for our own passes over a
// proto's bytes: hollowing a module for the deferred decode, the prescreen
// of a candidate message type, the printer's instruction index. Each only
// needs a field's number and value and gives up on anything unusual (the
// full parse then judges the bytes), so the reader is strict: it accepts
// less than protobuf's parser, never more. The wire walk that locates the
// first break for an error message (decode_wire.cc) keeps its own loop: it
// reads groups and says what broke where.
#ifndef HLO_LSP_HLO_PROTO_WIRE_READER_H_
#define HLO_LSP_HLO_PROTO_WIRE_READER_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/base/attributes.h"

namespace hlo::proto::wire {

inline constexpr int kVarint = 0;
inline constexpr int kFixed64 = 1;
inline constexpr int kLengthDelimited = 2;
inline constexpr int kFixed32 = 5;

struct Field {
  uint32_t number = 0;
  int type = kVarint;
  uint64_t value = 0;     // a varint's value
  std::string_view data;  // the payload of the other types
};

// The varint at `*pos` (at most `max_bytes` long), moving `*pos` past it.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool ReadVarint(std::string_view bytes,
                                                    size_t* pos,
                                                    uint64_t* value,
                                                    int max_bytes = 10) {
  size_t p = *pos;
  // Most tags, lengths and ids are one byte.
  if (p < bytes.size() && static_cast<uint8_t>(bytes[p]) < 0x80) {
    *value = static_cast<uint8_t>(bytes[p]);
    *pos = p + 1;
    return true;
  }
  uint64_t result = 0;
  for (int i = 0; i < max_bytes && p < bytes.size(); ++i) {
    const uint8_t byte = static_cast<uint8_t>(bytes[p++]);
    result |= uint64_t{byte & 0x7fu} << (7 * i);
    if (byte < 0x80) {
      *value = result;
      *pos = p;
      return true;
    }
  }
  return false;
}

// The field at `*pos`, moving `*pos` past it. False when there is no sound
// one there: truncated, field number 0, a tag longer than protobuf's parser
// reads (5 bytes), a group or an invalid wire type.
// Inlined: the loops over a module's fields call it millions of times.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool ReadField(std::string_view bytes,
                                                   size_t* pos, Field* field) {
  uint64_t tag = 0;
  if (!ReadVarint(bytes, pos, &tag, 5) || tag > UINT32_MAX) return false;
  field->number = static_cast<uint32_t>(tag >> 3);
  field->type = static_cast<int>(tag & 7);
  if (field->number == 0) return false;
  switch (field->type) {
    case kVarint:
      return ReadVarint(bytes, pos, &field->value);
    case kFixed64:
    case kFixed32: {
      const size_t size = field->type == kFixed64 ? 8 : 4;
      if (bytes.size() - *pos < size) return false;
      field->data = bytes.substr(*pos, size);
      *pos += size;
      return true;
    }
    case kLengthDelimited: {
      uint64_t length = 0;
      if (!ReadVarint(bytes, pos, &length) || length > bytes.size() - *pos) {
        return false;
      }
      field->data = bytes.substr(*pos, length);
      *pos += length;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace hlo::proto::wire

#endif  // HLO_LSP_HLO_PROTO_WIRE_READER_H_
