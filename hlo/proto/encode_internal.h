// Private to hlo/proto/encode*.cc: the attribute value readers and the
// Encoder class, whose methods are spread over encode.cc (module,
// computations, instructions), encode_infer.cc (omitted result shapes) and
// encode_attributes.cc (instruction attributes).
#ifndef HLO_LSP_HLO_PROTO_ENCODE_INTERNAL_H_
#define HLO_LSP_HLO_PROTO_ENCODE_INTERNAL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/literal_text.h"
#include "hlo/proto/encode.h"
#include "hlo/proto/hlo.pb.h"
#include "hlo/sharding.h"
#include "hlo/syntax.h"

namespace hlo::proto::internal {

using Instr = xla::HloInstructionProto;
inline constexpr int kMaxShapeDepth = 64;

// ------------------------------------------------ small value readers --
// (encode_values.cc) They read the forms the printer writes (and XLA
// prints); std::string_view throughout (this abseil's StrSplit speaks
// absl::string_view).
std::string_view Trim(std::string_view s);
// Splits on `sep`, keeping empty parts.
std::vector<std::string_view> Split(std::string_view s, char sep);
std::string_view StripBraces(std::string_view s);
bool ReadInt(std::string_view s, int64_t* out);
bool ReadDouble(std::string_view s, double* out);
// "{1,2}" or "1,2" -> {1, 2}.
bool ReadIntList(std::string_view s, std::vector<int64_t>* out);
// "{{0,1},{2,3}}" -> lists.
bool ReadIntListList(std::string_view s,
                     std::vector<std::vector<int64_t>>* out);
// A quoted, C-escaped string.
bool ReadString(std::string_view s, std::string* out);
// A string-or-dict value (backend_config, frontend attribute values).
std::string ReadStringOrDict(std::string_view s);
// "3x3" -> {3, 3}.
bool ReadDxD(std::string_view s, std::vector<int64_t>* out);
// "1_2x0_0_1" -> per dimension {low, high[, interior]}.
bool ReadPads(std::string_view s, std::vector<std::vector<int64_t>>* out);
// Space- or comma-separated `key=value` items inside braces; values may be
// strings or braced lists.
std::vector<std::pair<std::string_view, std::string_view>> ReadKeyValues(
    std::string_view s);
// `{0}: (1, {}), {1}: (0, {1}, may-alias)` items (the braces around the
// whole list stripped first): output index, number, operand index, and the
// words after them.
struct AliasEntry {
  std::vector<int64_t> output_index;
  int64_t number = 0;
  std::vector<int64_t> operand_index;
  std::string_view kind;  // "may-alias", "must-alias" or empty
};
bool ReadAliasEntries(std::string_view s, std::vector<AliasEntry>* out);
// `(0, {}), (1, {2})` buffer donors: parameter number and index.
bool ReadDonorEntries(
    std::string_view s,
    std::vector<std::pair<int64_t, std::vector<int64_t>>>* out);

template <typename Field>
void SetList(const std::vector<int64_t>& values, Field* field) {
  field->Clear();
  for (int64_t v : values) field->Add(v);
}

void EncodeMetadata(std::string_view value, xla::OpMetadata* m);
void EncodeFrontendAttributes(std::string_view value,
                              xla::FrontendAttributes* out);
void EncodeSharding(const HloShardingValue& s, xla::OpSharding* out,
                    int depth = 0);
// `{visualizing_index=1,count_nan=100}`.
bool EncodeStatistics(std::string_view value, xla::StatisticsViz* out);
// `{mode=highest}` or `{tolerance={atol=1e-05,rtol=0,ulps=2}}`.
bool EncodeResultAccuracy(std::string_view value, xla::ResultAccuracy* out);
// `{({"p0"}, {"p1" {1}})}` or `{[synthetic_call]}`, leaves placed by their
// position in the tuple tree.
bool EncodeOriginalValue(std::string_view value, xla::OriginalValueProto* out);

// Literal values (row-major) into the LiteralProto field of the type; the
// shape's layout decides physical order, so non-default layouts are
// re-ordered. False when the value does not fit the shape.
bool FillLiteral(const LiteralValue& value, const xla::ShapeProto& shape,
                 xla::LiteralProto* out, int depth = 0);

// --------------------------------------------------------------- encoder --

// What the encoders of one module share: inline computation bodies
// (`to_apply={...}`) get an encoder of their own writing into the same
// module proto with the same id counters.
struct ModuleState {
  xla::HloModuleProto* out = nullptr;
  int64_t next_computation_id = 1;
  int64_t next_instruction_id = 1;
  absl::flat_hash_set<std::string> computation_names;
  // Parsed inline bodies; kept alive while the module is encoded.
  std::vector<InlineBody> inline_bodies;
};

class Encoder {
 public:
  Encoder(const ParsedFile& file, const Module& module, ModuleState* state)
      : file_(file), module_(module), state_(state) {}

