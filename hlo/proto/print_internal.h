// Private to hlo/proto/print*.cc: the value printers (print_values.cc) and
// the ModulePrinter, whose methods live in print.cc (module, computations,
// instruction lines, operands), print_attributes.cc (attributes) and
// print_light.cc (plain instructions off the wire).
//
// Speed: everything appends to one reserved std::string; each
// instruction's opcode is classified once (OpKind); each distinct shape is
// printed once and every line and operand copies that text; plain
// instructions skip protobuf's parse; ids resolve through a
// per-computation table (dense when the ids are).
#ifndef HLO_LSP_HLO_PROTO_PRINT_INTERNAL_H_
#define HLO_LSP_HLO_PROTO_PRINT_INTERNAL_H_

#include <charconv>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/types/span.h"
#include "base/large_buffer.h"
#include "google/protobuf/arena.h"
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

// An instruction as the module-level passes see it (ids, names, signature):
// from a parsed message, or read off its wire bytes without building one (a
// deferred decode), then parsed only when its line prints. Kept small (a
// module has hundreds of thousands): offsets into the wire bytes rather than
// views, and the callees in CompRef::called.
struct InstrRef {
  int64_t id = 0;
  int64_t parameter_number = 0;
  // The parsed instruction when `parsed`, else the start of its wire bytes.
  const void* source = nullptr;
  uint32_t size = 0;  // of the wire bytes
  uint32_t name_offset = 0, name_size = 0;
  uint32_t shape_offset = 0, shape_size = 0;  // its ShapeProto's bytes
  bool parsed = false;
  bool is_parameter = false;

  const Instr* message() const {
    return parsed ? static_cast<const Instr*>(source) : nullptr;
  }
  std::string_view bytes() const {
    return {static_cast<const char*>(source), size};
  }
  std::string_view name() const {
    if (parsed) return message()->name();
    return {static_cast<const char*>(source) + name_offset, name_size};
  }
  std::string_view shape_bytes() const {
    return {static_cast<const char*>(source) + shape_offset, shape_size};
  }
};
static_assert(sizeof(InstrRef) <= 48);
struct CompRef {
  const xla::HloComputationProto* message = nullptr;
  absl::Span<InstrRef> instrs;  // in ModuleIndex::instr_storage
  // called_computation_ids, all instructions', in order: all that the
  // computation order needs.
  std::vector<int64_t> called;
  // A deferred decode's program shapes, parsed only to check them.
  const std::vector<std::string_view>* program_shapes = nullptr;
};

// The module-wide tables, read-only once built (computations print on
// several threads).
struct ModuleIndex {
  const xla::HloModuleProto* module = nullptr;
  int instruction_depth = 0;  // message nesting above a deferred instruction
  std::vector<CompRef> comps;
  // All computations' InstrRefs: one block, in huge pages when large (a
  // vector each cost a page fault per 4 KB on first touch).
  base::LargeBuffer instr_storage;
  const CompRef* entry = nullptr;
  // Computation id -> position in the module.
  absl::flat_hash_map<int64_t, int> computations;
  // Module-wide id -> instruction (first of a repeated id), built on the
  // first lookup outside a computation.
  absl::flat_hash_map<int64_t, const InstrRef*> global;
  std::once_flag global_once;
};

// A text in one of the printer's arenas (Scratch::shape_arena or the
// computation's own): where it starts and how long it is.
struct TextRef {
  uint32_t offset = 0;
  uint32_t size = 0;
};

// Reused between the computations a thread prints. The instruction is
// parsed into a message on an arena: a heap message's Clear() deletes its
// sub-messages (shape, metadata, ...) and the parse allocates them again, a
// malloc and a free each per instruction; on the arena Clear() drops them
// and the parse takes new ones from the arena's own block, which
// Instruction() reuses once it is used up. What does not fit it (a large
// constant's literal) goes to the heap until then.
class Scratch {
 public:
  Scratch()
      : block_(new char[kBlockBytes]), arena_([this] {
          google::protobuf::ArenaOptions options;
          options.initial_block = block_.get();
          options.initial_block_size = kBlockBytes;
          return options;
        }()) {
    Renew();
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  // The message to parse the next instruction (or a computation's program
  // shape) into; ends the last one's.
  Instr* Instruction() {
    if (arena_.SpaceUsed() > kBlockBytes / 2) Renew();
    return instr_;
  }
  xla::ProgramShapeProto* ProgramShape() {
    if (arena_.SpaceUsed() > kBlockBytes / 2) Renew();
    return program_shape_;
  }

  xla::ShapeProto shape;
  // Printed shapes (with layouts) by their ShapeProto wire bytes: a module
  // repeats few shapes over many instructions, and parsing and printing
  // each again was a third of a conversion. The texts lie end to end in
  // shape_arena (an offset and a size each: the arena may move); a
  // malloc per text was a page fault per few dozen.
  absl::flat_hash_map<std::string_view, TextRef> shape_texts;
  std::string shape_arena;
  // Deferred program shapes known to parse, by their wire bytes.
  absl::flat_hash_set<std::string_view> sound_program_shapes;
  // An instruction's bytes less its shape, to parse.
  std::string spliced;
  // The fast path's instruction (DecodeLightInstruction): never holds more
  // than the fields that reads.
  Instr light;

 private:
  static constexpr size_t kBlockBytes = size_t{256} << 10;
  void Renew() {
    arena_.Reset();
    instr_ = google::protobuf::Arena::CreateMessage<Instr>(&arena_);
    program_shape_ =
        google::protobuf::Arena::CreateMessage<xla::ProgramShapeProto>(&arena_);
  }

  std::unique_ptr<char[]> block_;
  google::protobuf::Arena arena_;
  Instr* instr_ = nullptr;
  xla::ProgramShapeProto* program_shape_ = nullptr;
};

// Prints the header and stack frames (PrintHeader) or one computation
// (PrintComputation) into `out`.
class ModulePrinter {
 public:
  ModulePrinter(ModuleIndex& index, const PrintOptions& options,
                Scratch& scratch, std::string* out)
      : index_(index),
        module_(*index.module),
        options_(options),
        scratch_(scratch),
        out_(*out) {}

