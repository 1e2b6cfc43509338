// The decoder's wire-format tools: the full walk that locates the first
// break (CheckWireFormat and DecodeProto's error message; its own loop, as
// it reads groups and says what broke where) and the cheap prescreen that
// picks the candidate message type (wire::ReadField).
#include <climits>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hlo/proto/decode.h"
#include "hlo/proto/decode_internal.h"
#include "hlo/proto/wire_reader.h"

namespace hlo::proto {
namespace decode_internal {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::io::CodedInputStream;

// ------------------------------------------------------------ wire walk --

class WireWalker {
 public:
  explicit WireWalker(std::string_view bytes)
      : in_(Data(bytes), static_cast<int>(bytes.size())) {
    Configure(in_);
  }

  // Walks fields until `end` (absolute offset). `group_field` is nonzero
  // inside a group, which ends at its END_GROUP tag instead.
  bool Walk(const Descriptor* descriptor, int64_t end, int depth,
            uint32_t group_field) {
    while (in_.CurrentPosition() < end || group_field != 0) {
      const int64_t at = in_.CurrentPosition();
      if (at >= end) return Fail(at, "group is not closed before the end");
      uint32_t tag = 0;
      if (!in_.ReadVarint32(&tag)) return Fail(at, "truncated field tag");
      if (in_.CurrentPosition() > end) {
        return Fail(at, "field tag runs past the end of its message");
      }
      const uint32_t field_number = tag >> 3;
      const int wire_type = static_cast<int>(tag & 7);
      if (field_number == 0) return Fail(at, "invalid field number 0");
      const FieldDescriptor* field =
          descriptor ? descriptor->FindFieldByNumber(field_number) : nullptr;
      switch (wire_type) {
        case 0: {
          uint64_t value;
          if (!in_.ReadVarint64(&value) || in_.CurrentPosition() > end) {
            return Fail(
                at, absl::StrCat("field ", field_number, ": truncated varint"));
          }
          break;
        }
        case 1:
        case 5: {
          const int size = wire_type == 1 ? 8 : 4;
          if (end - in_.CurrentPosition() < size || !in_.Skip(size)) {
            return Fail(at, absl::StrCat("field ", field_number, ": needs ",
                                         size, " bytes, message ends first"));
          }
          break;
        }
        case 2: {
          uint64_t length = 0;
          if (!in_.ReadVarint64(&length) || in_.CurrentPosition() > end) {
            return Fail(
                at, absl::StrCat("field ", field_number, ": truncated length"));
          }
          const int64_t start = in_.CurrentPosition();
          const uint64_t left = static_cast<uint64_t>(end - start);
          if (length > left) {
            // A truncated file: the deepest break is the useful offset, so
            // walk what is there of a sub-message first.
            if (field && field->type() == FieldDescriptor::TYPE_MESSAGE &&
                depth < kMaxDepth &&
                !Walk(field->message_type(), end, depth + 1, 0)) {
              return false;
            }
            return Fail(
                at, absl::StrCat("field ", field_number, ": length ", length,
                                 " runs past the end (", left, " bytes left)"));
          }
          const int64_t field_end = start + static_cast<int64_t>(length);
          if (field && field->type() == FieldDescriptor::TYPE_MESSAGE &&
              depth < kMaxDepth) {
            if (!Walk(field->message_type(), field_end, depth + 1, 0)) {
              return false;
            }
            if (in_.CurrentPosition() != field_end) {
              return Fail(start, "sub-message does not end at its length");
            }
          } else if (!in_.Skip(static_cast<int>(length))) {
            return Fail(at, "length runs past the end");
          }
          break;
        }
        case 3:
          if (depth >= kMaxDepth) return Fail(at, "groups nested too deep");
          if (!Walk(nullptr, end, depth + 1, field_number)) return false;
          break;
        case 4:
          if (field_number != group_field) {
            return Fail(at, absl::StrCat("unexpected end-group tag for field ",
                                         field_number));
          }
          return true;
        default:
          return Fail(at, absl::StrCat("field ", field_number,
                                       ": invalid wire type ", wire_type));
      }
    }
    return true;
  }

