// The decoder's shared parts (decode.cc, decode_wire.cc, decode_chunked.cc),
// not for other users: protobuf stream set-up, the plausibility tests of a
// parsed message, the wire-format walk and prescreen, and the chunked
// large-snapshot reader.
#ifndef HLO_LSP_HLO_PROTO_DECODE_INTERNAL_H_
#define HLO_LSP_HLO_PROTO_DECODE_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/message.h"
#include "hlo/proto/decode.h"
#include "hlo/proto/hlo.pb.h"

namespace hlo::proto::decode_internal {

inline constexpr int kMaxDepth = 100;  // protobuf's own default recursion limit

// CodedInputStream is not movable: callers construct one in place.
void Configure(google::protobuf::io::CodedInputStream& in);
const uint8_t* Data(std::string_view bytes);
// Parses all of `bytes` as `message`.
bool ParseExactly(std::string_view bytes, google::protobuf::Message* message);

// Unknown fields down to `depth` levels: a message of the wrong type parses
// "successfully" but leaves its bytes as unknown fields.
int64_t CountUnknownFields(const google::protobuf::Message& message, int depth);
// Computations are named and instructions have opcodes.
bool PlausibleModule(const xla::HloModuleProto& module);

// decode_wire.cc: where the wire format of `bytes`, read as `descriptor`,
// first breaks.
struct WireError {
  bool ok = true;
  int64_t offset = 0;
  std::string message;
};
WireError WalkWire(std::string_view bytes,
                   const google::protobuf::Descriptor* descriptor);
// A cheap look at the wire format as `descriptor`: every field must be one
// the schema knows, with the wire type its declaration implies; sub-messages
// are checked `depth` levels deep on their first occurrences only. A clean
// prescreen lets the decoder parse one candidate instead of all of them.
bool PrescreenClean(std::string_view bytes,
                    const google::protobuf::Descriptor* descriptor, int depth);
// Whether field `number` occurs at the top level of `bytes`.
bool HasTopLevelField(std::string_view bytes, uint32_t number);

// decode_defer.cc: copies `bytes`, read as `descriptor`, leaving out the
// instructions and program shapes of every HloComputationProto on the way
// to the module; their bytes go to `out`'s deferred_instructions and
// deferred_program_shapes (a list per computation, in wire order) and their
// nesting depth to its instruction_depth. False when the wire format along
// that path is not sound (the caller then parses the bytes whole).
bool HollowInstructions(std::string_view bytes,
                        const google::protobuf::Descriptor* descriptor,
                        std::string* hollow, DecodedProto* out);

// decode_chunked.cc: XLA's chunked large-snapshot format. nullopt when the
// bytes are not in that format; an error when they clearly are but are
// damaged.
std::optional<absl::StatusOr<DecodedProto>> TryChunked(std::string_view bytes);

}  // namespace hlo::proto::decode_internal

#endif  // HLO_LSP_HLO_PROTO_DECODE_INTERNAL_H_
