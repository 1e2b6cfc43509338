// The parser's internal state, shared by parser.cc (modules, computations,
// recovery) and parser_instruction.cc (instructions, operands, shapes,
// attributes). Not part of the public API.
#ifndef HLO_LSP_HLO_PARSER_INTERNAL_H_
#define HLO_LSP_HLO_PARSER_INTERNAL_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hlo/lexer.h"
#include "hlo/parser.h"
#include "hlo/scoped_names.h"
#include "hlo/syntax.h"
#include "hlo/text_hash.h"

namespace hlo::internal {

// Nesting limit for shapes and nested operands; deeper input is an error,
// never a stack overflow.
inline constexpr int kMaxDepth = 128;

using ::hlo::TextEq;
using ::hlo::TextHash;  // hlo/text_hash.h
using NameTable = absl::flat_hash_map<std::string_view, Id, TextHash, TextEq>;

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
  // An error about two places (a redefinition and the first definition).
  void Error(Span span, std::string message, RelatedSpan related);
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
  bool ParseAttributes(Id inst, Offset pos);
  bool ParseAttributeValue(const Token& key, Id* attr);
  Offset ScanAttributeValue(Offset begin, bool allow_trailing_group);
  void RecordComputationRefs(Id inst, Id attr);
  void RecordControlPredecessors(Id attr);
  bool AppendExtraCalledName(Id inst, Id attr, const Token& name);

  // The common instruction line, `%a = f32[2]{0} add(%b, %c), k=v`, read
  // straight from the bytes (parser_fast.cc). Each reader starts where the
  // lexer would be and returns where it would be after the same tokens, or
  // kNone (having changed nothing) where the general path must take over;
  // the lexer is Seek-ed to the raw position before any general step.
  Offset FastEqual(Offset pos) const;
  Offset FastShape(Offset pos, Id* shape);
  Offset FastOpcode(Offset pos, Token* opcode) const;
  Offset FastOperandList(Offset pos, Slice* operands);
  bool FastAttributeKey(Offset pos, Token* key) const;
  Offset FastParameter(Offset pos, Parameter* param);
  void SyncLexer(Offset pos) {
    if (lexer_.pos() != pos) lexer_.Seek(pos);
  }

  // Shapes (parser_shape.cc).
  Id ParseShape(int depth);
  Offset QuickShapeEnd(Offset begin) const;
  Id ParseShapeUninterned(int depth);
  bool ParseLayout(Offset open_brace, Layout* layout);
  bool ParseLayoutExtras(Offset* pos, Layout* layout);
  Offset CheckDimLevelTypes(Offset begin, Offset end, bool* sparse);
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
  // The shape texts FastShape found last, most recent first: neighbouring
  // instructions mostly repeat one (78% of the benchmark module's shapes
  // are among the last four), and comparing costs less than finding the
  // text's end and hashing it.
  struct RecentShape {
    Offset begin = 0;
    Offset size = 0;
    Id id = kNone;
  };
  RecentShape recent_shapes_[4];
  std::vector<uint8_t> dynamic_scratch_;
  // `key=value` texts that validated: a module repeats `dimensions={0}` and
  // `replica_groups=...` thousands of times, and the answer depends on the
  // text alone.
  absl::flat_hash_set<std::string_view, TextHash, TextEq> valid_attributes_;
};

}  // namespace hlo::internal

#endif  // HLO_LSP_HLO_PARSER_INTERNAL_H_
