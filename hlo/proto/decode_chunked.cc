// XLA's chunked large-snapshot format (an HloUnoptimizedSnapshot whose
// arguments follow it as raw Literal::Serialize output).
#include <climits>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hlo/proto/decode.h"
#include "hlo/proto/decode_internal.h"

namespace hlo::proto::decode_internal {
namespace {

using google::protobuf::io::CodedInputStream;

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
    case xla::S8:
      return copy_bytes(1, literal->mutable_s8s());
    case xla::U8:
      return copy_bytes(1, literal->mutable_u8s());
    case xla::S16:
      return copy_bytes(2, literal->mutable_s16s());
    case xla::U16:
      return copy_bytes(2, literal->mutable_u16s());
    case xla::F16:
      return copy_bytes(2, literal->mutable_f16s());
    case xla::BF16:
      return copy_bytes(2, literal->mutable_bf16s());
    case xla::F8E5M2:
      return copy_bytes(1, literal->mutable_f8e5m2s());
    case xla::F8E4M3:
      return copy_bytes(1, literal->mutable_f8e4m3s());
    case xla::F8E4M3FN:
      return copy_bytes(1, literal->mutable_f8e4m3fns());
    case xla::F8E4M3B11FNUZ:
      return copy_bytes(1, literal->mutable_f8e4m3b11fnuzs());
    case xla::F8E3M4:
      return copy_bytes(1, literal->mutable_f8e3m4s());
    case xla::F8E5M2FNUZ:
      return copy_bytes(1, literal->mutable_f8e5m2fnuzs());
    case xla::F8E4M3FNUZ:
      return copy_bytes(1, literal->mutable_f8e4m3fnuzs());
    case xla::F8E8M0FNU:
      return copy_bytes(1, literal->mutable_f8e8m0fnus());
    case xla::S32:
      return copy_repeated(4, literal->mutable_s32s());
    case xla::U32:
      return copy_repeated(4, literal->mutable_u32s());
    case xla::S64:
      return copy_repeated(8, literal->mutable_s64s());
    case xla::U64:
      return copy_repeated(8, literal->mutable_u64s());
    case xla::F32:
      return copy_repeated(4, literal->mutable_f32s());
    case xla::F64:
      return copy_repeated(8, literal->mutable_f64s());
    case xla::C64:
      return copy_repeated(8, literal->mutable_c64s());
    case xla::C128:
      return copy_repeated(16, literal->mutable_c128s());
    default:
      return false;
  }
}

// Layout (xla/runtime/large_hlo_snapshot_serialization): a varint-delimited
// HloUnoptimizedSnapshot whose partitions carry only argument descriptors,
// then each argument as Literal::Serialize output (u64 LE shape size,
// ShapeProto, data), argument_size_bytes each. nullopt when the bytes are
// not in that format; an error when they clearly are but are damaged.
}  // namespace

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
  if (!metadata->has_hlo_module() || !PlausibleModule(metadata->hlo_module()) ||
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
        " but ", rest, " follow",
        rest < expected ? " (truncated file?)" : "")));
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
      labeled.label =
          absl::StrCat(partitions > 1 ? absl::StrCat("partition ", p, " ") : "",
                       "argument ", i);
      labeled.raw_bytes = static_cast<int64_t>(size);
      uint64_t shape_size = 0;
      if (chunk.size() < 8) {
        return absl::StatusOr<DecodedProto>(absl::DataLossError(
            absl::StrCat("chunked snapshot: ", labeled.label, " at byte ",
                         offset, " is too short for its shape header")));
      }
      for (int b = 7; b >= 0; --b) {
        shape_size = (shape_size << 8) | static_cast<uint8_t>(chunk[b]);
      }
      if (shape_size > chunk.size() - 8 ||
          !ParseExactly(chunk.substr(8, shape_size),
                        labeled.literal.mutable_shape())) {
        return absl::StatusOr<DecodedProto>(absl::DataLossError(
            absl::StrCat("chunked snapshot: ", labeled.label, " at byte ",
                         offset, " has an unreadable shape")));
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

}  // namespace hlo::proto::decode_internal
