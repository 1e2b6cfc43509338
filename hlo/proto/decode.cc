#include "hlo/proto/decode.h"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/reflection.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/stubs/logging.h"
#include "hlo/absl_compat.h"
#include "hlo/proto/run_hlo_module.pb.h"

namespace hlo::proto {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::io::CodedInputStream;

constexpr int kMaxDepth = 100;  // protobuf's own default recursion limit

// Protobuf logs (to stderr) on every failed parse, e.g. invalid UTF-8 in a
// string field; while we probe candidate types those are expected.
void SilenceProtobufLogs() {
  static std::once_flag once;
  std::call_once(once, [] {
    google::protobuf::SetLogHandler(
        [](google::protobuf::LogLevel, const char*, int, const std::string&) {
        });
  });
}

// CodedInputStream is not movable: callers construct one in place.
void Configure(CodedInputStream& in) {
  in.SetTotalBytesLimit(INT_MAX);
  in.SetRecursionLimit(kMaxDepth);
}
const uint8_t* Data(std::string_view bytes) {
  return reinterpret_cast<const uint8_t*>(bytes.data());
}

bool ParseExactly(std::string_view bytes, Message* message) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) return false;
  CodedInputStream in(Data(bytes), static_cast<int>(bytes.size()));
  Configure(in);
  return message->ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

// ------------------------------------------------------------ wire walk --

struct WireError {
  bool ok = true;
  int64_t offset = 0;
  std::string message;
};

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
            return Fail(at, absl::StrCat("field ", field_number,
                                         ": truncated varint"));
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
            return Fail(at, absl::StrCat("field ", field_number,
                                         ": truncated length"));
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
            return Fail(at, absl::StrCat("field ", field_number, ": length ",
                                         length, " runs past the end (",
                                         left, " bytes left)"));
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

WireError WalkWire(std::string_view bytes, const Descriptor* descriptor) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return {false, 0, "message is 2 GiB or larger"};
  }
  WireWalker walker(bytes);
  walker.Walk(descriptor, static_cast<int64_t>(bytes.size()), 0, 0);
  return walker.error();
}

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