  const WireError& error() const { return error_; }

 private:
  bool Fail(int64_t offset, std::string message) {
    error_ = {false, offset, std::move(message)};
    return false;
  }

  CodedInputStream in_;
  WireError error_;
};

}  // namespace

WireError WalkWire(std::string_view bytes, const Descriptor* descriptor) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return {false, 0, "message is 2 GiB or larger"};
  }
  WireWalker walker(bytes);
  walker.Walk(descriptor, static_cast<int64_t>(bytes.size()), 0, 0);
  return walker.error();
}

namespace {

// ------------------------------------------------------------ prescreen --

// A cheap look at the wire format as `descriptor`: every field must be one
// the schema knows, with the wire type its declaration implies; sub-messages
// are checked a few levels deep on their first occurrences only. A clean
// prescreen lets the decoder parse one candidate instead of all of them.
bool WireTypeFits(const FieldDescriptor* field, int wire_type) {
  if (wire_type == 2) {
    return field->type() == FieldDescriptor::TYPE_MESSAGE ||
           field->type() == FieldDescriptor::TYPE_STRING ||
           field->type() == FieldDescriptor::TYPE_BYTES ||
           (field->is_repeated() && field->is_packable());
  }
  switch (field->type()) {
    case FieldDescriptor::TYPE_DOUBLE:
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64:
      return wire_type == 1;
    case FieldDescriptor::TYPE_FLOAT:
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32:
      return wire_type == 5;
    case FieldDescriptor::TYPE_MESSAGE:
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES:
    case FieldDescriptor::TYPE_GROUP:
      return false;
    default:
      return wire_type == 0;
  }
}

}  // namespace

bool PrescreenClean(std::string_view bytes, const Descriptor* descriptor,
                    int depth) {
  // A repeated field's elements come in a run (a module's thousands of
  // computations): its lookups, and the count of its sub-messages checked,
  // carry over from one element to the next.
  absl::flat_hash_map<int, int> visits;  // field -> sub-messages checked
  const FieldDescriptor* field = nullptr;
  uint32_t run_number = 0;
  int run_type = -1;
  bool run_message = false;  // a sub-message to look into
  int* run_visits = nullptr;
  wire::Field f;
  for (size_t pos = 0; pos < bytes.size();) {
    if (!wire::ReadField(bytes, &pos, &f)) return false;
    if (!field || run_number != f.number || run_type != f.type) {
      field = descriptor->FindFieldByNumber(f.number);
      if (!field || !WireTypeFits(field, f.type)) return false;
      run_number = f.number;
      run_type = f.type;
      run_message = f.type == wire::kLengthDelimited &&
                    field->type() == FieldDescriptor::TYPE_MESSAGE && depth > 0;
      run_visits = nullptr;
    }
    if (!run_message) continue;
    if (!run_visits) run_visits = &visits[field->number()];
    if ((*run_visits)++ < 2 &&
        !PrescreenClean(f.data, field->message_type(), depth - 1)) {
      return false;
    }
  }
  return true;
}

bool HasTopLevelField(std::string_view bytes, uint32_t number) {
  wire::Field f;
  for (size_t pos = 0; pos < bytes.size();) {
    if (!wire::ReadField(bytes, &pos, &f)) return false;
    if (f.number == number) return true;
  }
  return false;
}

}  // namespace decode_internal

absl::Status CheckWireFormat(std::string_view bytes,
                             const google::protobuf::Descriptor* descriptor) {
  decode_internal::WireError error =
      decode_internal::WalkWire(bytes, descriptor);
  if (error.ok) return absl::OkStatus();
  return absl::DataLossError(
      absl::StrCat("at byte ", error.offset, ": ", error.message));
}

}  // namespace hlo::proto
