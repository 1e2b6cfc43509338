// The printer's fast path for the plainest instructions: most of a module's
// lines carry only a name, an opcode, a shape, an id, operands and a few
// integer lists. Their fields are read straight off the wire bytes into a
// message that holds nothing else; a protobuf parse per instruction was
// half the cost of a conversion. Anything else goes to the full parse.
#include <cstdint>

#include "base/strings.h"
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

// A varint protobuf's parser surely reads: at most ten bytes, the tenth
// holding only the 64th bit.
bool SoundVarint(std::string_view bytes, size_t* pos) {
  const size_t start = *pos;
  uint64_t value = 0;
  if (!wire::ReadVarint(bytes, pos, &value)) return false;
  return *pos - start < 10 || static_cast<uint8_t>(bytes[*pos - 1]) <= 1;
}

// A scalar of a varint type: one value, or a packed run of them.
bool SoundVarints(std::string_view bytes, size_t at, const wire::Field& f) {
  if (f.type == wire::kVarint) {
    size_t pos = at;
    uint64_t tag = 0;
    wire::ReadVarint(bytes, &pos, &tag);  // read before; cannot fail
    return SoundVarint(bytes, &pos);
  }
  if (f.type != wire::kLengthDelimited) return false;
  for (size_t pos = 0; pos < f.data.size();) {
    if (!SoundVarint(f.data, &pos)) return false;
  }
  return true;
}

enum class WireMessage { kProgramShape, kShape, kLayout, kTile };

// Whether protobuf surely parses `bytes` as the message: every field one
// of the schema's, of its declared wire type, sub-messages alike, strings
// ASCII. False is no verdict: the parse then decides.
bool SurelyParses(std::string_view bytes, WireMessage message, int depth) {
  if (depth > 32) return false;
  wire::Field f;
  for (size_t pos = 0; pos < bytes.size();) {
    const size_t at = pos;
    if (!wire::ReadField(bytes, &pos, &f)) return false;
    const bool delimited = f.type == wire::kLengthDelimited;
    bool sound = false;
    switch (message) {
      case WireMessage::kProgramShape:
        if (f.number == 1 || f.number == 2) {  // parameters, result
          sound =
              delimited && SurelyParses(f.data, WireMessage::kShape, depth + 1);
        } else if (f.number == 3) {  // parameter_names
          sound = delimited && base::IsAscii(f.data);
        }
        break;
      case WireMessage::kShape:
        if (f.number == 2) {  // element_type
          sound = f.type == wire::kVarint && SoundVarints(bytes, at, f);
        } else if (f.number == 3 || f.number == 6) {  // dims, dynamic
          sound = SoundVarints(bytes, at, f);
        } else if (f.number == 4) {  // tuple_shapes
          sound =
              delimited && SurelyParses(f.data, WireMessage::kShape, depth + 1);
        } else if (f.number == 5) {  // layout
          sound = delimited &&
                  SurelyParses(f.data, WireMessage::kLayout, depth + 1);
        }
        break;
      case WireMessage::kLayout:
        switch (f.number) {
          case 1:   // minor_to_major
          case 9:   // dim_level_types
          case 13:  // dim_unique
          case 14:  // dim_ordered
            sound = SoundVarints(bytes, at, f);
            break;
          case 7:   // element_size_in_bits
          case 8:   // memory_space
          case 11:  // index_primitive_type
          case 12:  // pointer_primitive_type
          case 15:  // dynamic_shape_metadata_prefix_bytes
          case 16:  // tail_padding_alignment_in_elements
            sound = f.type == wire::kVarint && SoundVarints(bytes, at, f);
            break;
          case 6:  // tiles
            sound = delimited &&
                    SurelyParses(f.data, WireMessage::kTile, depth + 1);
            break;
          case 10:  // physical_shape
            sound = delimited &&
                    SurelyParses(f.data, WireMessage::kShape, depth + 1);
            break;
        }
        break;
      case WireMessage::kTile:
        sound = f.number == 1 && SoundVarints(bytes, at, f);  // dimensions
        break;
    }
    if (!sound) return false;
  }
  return true;
}

}  // namespace

bool SurelyParsesAsProgramShape(std::string_view bytes) {
  return SurelyParses(bytes, WireMessage::kProgramShape, 0);
}

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
        if (field.type != wire::kLengthDelimited ||
            !base::IsAscii(field.data)) {
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