bool PrescreenClean(std::string_view bytes, const Descriptor* descriptor,
                    int depth) {
  CodedInputStream in(Data(bytes), static_cast<int>(bytes.size()));
  Configure(in);
  absl::flat_hash_map<int, int> visits;  // field -> sub-messages checked
  while (in.CurrentPosition() < static_cast<int>(bytes.size())) {
    uint32_t tag = 0;
    if (!in.ReadVarint32(&tag) || (tag >> 3) == 0) return false;
    const FieldDescriptor* field = descriptor->FindFieldByNumber(tag >> 3);
    const int wire_type = static_cast<int>(tag & 7);
    if (!field || !WireTypeFits(field, wire_type)) return false;
    uint64_t value;
    switch (wire_type) {
      case 0:
        if (!in.ReadVarint64(&value)) return false;
        break;
      case 1:
        if (!in.Skip(8)) return false;
        break;
      case 5:
        if (!in.Skip(4)) return false;
        break;
      case 2: {
        if (!in.ReadVarint64(&value) ||
            value > bytes.size() - in.CurrentPosition()) {
          return false;
        }
        const int start = in.CurrentPosition();
        if (field->type() == FieldDescriptor::TYPE_MESSAGE && depth > 0 &&
            visits[field->number()]++ < 2 &&
            !PrescreenClean(bytes.substr(start, value), field->message_type(),
                            depth - 1)) {
          return false;
        }
        if (!in.Skip(static_cast<int>(value))) return false;
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

bool HasTopLevelField(std::string_view bytes, uint32_t number) {
  CodedInputStream in(Data(bytes), static_cast<int>(bytes.size()));
  Configure(in);
  while (in.CurrentPosition() < static_cast<int>(bytes.size())) {
    uint32_t tag = 0;
    if (!in.ReadVarint32(&tag)) return false;
    if ((tag >> 3) == number) return true;
    uint64_t value;
    switch (tag & 7) {
      case 0: if (!in.ReadVarint64(&value)) return false; break;
      case 1: if (!in.Skip(8)) return false; break;
      case 5: if (!in.Skip(4)) return false; break;
      case 2:
        if (!in.ReadVarint64(&value) || value > INT_MAX ||
            !in.Skip(static_cast<int>(value))) {
          return false;
        }
        break;
      default: return false;
    }
  }
  return false;
}

// --------------------------------------------------------- plausibility --

// Unknown fields down to `depth` levels: a message of the wrong type parses
// "successfully" but leaves its bytes as unknown fields.
int64_t CountUnknownFields(const Message& message, int depth) {
  const google::protobuf::Reflection* reflection = message.GetReflection();
  int64_t count = reflection->GetUnknownFields(message).field_count();
  if (depth <= 0) return count;
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      const int n = reflection->FieldSize(message, field);
      for (int i = 0; i < n; ++i) {
        count += CountUnknownFields(
            reflection->GetRepeatedMessage(message, field, i), depth - 1);
      }
    } else {
      count += CountUnknownFields(reflection->GetMessage(message, field),
                                  depth - 1);
    }
  }
  return count;
}

bool PlausibleLiteral(const xla::LiteralProto& literal) {
  if (!literal.has_shape()) return false;
  const int type = literal.shape().element_type();
  return type != xla::PRIMITIVE_TYPE_INVALID;
}

bool PlausibleModule(const xla::HloModuleProto& module) {
  if (module.computations_size() == 0) return false;
  for (const auto& computation : module.computations()) {
    if (computation.name().empty()) return false;
    for (const auto& instruction : computation.instructions()) {
      if (instruction.opcode().empty()) return false;
    }
  }
  return true;
}

bool AllPlausible(const google::protobuf::RepeatedPtrField<xla::LiteralProto>&
                      literals) {
  for (const auto& literal : literals) {
    if (!PlausibleLiteral(literal)) return false;
  }
  return true;
}

// A candidate decoding: the message, whether its key fields are there, and
// how many unknown fields it left.
struct Candidate {
  ProtoKind kind;
  std::unique_ptr<Message> message;
  bool plausible = false;
  int64_t unknown = 0;
};

bool IsPlausible(ProtoKind kind, const Message& message) {
  switch (kind) {
    case ProtoKind::kHloSnapshot: {
      const auto& m = static_cast<const xla::HloSnapshot&>(message);
      const bool module =
          m.has_hlo() && m.hlo().has_hlo_module() &&
          PlausibleModule(m.hlo().hlo_module());
      const bool literals =
          (m.arguments_size() > 0 || m.has_result()) &&
          AllPlausible(m.arguments()) &&
          (!m.has_result() || PlausibleLiteral(m.result()));
      if (m.has_hlo() && !module) return false;
      // A platform name ("Host", "CUDA"); a LiteralProto read as this
      // string (RunHloModuleIterationLiterals field 4) is not one.
      for (char c : m.execution_platform()) {
        if (c < 0x20 || c > 0x7e) return false;
      }
      return module || literals;
    }
    case ProtoKind::kHloUnoptimizedSnapshot: {
      const auto& m = static_cast<const xla::HloUnoptimizedSnapshot&>(message);
      if (m.has_hlo_module() && !PlausibleModule(m.hlo_module())) return false;
      bool any_argument = false;
      for (const auto& partition : m.partitions()) {
        if (!AllPlausible(partition.arguments())) return false;
        any_argument |= partition.arguments_size() > 0;
      }
      // Without partitions it is wire-identical to an HloProto holding only
      // a module; that reading is the more likely one (tried next).
      return m.partitions_size() > 0 &&
             (m.has_hlo_module() || any_argument);
    }
    case ProtoKind::kHloProto: {
      const auto& m = static_cast<const xla::HloProto&>(message);
      return m.has_hlo_module() && PlausibleModule(m.hlo_module());
    }
    case ProtoKind::kHloModuleProto:
      return PlausibleModule(static_cast<const xla::HloModuleProto&>(message));
    case ProtoKind::kRunHloModuleIterationLiterals: {
      const auto& m =
          static_cast<const xla::RunHloModuleIterationLiterals&>(message);
      if (m.arguments_size() == 0 && !m.has_result() &&
          !m.has_reference_result()) {
        return false;
      }
      return AllPlausible(m.arguments()) &&
             (!m.has_result() || PlausibleLiteral(m.result())) &&
             (!m.has_reference_result() ||
              PlausibleLiteral(m.reference_result()));
    }
    case ProtoKind::kChunkedHloUnoptimizedSnapshot:
      break;
  }
  return false;
}

// A new message of the kind, on `arena` when given (then the arena owns
// it), else on the heap (then the caller does).
Message* NewMessage(ProtoKind kind, google::protobuf::Arena* arena = nullptr) {
  using google::protobuf::Arena;
  switch (kind) {
    case ProtoKind::kHloSnapshot:
      return Arena::CreateMessage<xla::HloSnapshot>(arena);
    case ProtoKind::kHloUnoptimizedSnapshot:
    case ProtoKind::kChunkedHloUnoptimizedSnapshot:
      return Arena::CreateMessage<xla::HloUnoptimizedSnapshot>(arena);
    case ProtoKind::kHloProto:
      return Arena::CreateMessage<xla::HloProto>(arena);
    case ProtoKind::kHloModuleProto:
      return Arena::CreateMessage<xla::HloModuleProto>(arena);
    case ProtoKind::kRunHloModuleIterationLiterals:
      return Arena::CreateMessage<xla::RunHloModuleIterationLiterals>(arena);
  }
  return nullptr;
}

void AddLiterals(const google::protobuf::RepeatedPtrField<xla::LiteralProto>&
                     literals,
                 std::string_view prefix, DecodedProto* out) {
  for (int i = 0; i < literals.size(); ++i) {
    out->literals.push_back(
        LabeledLiteral{absl::StrCat(ToAbsl(prefix), "argument ", i), literals[i], -1});
  }
}

// Moves the decoded message's contents into the result.
void Extract(ProtoKind kind, Message& message, DecodedProto* out) {
  switch (kind) {
    case ProtoKind::kHloSnapshot: {
      auto& m = static_cast<xla::HloSnapshot&>(message);
      if (m.hlo().has_hlo_module()) {
        out->module = m.mutable_hlo()->mutable_hlo_module();
      }
      AddLiterals(m.arguments(), "", out);
      if (m.has_result()) out->literals.push_back({"result", m.result(), -1});
      out->execution_platform = m.execution_platform();
      break;
    }
    case ProtoKind::kHloUnoptimizedSnapshot:
    case ProtoKind::kChunkedHloUnoptimizedSnapshot: {
      auto& m = static_cast<xla::HloUnoptimizedSnapshot&>(message);
      if (m.has_hlo_module()) out->module = m.mutable_hlo_module();
      for (int p = 0; p < m.partitions_size(); ++p) {
        AddLiterals(m.partitions(p).arguments(),
                    m.partitions_size() > 1 ? absl::StrCat("partition ", p, " ")
                                            : std::string(),
                    out);
      }
      break;
    }
    case ProtoKind::kHloProto: {
      auto& m = static_cast<xla::HloProto&>(message);
      out->module = m.mutable_hlo_module();
      break;
    }
    case ProtoKind::kHloModuleProto:
      out->module = static_cast<xla::HloModuleProto*>(&message);
      break;
    case ProtoKind::kRunHloModuleIterationLiterals: {
      auto& m = static_cast<xla::RunHloModuleIterationLiterals&>(message);
      AddLiterals(m.arguments(), "", out);
      if (m.has_result()) out->literals.push_back({"result", m.result(), -1});
      if (m.has_reference_result()) {
        out->literals.push_back({"reference result", m.reference_result(), -1});
      }
      break;
    }
  }
}

// ------------------------------------------------- chunked snapshots --

// Raw little-endian data of a static dense array, as XLA's
// Literal::Serialize writes it, copied into the LiteralProto field of its
// type. False when we cannot be sure of the layout (sub-byte, dynamic,
// tuple, size mismatch): the caller then prints the shape only.
bool FillLiteralFromRaw(std::string_view data, xla::LiteralProto* literal) {
  const xla::ShapeProto& shape = literal->shape();
  if (shape.tuple_shapes_size() > 0) return false;
  for (bool dynamic : shape.is_dynamic_dimension()) {
    if (dynamic) return false;
  }
  uint64_t count = 1;
  for (int64_t d : shape.dimensions()) {
    if (d < 0 || (d > 0 && count > UINT64_MAX / static_cast<uint64_t>(d))) {
      return false;
    }
    count *= static_cast<uint64_t>(d);
  }
  auto copy_bytes = [&](size_t width, std::string* field) {
    if (count > data.size() / width || count * width != data.size()) {
      return false;
    }
    field->assign(data);
    return true;
  };
  auto copy_repeated = [&](size_t width, auto* field) {
    using T = typename std::remove_pointer_t<decltype(field)>::value_type;
    if (count > data.size() / width || count * width != data.size()) {
      return false;
    }
    field->Resize(static_cast<int>(count * (sizeof(T) == width ? 1 : 2)), T());
    std::memcpy(field->mutable_data(), data.data(), data.size());
    return true;
  };
  switch (shape.element_type()) {
    case xla::PRED:
      if (count != data.size()) return false;
      for (char c : data) literal->add_preds(c != 0);
      return true;
    case xla::S8: return copy_bytes(1, literal->mutable_s8s());
    case xla::U8: return copy_bytes(1, literal->mutable_u8s());
    case xla::S16: return copy_bytes(2, literal->mutable_s16s());
    case xla::U16: return copy_bytes(2, literal->mutable_u16s());
    case xla::F16: return copy_bytes(2, literal->mutable_f16s());
    case xla::BF16: return copy_bytes(2, literal->mutable_bf16s());
    case xla::F8E5M2: return copy_bytes(1, literal->mutable_f8e5m2s());
    case xla::F8E4M3: return copy_bytes(1, literal->mutable_f8e4m3s());
    case xla::F8E4M3FN: return copy_bytes(1, literal->mutable_f8e4m3fns());
    case xla::F8E4M3B11FNUZ:
      return copy_bytes(1, literal->mutable_f8e4m3b11fnuzs());
    case xla::F8E3M4: return copy_bytes(1, literal->mutable_f8e3m4s());
    case xla::F8E5M2FNUZ: return copy_bytes(1, literal->mutable_f8e5m2fnuzs());
    case xla::F8E4M3FNUZ: return copy_bytes(1, literal->mutable_f8e4m3fnuzs());
    case xla::F8E8M0FNU: return copy_bytes(1, literal->mutable_f8e8m0fnus());
    case xla::S32: return copy_repeated(4, literal->mutable_s32s());
    case xla::U32: return copy_repeated(4, literal->mutable_u32s());
    case xla::S64: return copy_repeated(8, literal->mutable_s64s());
    case xla::U64: return copy_repeated(8, literal->mutable_u64s());
    case xla::F32: return copy_repeated(4, literal->mutable_f32s());
    case xla::F64: return copy_repeated(8, literal->mutable_f64s());
    case xla::C64: return copy_repeated(8, literal->mutable_c64s());
    case xla::C128: return copy_repeated(16, literal->mutable_c128s());
    default:
      return false;
  }
}

// Layout (xla/runtime/large_hlo_snapshot_serialization): a varint-delimited
// HloUnoptimizedSnapshot whose partitions carry only argument descriptors,
// then each argument as Literal::Serialize output (u64 LE shape size,
// ShapeProto, data), argument_size_bytes each. nullopt when the bytes are
// not in that format; an error when they clearly are but are damaged.
std::optional<absl::StatusOr<DecodedProto>> TryChunked(std::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) return std::nullopt;
  CodedInputStream in(Data(bytes), static_cast<int>(bytes.size()));
  Configure(in);
  uint64_t length = 0;
  if (!in.ReadVarint64(&length)) return std::nullopt;
  const uint64_t header = static_cast<uint64_t>(in.CurrentPosition());
  if (length == 0 || length > bytes.size() - header) return std::nullopt;
  auto metadata = std::make_shared<xla::HloUnoptimizedSnapshot>();
  if (!ParseExactly(bytes.substr(header, length), metadata.get())) {
    return std::nullopt;
  }
  if (!metadata->has_hlo_module() ||
      !PlausibleModule(metadata->hlo_module()) ||
      metadata->partitions_size() == 0 ||
      CountUnknownFields(*metadata, 3) != 0) {
    return std::nullopt;
  }
  uint64_t expected = 0;
  for (const auto& partition : metadata->partitions()) {
    if (partition.arguments_size() > 0) return std::nullopt;
    for (const auto& descriptor : partition.arguments_descriptors()) {
      if (descriptor.argument_size_bytes() > bytes.size()) return std::nullopt;
      expected += descriptor.argument_size_bytes();
    }
  }
  if (metadata->version() > 0) {
    return absl::StatusOr<DecodedProto>(absl::UnimplementedError(absl::StrCat(
        "XLA chunked HloUnoptimizedSnapshot version ", metadata->version(),
        " is newer than this reader (version 0)")));
  }
  const uint64_t rest = bytes.size() - header - length;
  if (rest != expected) {
    return absl::StatusOr<DecodedProto>(absl::DataLossError(absl::StrCat(
        "XLA chunked HloUnoptimizedSnapshot (large-snapshot format): the "
        "metadata announces ",
        expected, " bytes of argument data after byte ", header + length,
        " but ", rest, " follow", rest < expected ? " (truncated file?)" : "")));
  }
  DecodedProto out;
  out.kind = ProtoKind::kChunkedHloUnoptimizedSnapshot;
  uint64_t offset = header + length;
  const int partitions = metadata->partitions_size();
  for (int p = 0; p < partitions; ++p) {
    const auto& descriptors = metadata->partitions(p).arguments_descriptors();
    for (int i = 0; i < descriptors.size(); ++i) {
      const uint64_t size = descriptors[i].argument_size_bytes();
      std::string_view chunk = bytes.substr(offset, size);
      LabeledLiteral labeled;
      labeled.label = absl::StrCat(
          partitions > 1 ? absl::StrCat("partition ", p, " ") : "",
          "argument ", i);
      labeled.raw_bytes = static_cast<int64_t>(size);
      uint64_t shape_size = 0;
      if (chunk.size() < 8) {
        return absl::StatusOr<DecodedProto>(absl::DataLossError(absl::StrCat(
            "chunked snapshot: ", labeled.label, " at byte ", offset,
            " is too short for its shape header")));
      }
      for (int b = 7; b >= 0; --b) {
        shape_size = (shape_size << 8) | static_cast<uint8_t>(chunk[b]);
      }
      if (shape_size > chunk.size() - 8 ||
          !ParseExactly(chunk.substr(8, shape_size),
                        labeled.literal.mutable_shape())) {
        return absl::StatusOr<DecodedProto>(absl::DataLossError(absl::StrCat(
            "chunked snapshot: ", labeled.label, " at byte ", offset,
            " has an unreadable shape")));
      }
      if (FillLiteralFromRaw(chunk.substr(8 + shape_size), &labeled.literal)) {
        labeled.raw_bytes = -1;
      }
      out.literals.push_back(std::move(labeled));
      offset += size;
    }
  }
  out.module = metadata->mutable_hlo_module();
  out.storage = std::move(metadata);
  return absl::StatusOr<DecodedProto>(std::move(out));
}

}  // namespace