  // The whole module (the top-level encoder).
  absl::StatusOr<xla::HloModuleProto> Encode();

  // The one computation of an inline body, named `name`, appended to the
  // module; returns it (its id and root shape are set).
  absl::StatusOr<const xla::HloComputationProto*> EncodeInline(std::string name,
                                                               bool is_fusion);

 private:
  // An inline body an instruction calls: the attribute key and the
  // encoded computation.
  struct InlineCall {
    std::string_view key;
    const xla::HloComputationProto* computation;
  };

  // encode.cc
  void AssignIds();
  std::string ModuleName() const;
  void EncodeHeaderAttributes(xla::HloModuleProto* out, bool* scheduled);
  void EncodeStackFrames(xla::StackFrameIndexProto* out);
  absl::Status EncodeComputation(Id c, xla::HloComputationProto* out);
  absl::Status EncodeWithNested(Id i, xla::HloComputationProto* out, int depth);
  absl::Status EncodeInstruction(Id i, Instr* out);
  absl::Status EncodeInlineBodies(const Instruction& inst);
  void EncodeCalledComputations(const Instruction& inst, Instr* out);

  // encode_infer.cc
  const xla::ShapeProto* OperandShape(const Operand& operand);
  absl::Status InferShape(const Instruction& inst, Instr* out);
  absl::Status InferStructuralShape(
      const Instruction& inst,
      const std::vector<const xla::ShapeProto*>& operands, Instr* out);
  const xla::ShapeProto* CalledRootShape(const Instruction& inst);

  // encode_attributes.cc
  void EncodeAttribute(const Instruction& inst, std::string_view key,
                       std::string_view value, Instr* out);
  xla::DotDimensionNumbers* DotDims(const Instruction& inst, Instr* out);
  void EncodeReplicaGroups(std::string_view value, Instr* out);
  static void EncodeWindow(std::string_view value, xla::Window* window);
  static void EncodeDimLabels(std::string_view labels,
                              xla::ConvolutionDimensionNumbers* d);
  static void EncodeOutputOperandAliasing(std::string_view value, Instr* out);

  const ParsedFile& file_;
  const Module& module_;
  ModuleState* state_;
  absl::flat_hash_map<Id, int64_t> computation_ids_;
  absl::flat_hash_map<Id, int64_t> instruction_ids_;
  // Names given to computations (inline bodies), by table id.
  absl::flat_hash_map<Id, std::string> computation_names_;
  absl::flat_hash_set<Id> fusion_callees_;
  // Result shapes of encoded instructions (for inference), by table id.
  absl::flat_hash_map<Id, const xla::ShapeProto*> shapes_;
  std::vector<std::unique_ptr<xla::ShapeProto>> inline_shapes_;
  // The inline bodies the instruction being encoded calls.
  std::vector<InlineCall> inline_calls_;
};

}  // namespace hlo::proto::internal

#endif  // HLO_LSP_HLO_PROTO_ENCODE_INTERNAL_H_
