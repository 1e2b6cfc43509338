// Hollowing a proto for the deferred decode: the messages that lead to a
// module (snapshot, HloProto, module, computation) are copied with their
// lengths rewritten, every computation's instructions (and program shape)
// left out and noted by their wire bytes; everything else is copied as it is.
// Parsing the hollow copy is cheap, and the printer parses the instructions one
// at a time.
#include <climits>

#include "google/protobuf/io/coded_stream.h"
#include "hlo/proto/decode_internal.h"

namespace hlo::proto::decode_internal {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

void AppendVarint(uint64_t value, std::string* out) {
  uint8_t buffer[10];
  const uint8_t* end = CodedOutputStream::WriteVarint64ToArray(value, buffer);
  out->append(reinterpret_cast<const char*>(buffer), end - buffer);
}

// The messages on the way from an outer message to the instructions.
bool OnPath(const Descriptor* d) {
  return d == xla::HloSnapshot::descriptor() ||
         d == xla::HloUnoptimizedSnapshot::descriptor() ||
         d == xla::HloProto::descriptor() ||
         d == xla::HloModuleProto::descriptor() ||
         d == xla::HloComputationProto::descriptor();
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
    const bool computation = d == xla::HloComputationProto::descriptor();
    if (computation) {
      deferred_.emplace_back();
      shapes_.emplace_back();
    }
    CodedInputStream in(Data(bytes), static_cast<int>(bytes.size()));
    Configure(in);
    while (in.CurrentPosition() < static_cast<int>(bytes.size())) {
      const int at = in.CurrentPosition();
      uint32_t tag = 0;
      if (!in.ReadVarint32(&tag) || (tag >> 3) == 0) return false;
      const FieldDescriptor* field = d->FindFieldByNumber(tag >> 3);
      const bool message = field &&
                           field->type() == FieldDescriptor::TYPE_MESSAGE &&
                           (tag & 7) == 2;
      uint64_t value = 0;
      switch (tag & 7) {
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
          const std::string_view inner =
              bytes.substr(in.CurrentPosition(), value);
          if (!in.Skip(static_cast<int>(value))) return false;
          if (computation && message &&
              (field->number() == 2 || field->number() == 4)) {
            (field->number() == 2 ? deferred_ : shapes_)
                .back()
                .push_back(inner);
            instruction_depth_ = depth + 1;
            continue;  // left out of the copy
          }
          if (message && OnPath(field->message_type())) {
            std::string copy;
            if (!Copy(inner, field->message_type(), depth + 1, &copy)) {
              return false;
            }
            AppendVarint(tag, out);
            AppendVarint(copy.size(), out);
            out->append(copy);
            continue;
          }
          break;
        }
        default:  // groups: not in these messages; parse them whole
          return false;
      }
      // Any other field (or one of these with an odd wire type, which the
      // parse then judges) is copied as it is.
      if (field && field->type() == FieldDescriptor::TYPE_MESSAGE &&
          OnPath(field->message_type()) && (tag & 7) != 2) {
        return false;
      }
      out->append(bytes.substr(at, in.CurrentPosition() - at));
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
  return Hollower(out).Copy(bytes, descriptor, 0, hollow);
}

}  // namespace hlo::proto::decode_internal