  void PrintHeader();
  void PrintStackFrames();
  // Instructions [begin, end) of the computation in printing order, with
  // the signature when `begin` is 0 and the closing brace when `end` is at
  // or past the last. False when an instruction does not parse or has no
  // opcode.
  bool PrintComputation(const CompRef& c, size_t begin = 0,
                        size_t end = SIZE_MAX);

 private:
  // print.cc
  void EnterComputation(const CompRef& c);
  // `%name (params) -> result {` and its newline; false when a deferred
  // program shape does not parse.
  bool PrintSignature(const CompRef& c, int root);
  void AppendComputationName(int64_t id);
  // Positions of the computation's instructions in printing order.
  std::vector<int> ScheduledOrder(const CompRef& c);
  // The position of instruction `id` in the current computation, or -1.
  int FindLocal(int64_t id) const;
  // Operands resolve in the current computation first, as XLA scopes
  // them, then module-wide (a damaged proto may reach across).
  const InstrRef* Find(int64_t id);
  const xla::ShapeProto& ShapeOf(const InstrRef& ref);
  // A deferred instruction's shape as printed, from its wire bytes (made
  // once per distinct shape); nullptr when they do not parse.
  const TextRef* ShapeTextOf(const InstrRef& ref);
  int ElementTypeOf(const InstrRef& ref) { return ShapeOf(ref).element_type(); }
  void AppendOperand(int64_t id);
  void AppendFrontendAttributes(const xla::FrontendAttributes& attributes);
  bool PrintInstruction(int k, bool is_root);
  // A deferred message into `into`; false when the bytes do not parse.
  bool ParseDeferred(std::string_view bytes, google::protobuf::Message* into);
  // A deferred instruction into `into`, without its shape (ShapeTextOf
  // prints that); false when the bytes do not parse.
  bool ParseDeferredInstruction(const InstrRef& ref, Instr* into);

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

  ModuleIndex& index_;
  const xla::HloModuleProto& module_;
  const PrintOptions& options_;
  Scratch& scratch_;
  std::string& out_;
  const CompRef* current_ = nullptr;
  // The current computation's ids -> positions: a dense table when the ids
  // are compact (XLA's and our encoder's are), else a hash map.
  static constexpr int kNoInstruction = -1;
  std::vector<int> local_dense_;
  int64_t local_min_ = 0;
  absl::flat_hash_map<int64_t, int> local_map_;
  // The printed shape of each of the current computation's instructions,
  // made on first use (by its line or a user): a deferred one's is in
  // Scratch::shape_arena, a parsed one's (or one whose bytes do not parse)
  // in own_shapes_, the computation's own. Eight bytes each: a large
  // computation's table is touched by every printing thread. An operand
  // prints as the shape, " %" and the name.
  struct ShapeText {
    static constexpr uint32_t kMade = 1u << 31;      // else not made yet
    static constexpr uint32_t kOwn = 1u << 30;       // in own_shapes_
    static constexpr uint32_t kUnparsed = 1u << 29;  // bytes do not parse
    static constexpr uint32_t kSizeMask = kUnparsed - 1;
    uint32_t offset = 0;
    uint32_t size_and_flags = 0;
    bool unparsed() const { return (size_and_flags & kUnparsed) != 0; }
  };
  // The text of instruction k's shape, made when first asked for;
  // `unparsed` (optional) says whether its wire bytes do not parse.
  std::string_view ShapeTextAt(int k, const xla::ShapeProto* shape,
                               bool* unparsed = nullptr);
  std::string_view ArenaText(TextRef ref) const {
    return std::string_view(scratch_.shape_arena).substr(ref.offset, ref.size);
  }
  std::vector<ShapeText> shape_text_;
  std::string own_shapes_;
  // The current computation's parameters, in stored order.
  std::vector<const InstrRef*> params_;
};

// print_light.cc: a deferred instruction's fields into `into` (which holds
// no others) when they are all of the few that plain instructions have:
// name, opcode, shape (left to the index), parameter number, tuple index,
// id, dimensions, operands, control predecessors and callees. False when
// any other field, or anything the full parse should judge, is there.
bool DecodeLightInstruction(std::string_view bytes, Instr* into,
                            std::string_view* name, std::string_view* opcode);

// print_light.cc: whether protobuf's parse of these ProgramShapeProto bytes
// surely succeeds (every field known and well formed, names ASCII); false
// is no verdict.
bool SurelyParsesAsProgramShape(std::string_view bytes);

// print_index.cc: the module's tables (indexed on up to `threads` threads,
// a long computation in pieces); computations printed in callee order
// (post_order, positions in index.comps).
bool BuildModuleIndex(const xla::HloModuleProto& module,
                      const std::vector<std::vector<std::string_view>>* wire,
                      int threads, ModuleIndex* index);
std::vector<int> PostOrder(ModuleIndex& index);

// print.cc: the module text; `deferred` when the module's instructions
// were (DecodedProto::deferred). False, with `out` as it was, when a deferred
// instruction does not parse or has no opcode.
bool PrintModule(const xla::HloModuleProto& module,
                 const DecodedProto* deferred, const PrintOptions& options,
                 std::string* out);

}  // namespace hlo::proto::internal

#endif  // HLO_LSP_HLO_PROTO_PRINT_INTERNAL_H_
