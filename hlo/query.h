// Questions the editor features ask of a parsed file, in byte offsets and
// table ids: what is at an offset, where is it defined, who uses it, who
// calls a computation. No LSP types here.
#ifndef HLO_LSP_HLO_QUERY_H_
#define HLO_LSP_HLO_QUERY_H_

#include <optional>
#include <string_view>
#include <vector>

#include "hlo/syntax.h"

namespace hlo {

enum class NodeKind {
  kNone,
  kInstructionName,     // id: instruction
  kOpcode,              // id: instruction
  kOperand,             // id: operand; instruction: its user
  kControlPredecessor,  // id: name_ref; instruction: the carrier
  kComputationRef,      // id: computation_ref
  kComputationName,     // id: computation
  kSignatureParameter,  // id: parameter (ParsedFile::parameters)
  kModuleName,          // id: module
};

struct NodeAt {
  NodeKind kind = NodeKind::kNone;
  Id id = kNone;
  Id instruction = kNone;  // the enclosing instruction, when any
  Id computation = kNone;  // the enclosing computation, when any
  Span span;               // the name (or opcode) under the offset
};

// The innermost named node touching `offset`.
NodeAt FindNodeAt(const ParsedFile& file, Offset offset);

// The computation whose span contains `offset`; kNone outside.
Id ComputationAt(const ParsedFile& file, Offset offset);
// Computations whose spans overlap `span` (touching counts), as a run of
// ids; computations are in text order.
Slice ComputationsOverlapping(const ParsedFile& file, Span span);
// The innermost instruction whose span touches `offset`.
Id InstructionAt(const ParsedFile& file, Offset offset);

// Where the node is defined: an instruction (kind kInstructionName) or a
// computation (kind kComputationName); kind kNone when unresolved.
NodeAt DefinitionOf(const ParsedFile& file, const NodeAt& node);
// The instruction the node at `offset` names (its name, an operand or
// control predecessor using it); kNone when it names no instruction.
Id NamedInstructionAt(const ParsedFile& file, Offset offset);

// A use of an instruction: the operand (or control-predecessor name) and
// the instruction that has it.
struct Use {
  Id user = kNone;      // instruction
  Id operand = kNone;   // into operands, or kNone for a control edge
  Id name_ref = kNone;  // into name_refs for a control edge
  Span span;            // the name as written at the use
};
std::vector<Use> UsersOf(const ParsedFile& file, Id instruction);
size_t UserCount(const ParsedFile& file, Id instruction);

// Computation references that target `computation`.
std::vector<Id> CallersOf(const ParsedFile& file, Id computation);
// Computation references made by instructions of `computation`.
std::vector<Id> CalleesOf(const ParsedFile& file, Id computation);

// N of `parameter(N)`; nullopt for other instructions.
std::optional<int64_t> ParameterNumber(const ParsedFile& file, Id instruction);
// The operand of the calling instruction that feeds parameter N of the
// computation through `ref` (call, fusion, async-start, while, conditional);
// kNone when that is not a plain operand mapping.
Id CallSiteOperand(const ParsedFile& file, Id ref, int64_t parameter_number);

// A computation by name in the module of `near` (any module when kNone).
Id FindComputation(const ParsedFile& file, std::string_view name,
                   Id module = kNone);
// An instruction of `computation` by name (nested ops excluded).
Id FindInstruction(const ParsedFile& file, Id computation,
                   std::string_view name);

// A metadata field of an instruction (`op_name`, `source_file`, ...) as its
// raw value text (quotes stripped for strings); empty when absent.
std::string_view MetadataField(const ParsedFile& file, Id instruction,
                               std::string_view key, Span* where = nullptr);

// Where a use writes its shape. Shapes are interned by their text, so
// file.shapes[id].span is only where that text was first written; these
// find the use's own copy: before an instruction's opcode, at the start of
// an operand, after a parameter's `name:`, before a body's `{`. nullopt
// where the use has no text of its own (no shape written, an inferred one)
// or the text is not where the syntax puts it.
std::optional<Span> OwnShapeSpan(const ParsedFile& file,
                                 const Instruction& inst);
std::optional<Span> OwnShapeSpan(const ParsedFile& file,
                                 const Operand& operand);
std::optional<Span> OwnShapeSpan(const ParsedFile& file,
                                 const Parameter& param);
std::optional<Span> OwnResultShapeSpan(const ParsedFile& file,
                                       const Computation& comp);

// Source location from the StackFrames tables for `stack_frame_id`:
// the innermost frame's file and line. False when the tables lack it.
bool StackFrameLocation(const ParsedFile& file, Id module, int64_t frame_id,
                        std::string_view* file_name, int64_t* line,
                        std::string_view* function_name);

}  // namespace hlo

#endif  // HLO_LSP_HLO_QUERY_H_