std::string_view ProtoKindName(ProtoKind kind) {
  switch (kind) {
    case ProtoKind::kHloSnapshot: return "HloSnapshot";
    case ProtoKind::kHloUnoptimizedSnapshot: return "HloUnoptimizedSnapshot";
    case ProtoKind::kChunkedHloUnoptimizedSnapshot:
      return "HloUnoptimizedSnapshot (chunked large-snapshot format)";
    case ProtoKind::kHloProto: return "HloProto";
    case ProtoKind::kHloModuleProto: return "HloModuleProto";
    case ProtoKind::kRunHloModuleIterationLiterals:
      return "RunHloModuleIterationLiterals";
  }
  return "?";
}

bool IsGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<uint8_t>(bytes[0]) == 0x1f &&
         static_cast<uint8_t>(bytes[1]) == 0x8b;
}

bool StartsWithHloModule(std::string_view bytes) {
  const size_t first = bytes.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos &&
         bytes.substr(first, 9) == "HloModule";
}

bool LooksLikeBinaryProto(std::string_view bytes) {
  if (IsGzip(bytes)) return true;
  const size_t n = std::min<size_t>(bytes.size(), 64 * 1024);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t c = static_cast<uint8_t>(bytes[i]);
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f') {
      return true;
    }
  }
  return false;
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
      status = absl::DataLossError(absl::StrCat(
          "gzip stream is truncated after ", bytes.size(),
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

absl::StatusOr<DecodedProto> DecodeTextFormatProto(std::string_view text) {
  SilenceProtobufLogs();
  if (text.size() > static_cast<size_t>(INT_MAX)) {
    return absl::ResourceExhaustedError("text proto is 2 GiB or larger");
  }
  std::vector<ProtoKind> order = {
      ProtoKind::kHloSnapshot, ProtoKind::kHloUnoptimizedSnapshot,
      ProtoKind::kHloProto, ProtoKind::kHloModuleProto,
      ProtoKind::kRunHloModuleIterationLiterals};
  // XLA's text protos often name their type in a `# proto-message: X`
  // header; several types share field names, so that one goes first.
  const size_t header = text.find("# proto-message:");
  if (header != std::string_view::npos && header < 4096) {
    std::string_view rest = text.substr(header + 16);
    rest = rest.substr(0, rest.find('\n'));
    for (size_t k = 0; k < order.size(); ++k) {
      if (rest.find(ProtoKindName(order[k])) != std::string_view::npos &&
          rest.find(ProtoKindName(order[k])) + ProtoKindName(order[k]).size() ==
              rest.find_last_not_of(" \r\t") + 1) {
        std::rotate(order.begin(), order.begin() + k, order.begin() + k + 1);
        break;
      }
    }
  }
  for (ProtoKind kind : order) {
    auto arena = std::make_shared<google::protobuf::Arena>();
    Message* message = NewMessage(kind, arena.get());
    google::protobuf::TextFormat::Parser parser;
    parser.SetRecursionLimit(kMaxDepth);
    if (!parser.ParseFromString(std::string(text), message)) continue;
    if (!IsPlausible(kind, *message)) continue;
    DecodedProto out;
    out.kind = kind;
    Extract(kind, *message, &out);
    out.storage = std::move(arena);
    return out;
  }
  return absl::InvalidArgumentError(
      "not a text-format HloSnapshot, HloUnoptimizedSnapshot, HloProto, "
      "HloModuleProto or RunHloModuleIterationLiterals");
}

absl::Status CheckWireFormat(std::string_view bytes,
                             const Descriptor* descriptor) {
  WireError error = WalkWire(bytes, descriptor);
  if (error.ok) return absl::OkStatus();
  return absl::DataLossError(
      absl::StrCat("at byte ", error.offset, ": ", error.message));
}

absl::StatusOr<DecodedProto> DecodeProto(std::string_view bytes,
                                         const DecodeOptions& options) {
  SilenceProtobufLogs();
  const size_t limit = std::min<size_t>(options.max_bytes, INT_MAX);
  std::string inflated;
  bool gzipped = false;
  if (IsGzip(bytes)) {
    absl::StatusOr<std::string> data = Gunzip(bytes, limit);
    if (!data.ok()) return data.status();
    inflated = *std::move(data);
    bytes = inflated;
    gzipped = true;
  }
  if (bytes.size() > limit) {
    return absl::ResourceExhaustedError(
        absl::StrCat("proto is ", bytes.size(), " bytes; the limit is ", limit,
                     " (protobuf cannot parse 2 GiB or more)"));
  }
  if (bytes.empty()) return absl::InvalidArgumentError("the file is empty");

  // The chunked format starts with a length prefix, never a valid first
  // field of the plain messages' usual content, and is checked exactly.
  if (auto chunked = TryChunked(bytes)) {
    if (chunked->ok()) (*chunked)->gzipped = gzipped;
    return *std::move(chunked);
  }

  constexpr ProtoKind kOrder[] = {
      ProtoKind::kHloSnapshot, ProtoKind::kHloUnoptimizedSnapshot,
      ProtoKind::kHloProto, ProtoKind::kHloModuleProto,
      ProtoKind::kRunHloModuleIterationLiterals};
  // Fast path: the first kind whose wire format fits cleanly and whose
  // parse is plausible. Parsing every candidate of a 1 GB proto would cost
  // seconds each.
  // An arena makes parsing and freeing millions of small messages cheap.
  for (ProtoKind kind : kOrder) {
    auto arena = std::make_shared<google::protobuf::Arena>();
    Message* message = NewMessage(kind, arena.get());
    if (!PrescreenClean(bytes, message->GetDescriptor(), 4)) continue;
    // Without partitions (field 2) an unoptimized snapshot reads the same as
    // an HloProto and would be judged implausible after a full parse.
    if (kind == ProtoKind::kHloUnoptimizedSnapshot &&
        !HasTopLevelField(bytes, 2)) {
      continue;
    }
    if (!ParseExactly(bytes, message)) continue;
    if (!IsPlausible(kind, *message)) continue;
    DecodedProto out;
    out.kind = kind;
    out.gzipped = gzipped;
    Extract(kind, *message, &out);
    out.storage = std::move(arena);
    return out;
  }

  // Slow path (newer XLA fields, odd files): parse every candidate and
  // prefer the one with the fewest unknown fields.
  std::vector<Candidate> parsed;
  for (ProtoKind kind : kOrder) {
    Candidate candidate{kind, std::unique_ptr<Message>(NewMessage(kind))};
    if (!ParseExactly(bytes, candidate.message.get())) continue;
    candidate.plausible = IsPlausible(kind, *candidate.message);
    if (!candidate.plausible) continue;
    candidate.unknown = CountUnknownFields(*candidate.message, 4);
    parsed.push_back(std::move(candidate));
    // A clean decoding (every field known) wins outright.
    if (parsed.back().unknown == 0) break;
  }
  if (!parsed.empty()) {
    // First clean candidate, else the one with the fewest unknown fields
    // (a newer XLA adds fields; a wrong type leaves many).
    Candidate* best = &parsed[0];
    for (Candidate& c : parsed) {
      if (c.unknown < best->unknown) best = &c;
    }
    DecodedProto out;
    out.kind = best->kind;
    out.gzipped = gzipped;
    out.unknown_fields = best->unknown;
    Extract(best->kind, *best->message, &out);
    out.storage = std::shared_ptr<Message>(std::move(best->message));
    return out;
  }

  // Nothing decoded: find where the wire format breaks, reading it as each
  // candidate in turn and reporting the one that got furthest.
  WireError furthest;
  furthest.offset = -1;
  ProtoKind furthest_kind = kOrder[0];
  for (ProtoKind kind : kOrder) {
    std::unique_ptr<Message> message(NewMessage(kind));
    WireError error = WalkWire(bytes, message->GetDescriptor());
    if (error.ok) continue;
    if (error.offset > furthest.offset) {
      furthest = error;
      furthest_kind = kind;
    }
  }
  const std::string prefix = gzipped ? "gzip'ed data is not" : "not";
  if (furthest.offset >= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        prefix, " a valid HLO proto: at byte ", furthest.offset, " of ",
        bytes.size(), ": ", furthest.message, " (read as xla.",
        ToAbsl(ProtoKindName(furthest_kind)), ")"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      prefix,
      " a known HLO proto: the bytes are well-formed protobuf but none of "
      "HloSnapshot, HloUnoptimizedSnapshot, HloProto, HloModuleProto or "
      "RunHloModuleIterationLiterals has its expected fields"));
}

}  // namespace hlo::proto
