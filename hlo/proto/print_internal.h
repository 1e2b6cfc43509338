// Private to hlo/proto/print*.cc: the value printers (print_values.cc) and
// the ModulePrinter, whose methods live in print.cc (module, computations,
// instruction lines, operands) and print_attributes.cc (attributes).
//
// Speed: everything appends to one reserved std::string; each
// instruction's opcode is classified once (OpKind); an instruction's
// `shape %name` operand text is formatted once and reused by every user;
// ids resolve through a per-computation table (dense when the ids are).
#ifndef HLO_LSP_HLO_PROTO_PRINT_INTERNAL_H_
#define HLO_LSP_HLO_PROTO_PRINT_INTERNAL_H_

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "hlo/proto/hlo.pb.h"
#include "hlo/proto/print.h"

namespace hlo::proto::internal {

using Instr = xla::HloInstructionProto;
using google::protobuf::RepeatedField;

// ------------------------------------------------------- value printers --

inline void AppendInt(int64_t value, std::string* out) {
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out->append(buffer, static_cast<size_t>(result.ptr - buffer));
}

template <typename T>
void AppendList(const RepeatedField<T>& values, std::string* out) {
  out->push_back('{');
  for (int i = 0; i < values.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendInt(static_cast<int64_t>(values[i]), out);
  }
  out->push_back('}');
}

// `"..."`, C-escaped as absl::CEscape does.
void AppendQuoted(std::string_view s, std::string* out);
// XLA prints a string that lexes as a JSON dict bare, anything else quoted.
void AppendStringOrDict(std::string_view s, std::string* out);
void AppendLower(std::string_view s, std::string* out);
// `{size=3x3 stride=2x2 pad=0_1x0_1 ...}`.
void AppendWindow(const xla::Window& window, std::string* out);
// b01f_01io->b01f from the dimension numbers ('?' where none is given).
void AppendDimLabels(const xla::ConvolutionDimensionNumbers& d,
                     std::string* out);
void AppendSharding(const xla::OpSharding& s, std::string* out, int depth = 0);
// `{op_type="..." ...}`; false (nothing appended) when XLA would print no
// metadata.
bool AppendMetadata(const xla::OpMetadata& m, std::string* out);
void AppendReplicaGroups(const Instr& in, std::string* out);
// The default comparison type for an element type; XLA prints type= only
// when it differs.
std::string_view DefaultComparisonType(int element_type);

// ----------------------------------------------------------- opcodes --

// The opcodes whose printing differs; everything else is kOther.
enum class OpKind {
  kOther,
  kParameter,
  kConstant,
  kIota,
  kGetTupleElement,
  kSlice,
  kDynamicSlice,
  kPad,
  kCompare,
  kConvolution,
  kDot,
  kRaggedDot,
  kScaledDot,
  kGather,
  kScatter,
  kReduceWindow,
  kSelectAndScatter,
  kFusion,
  kCustomCall,
  kRng,
  kRngBitGenerator,
  kRngGetAndUpdateState,
  kReducePrecision,
  kBatchNorm,
  kFft,
  kTriangularSolve,
  kCholesky,
  kInfeed,
  kOutfeed,
  kSendRecv,
  kCollectivePermute,
  kSort,
  kTopK,
  kCopyStart,
  kDomain,
  kScan,
  kWhile,
  kConditional,
  kAsyncStart,
  kAsyncUpdateDone,
  kCall,
};
struct OpInfo {
  OpKind kind = OpKind::kOther;
  bool collective = false;         // replica_groups= and friends
  bool always_dimensions = false;  // dimensions= even when empty
};
OpInfo ClassifyOpcode(std::string_view opcode);

// ------------------------------------------------------------ printer --

class ModulePrinter {
 public:
  ModulePrinter(const xla::HloModuleProto& module, const PrintOptions& options,
                std::string* out)
      : module_(module), options_(options), out_(*out) {}

  void Print();

 private:
  // print.cc
  void IndexModule();
  void EnterComputation(const xla::HloComputationProto& c);
  void PrintHeader();
  void PrintStackFrames();
  std::vector<const xla::HloComputationProto*> PostOrder();
  void AppendComputationName(int64_t id);
  void PrintComputation(const xla::HloComputationProto& c);
  // Positions of the computation's instructions in printing order.
  std::vector<int> ScheduledOrder(const xla::HloComputationProto& c);
  // The position of instruction `id` in the current computation, or -1.
  int FindLocal(int64_t id) const;
  // Operands resolve in the current computation first, as XLA scopes
  // them, then module-wide (a damaged proto may reach across).
  const Instr* Find(int64_t id);
  void AppendOperand(int64_t id);
  void AppendFrontendAttributes(const xla::FrontendAttributes& attributes);
  void PrintInstruction(int k, bool is_root);

  // print_attributes.cc
  void Key(std::string_view key);
  void Attr(std::string_view key, std::string_view value);
  void AttrInt(std::string_view key, int64_t value);
  void AttrList(std::string_view key, const RepeatedField<int64_t>& values);
  void PrintPrecision(const Instr& in);
  void PrintConvolutionLike(const Instr& in);
  void PrintOutputOperandAliasing(const Instr& in);
  void PrintOpcodeAttributes(const Instr& in, const OpInfo& op);
  void PrintCustomCall(const Instr& in);
  void PrintCalledComputations(const Instr& in, const OpInfo& op);
  void PrintCommonAttributes(const Instr& in);
  void PrintOriginalValue(const Instr& in);

  const xla::HloModuleProto& module_;
  const PrintOptions& options_;
  std::string& out_;
  const xla::HloComputationProto* entry_ = nullptr;
  const xla::HloComputationProto* current_ = nullptr;
  // Computation id -> position in the module.
  absl::flat_hash_map<int64_t, int> computations_;
  // Module-wide id -> instruction (first of a repeated id), built on the
  // first lookup outside the current computation.
  absl::flat_hash_map<int64_t, const Instr*> global_;
  bool global_built_ = false;
  // The current computation's ids -> positions: a dense table when the ids
  // are compact (XLA's and our encoder's are), else a hash map.
  static constexpr int kNoInstruction = -1;
  std::vector<int> local_dense_;
  int64_t local_min_ = 0;
  absl::flat_hash_map<int64_t, int> local_map_;
  // Operand text (`f32[2]{0} %name`) of the current computation's
  // instructions, made on first use (by the line or a user) in
  // operand_texts_.
  struct OperandText {
    size_t offset = 0;
    size_t size = 0;        // 0: not made yet
    size_t shape_size = 0;  // the shape alone, for the instruction's line
  };
  const OperandText& OperandTextOf(int k);
  std::vector<OperandText> operand_text_;
  std::string operand_texts_;
  // The current computation's parameters, in stored order.
  std::vector<const Instr*> params_;
};

}  // namespace hlo::proto::internal

#endif  // HLO_LSP_HLO_PROTO_PRINT_INTERNAL_H_
