// The printer's fast path for the plainest instructions: most of a module's
// lines carry only a name, an opcode, a shape, an id, operands and a few
// integer lists. Their fields are read straight off the wire bytes into a
// message that holds nothing else; a protobuf parse per instruction was
// half the cost of a conversion. Anything else goes to the full parse.
#include <cstdint>
#include <cstring>

#include "hlo/proto/print_internal.h"
#include "hlo/proto/wire_reader.h"

namespace hlo::proto::internal {
namespace {

// HloInstructionProto's fields the fast path reads.
constexpr uint32_t kLightName = 1, kLightOpcode = 2, kLightShape = 3,
                   kLightParameterNumber = 9, kLightTupleIndex = 13,
                   kLightDimensions = 14, kLightId = 35, kLightOperandIds = 36,
                   kLightControlPredecessorIds = 37,
                   kLightCalledComputationIds = 38;

bool IsAscii(std::string_view s) {
  uint64_t any = 0;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, s.data() + i, 8);
    any |= word;
  }
  for (; i < s.size(); ++i) any |= static_cast<unsigned char>(s[i]);
  return (any & 0x8080808080808080u) == 0;
}

// A repeated int64 field's value: one varint or a packed run.
bool AddInts(const wire::Field& field, RepeatedField<int64_t>* into) {
  if (field.type == wire::kVarint) {
    into->Add(static_cast<int64_t>(field.value));
    return true;
  }
  if (field.type != wire::kLengthDelimited) return false;
  for (size_t at = 0; at < field.data.size();) {
    uint64_t value = 0;
    if (!wire::ReadVarint(field.data, &at, &value)) return false;
    into->Add(static_cast<int64_t>(value));
  }
  return true;
}

}  // namespace

bool DecodeLightInstruction(std::string_view bytes, Instr* into,
                            std::string_view* name, std::string_view* opcode) {
  into->clear_parameter_number();
  into->clear_tuple_index();
  into->clear_id();
  into->clear_dimensions();
  into->clear_operand_ids();
  into->clear_control_predecessor_ids();
  into->clear_called_computation_ids();
  *name = {};
  *opcode = {};
  wire::Field field;
  for (size_t pos = 0; pos < bytes.size();) {
    if (!wire::ReadField(bytes, &pos, &field)) return false;
    switch (field.number) {
      case kLightName:
      case kLightOpcode:
        // A string the parse would refuse (not UTF-8) goes to the parse;
        // names and opcodes are ASCII in practice.
        if (field.type != wire::kLengthDelimited || !IsAscii(field.data)) {
          return false;
        }
        *(field.number == kLightName ? name : opcode) = field.data;
        break;
      case kLightShape:  // the index has it
        if (field.type != wire::kLengthDelimited) return false;
        break;
      case kLightParameterNumber:
      case kLightTupleIndex:
      case kLightId: {
        if (field.type != wire::kVarint) return false;
        const auto value = static_cast<int64_t>(field.value);
        if (field.number == kLightParameterNumber) {
          into->set_parameter_number(value);
        } else if (field.number == kLightTupleIndex) {
          into->set_tuple_index(value);
        } else {
          into->set_id(value);
        }
        break;
      }
      case kLightDimensions:
        if (!AddInts(field, into->mutable_dimensions())) return false;
        break;
      case kLightOperandIds:
        if (!AddInts(field, into->mutable_operand_ids())) return false;
        break;
      case kLightControlPredecessorIds:
        if (!AddInts(field, into->mutable_control_predecessor_ids())) {
          return false;
        }
        break;
      case kLightCalledComputationIds:
        if (!AddInts(field, into->mutable_called_computation_ids())) {
          return false;
        }
        break;
      default:
        return false;
    }
  }
  return true;
}

}  // namespace hlo::proto::internal
