// Hollowing a proto for the deferred decode: the messages that lead to a
// module (snapshot, HloProto, module, computation) are copied with their
// lengths rewritten, every computation's instructions (and program shape)
// left out and noted by their wire bytes; everything else is copied as it is.
// Parsing the hollow copy is cheap, and the printer parses the instructions one
// at a time.
#include <algorithm>
#include <climits>
#include <iterator>

#include "google/protobuf/io/coded_stream.h"
#include "hlo/proto/decode_internal.h"
#include "hlo/proto/wire_reader.h"

namespace hlo::proto::decode_internal {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::io::CodedOutputStream;

void AppendVarint(uint64_t value, std::string* out) {
  uint8_t buffer[10];
  const uint8_t* end = CodedOutputStream::WriteVarint64ToArray(value, buffer);
  out->append(reinterpret_cast<const char*>(buffer), end - buffer);
}

// A nested message's length, as a varint of exactly five bytes (its copy
// is under 2 GiB: the input is).
constexpr size_t kLengthBytes = 5;
void PutPaddedLength(size_t length, char* at) {
  for (size_t i = 0; i < kLengthBytes; ++i) {
    const uint8_t low = static_cast<uint8_t>((length >> (7 * i)) & 0x7f);
    at[i] = static_cast<char>(i + 1 < kLengthBytes ? low | 0x80 : low);
  }
}

// The messages on the way from an outer message to the instructions.
bool OnPath(const Descriptor* d) {
  static const Descriptor* const path[] = {
      xla::HloSnapshot::descriptor(), xla::HloUnoptimizedSnapshot::descriptor(),
      xla::HloProto::descriptor(), xla::HloModuleProto::descriptor(),
      xla::HloComputationProto::descriptor()};
  return std::find(std::begin(path), std::end(path), d) != std::end(path);
}

class Hollower {
 public:
  explicit Hollower(DecodedProto* out)
      : deferred_(out->deferred_instructions),
        shapes_(out->deferred_program_shapes),
        instruction_depth_(out->instruction_depth) {}

  bool Copy(std::string_view bytes, const Descriptor* d, int depth,
            std::string* out) {
    if (depth >= kMaxDepth) return false;
    static const Descriptor* const computation_type =
        xla::HloComputationProto::descriptor();
    const bool computation = d == computation_type;
    if (computation) {
      deferred_.emplace_back();
      shapes_.emplace_back();
      // Instructions take 40 bytes and more: room enough, mostly.
      deferred_.back().reserve(bytes.size() / 40);
    }
    wire::Field f;
    for (size_t pos = 0; pos < bytes.size();) {
      const size_t at = pos;
      // Groups are not in these messages: the whole parse judges them.
      if (!wire::ReadField(bytes, &pos, &f)) return false;
      // A computation's instructions (2) and program shape (4): most of the
      // fields, left out of the copy without a descriptor lookup.
      if (computation && (f.number == 2 || f.number == 4) &&
          f.type == wire::kLengthDelimited) {
        (f.number == 2 ? deferred_ : shapes_).back().push_back(f.data);
        instruction_depth_ = depth + 1;
        continue;
      }
      const FieldDescriptor* field = d->FindFieldByNumber(f.number);
      const Descriptor* type =
          field && field->type() == FieldDescriptor::TYPE_MESSAGE
              ? field->message_type()
              : nullptr;
      if (type && f.type == wire::kLengthDelimited) {
        if (OnPath(type)) {
          // Copied in place behind a length of five bytes, filled in after:
          // a varint may carry redundant 0x80 bytes, and the parse reads
          // it as any other (no copy of each nested message's copy).
          AppendVarint((uint64_t{f.number} << 3) | wire::kLengthDelimited, out);
          const size_t length_at = out->size();
          out->append(kLengthBytes, '\0');
          if (!Copy(f.data, type, depth + 1, out)) return false;
          PutPaddedLength(out->size() - length_at - kLengthBytes,
                          out->data() + length_at);
          continue;
        }
      } else if (type && OnPath(type)) {
        return false;  // a message on the path with another wire type
      }
      // Any other field is copied as it is.
      out->append(bytes.substr(at, pos - at));
    }
    return true;
  }

 private:
  std::vector<std::vector<std::string_view>>& deferred_;
  std::vector<std::vector<std::string_view>>& shapes_;
  int& instruction_depth_;
};

}  // namespace

bool HollowInstructions(std::string_view bytes, const Descriptor* descriptor,
                        std::string* hollow, DecodedProto* out) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) return false;
  hollow->clear();
  // About the input's size at most (instructions left out, lengths of
  // five bytes in): reserved, it seldom moves; untouched, it costs nothing.
  hollow->reserve(bytes.size() + 64);
  return Hollower(out).Copy(bytes, descriptor, 0, hollow);
}

}  // namespace hlo::proto::decode_internal
