// The parser's internal state, shared by parser.cc (modules, computations,
// recovery) and parser_instruction.cc (instructions, operands, shapes,
// attributes). Not part of the public API.
#ifndef HLO_LSP_HLO_PARSER_INTERNAL_H_
#define HLO_LSP_HLO_PARSER_INTERNAL_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "hlo/lexer.h"
#include "hlo/parser.h"
#include "hlo/scoped_names.h"
#include "hlo/syntax.h"
#include "hlo/text_hash.h"

namespace hlo::internal {

// Nesting limit for shapes and nested operands; deeper input is an error,
// never a stack overflow.
inline constexpr int kMaxDepth = 128;

using ::hlo::TextHash;  // hlo/text_hash.h
using NameTable = absl::flat_hash_map<std::string_view, Id, TextHash>;

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options, ParsedFile* file);
  void Run();

 private:
  std::string_view Text(Span span) const {
    return text_.substr(span.begin, span.end - span.begin);
  }
  bool IsIdent(const Token& t, std::string_view word) const {
    return t.kind == TokenKind::kIdent && Text(t.span) == word;
  }
  void Error(Span span, std::string message,
             Severity severity = Severity::kError);
  void ErrorExpected(std::string_view expected, const Token& found);
  std::string Describe(const Token& token) const;
  bool Expect(TokenKind kind, std::string_view what, Token* out = nullptr);
  Token PeekSecond();

  // Modules and computations (parser.cc).
  bool StartsComputation();
  bool StartsInstruction();
  void EnsureModule(Offset begin);
  void ParseModuleHeader();
  void FinishModule();
  void ParseStackFrameTable();
  void ParseComputation();
  void ParseBareInstruction();
  bool ParseSignature(Computation* comp);
  void FinishComputation(Id comp, Offset end);
  bool AtRecoveryPoint(bool in_computation);
  void RecoverToLineStart(bool in_computation);
  void RecoverToBodyOrLine();

  // Instructions (parser_instruction.cc).
  bool LooksLikeShape(const Token& t) const;
  bool ParseInstruction(Id comp);
  bool ParseOperandList(int depth, Slice* operands);
  bool ParseNestedInstruction(const Token& opcode, Id shape, int depth,
                              Id* out);
  bool ResolveOpcode(const Token& token, Instruction* inst);
  bool ParseRawOperandList(Instruction* inst);
  void CheckConstant(const Instruction& inst, Offset end);
  bool ParseAttributes(Id inst);
  bool ParseAttributeValue(const Token& key, Id* attr);
  Offset ScanAttributeValue(Offset begin, bool allow_trailing_group);
  void RecordComputationRefs(Id inst, Id attr);
  void RecordControlPredecessors(Id attr);
  bool AppendExtraCalledName(Id inst, Id attr, const Token& name);

  // Shapes (parser_shape.cc).
  Id ParseShape(int depth);
  Offset QuickShapeEnd(Offset begin) const;
  Id ParseShapeUninterned(int depth);
  bool ParseLayout(Offset open_brace, Layout* layout);
  bool ParseLayoutExtras(Offset* pos, Layout* layout);
  bool ParseDims(Shape* shape);

  std::string_view text_;
  const ParseOptions& options_;
  ParsedFile& file_;
  Lexer lexer_;
  Id module_ = kNone;
  // Parsing a bare instruction (no module, as XLA's ParseSingleInstruction
  // takes it): operands written with a shape stand for parameters.
  bool bare_ = false;

  // Reused scratch space: one vector per nesting depth, so building operand
  // and tuple lists never allocates once warm.
  std::vector<std::vector<Operand>> scratch_operands_;
  std::vector<std::vector<Id>> scratch_shape_ids_;
  ScopedNames instruction_names_;
  ScopedNames computation_names_;
  // Identical shape texts share one Shape entry.
  NameTable shape_intern_;
  std::vector<uint8_t> dynamic_scratch_;
};

}  // namespace hlo::internal

#endif  // HLO_LSP_HLO_PARSER_INTERNAL_H_
