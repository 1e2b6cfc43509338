// Instructions: name, shape, opcode, operands (nested ones included) and the
// attribute list with its computation and control-predecessor references.
#include <string>

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "hlo/absl_compat.h"
#include "hlo/attributes.h"
#include "hlo/literal_text.h"
#include "hlo/parser_internal.h"

namespace hlo::internal {
namespace {

bool IsComputationRefKey(std::string_view key) {
  return key == "to_apply" || key == "calls" || key == "body" ||
         key == "condition" || key == "select" || key == "scatter" ||
         key == "true_computation" || key == "false_computation" ||
         key == "branch_computations" || key == "called_computations";
}

// Splits a `{a, %b}` or `a` value into the name spans it holds; false when
// the value is something else (an inline computation body, say).
template <typename Fn>
bool ForEachName(std::string_view text, Span value, Fn&& fn) {
  Offset begin = value.begin;
  Offset end = value.end;
  bool braced = end > begin && text[begin] == '{';
  if (braced) {
    ++begin;
    if (end > begin && text[end - 1] == '}') --end;
  }
  Offset i = begin;
  while (true) {
    while (i < end && base::IsBlank(text[i])) ++i;
    if (i >= end) return true;
    if (text[i] == '%') ++i;
    Offset name_begin = i;
    while (i < end && IsIdentChar(text[i])) ++i;
    if (i == name_begin) return false;
    Span name{name_begin, i};
    while (i < end && base::IsBlank(text[i])) ++i;
    if (i < end && text[i] != ',') return false;
    fn(name);
    if (i < end) ++i;  // ','
    if (!braced) return i >= end;
  }
}

}  // namespace

// A shape starts with '(' (tuple), a type name (`f32[...]`, also written
// `s32 [..]`), or `b(` (buffer).
bool Parser::LooksLikeShape(const Token& t) const {
  if (t.kind == TokenKind::kLParen) return true;
  if (t.kind != TokenKind::kIdent) return false;
  std::string_view name = Text(t.span);
  if (name == "b") return t.span.end < text_.size() && text_[t.span.end] == '(';
  if (!PrimitiveTypeFromName(name).has_value()) return false;
  // `s1` is a type and also a common operand name: only `s1[` (or `s1 [`)
  // starts a shape.
  Offset i = t.span.end;
  while (i < text_.size() && (text_[i] == ' ' || text_[i] == '\t')) ++i;
  return i < text_.size() && text_[i] == '[';
}

bool Parser::ResolveOpcode(const Token& token, Instruction* inst) {
  std::string_view text = Text(token.span);
  inst->opcode_span = token.span;
  if (auto op = OpcodeFromName(text)) {
    inst->opcode = *op;
    return true;
  }
  // Async syntax sugar: `<op>-start`, `<op>-update`, `<op>-done` wrap <op>.
  struct Suffix {
    std::string_view text;
    Opcode opcode;
  };
  static constexpr Suffix kSuffixes[] = {
      {"-start", Opcode::kAsyncStart},
      {"-update", Opcode::kAsyncUpdate},
      {"-done", Opcode::kAsyncDone},
  };
  for (const Suffix& suffix : kSuffixes) {
    if (text.size() > suffix.text.size() &&
        text.substr(text.size() - suffix.text.size()) == suffix.text) {
      if (auto wrapped = OpcodeFromName(
              text.substr(0, text.size() - suffix.text.size()))) {
        inst->opcode = suffix.opcode;
        inst->wrapped_opcode = *wrapped;
        return true;
      }
    }
  }
  Error(token.span, absl::StrCat("unknown opcode '", ToAbsl(text), "'"));
  inst->opcode = Opcode::kUnknown;
  return false;
}

bool Parser::ParseInstruction(Id comp) {
  Token t = lexer_.Next();
  const Offset begin = t.span.begin;
  Instruction inst;
  inst.computation = comp;
  if (IsIdent(t, "ROOT")) {
    inst.is_root = true;
    t = lexer_.Next();
  }
  bool have_equal = false;
  if (t.kind == TokenKind::kName) {
    inst.name = Span{t.span.begin + 1, t.span.end};
  } else if (t.kind == TokenKind::kIdent) {
    inst.name = t.span;
  } else if (t.kind == TokenKind::kAttrName) {
    inst.name = t.span;  // `name=` written without spaces
    have_equal = true;
  } else {
    ErrorExpected("an instruction name", t);
    return false;
  }
  // `pos` is where the lexer would be: each step tries its raw reader
  // (parser_fast.cc) and else syncs the lexer and takes the general path.
  Offset pos = lexer_.pos();
  if (!have_equal) {
    if (Offset p = FastEqual(pos); p != kNone) {
      pos = p;
    } else {
      if (!Expect(TokenKind::kEqual, "'='")) return false;
      pos = lexer_.pos();
    }
  }

  const Id id = static_cast<Id>(file_.instructions.size());
  file_.instructions.push_back(inst);  // placeholder; nested ops follow it

  if (Offset p = FastShape(pos, &inst.shape); p != kNone) {
    pos = p;
  } else {
    SyncLexer(pos);
    if (LooksLikeShape(lexer_.Peek())) {
      inst.shape = ParseShape(0);
      if (inst.shape == kNone) {
        inst.span = Span{begin, lexer_.pos()};
        file_.instructions[id] = inst;
        return false;
      }
    }
    pos = lexer_.pos();
  }
  Token opcode;
  Offset paren;
  if (Offset p = FastOpcode(pos, &opcode); p != kNone) {
    ResolveOpcode(opcode, &inst);
    paren = p;
    pos = p + 1;
  } else {
    SyncLexer(pos);
    opcode = lexer_.Next();
    if (opcode.kind != TokenKind::kIdent) {
      ErrorExpected(inst.shape == kNone ? "a shape or an opcode" : "an opcode",
                    opcode);
      inst.span = Span{begin, opcode.span.begin};
      file_.instructions[id] = inst;
      return false;
    }
    ResolveOpcode(opcode, &inst);  // an unknown opcode still parses on
    Token paren_token;
    if (!Expect(TokenKind::kLParen, "'('", &paren_token)) {
      inst.span = Span{begin, opcode.span.end};
      file_.instructions[id] = inst;
      return false;
    }
    paren = paren_token.span.begin;
    pos = lexer_.pos();
  }
  inst.operand_list.begin = paren;
  bool ok = true;
  if (inst.opcode == Opcode::kConstant || inst.opcode == Opcode::kParameter) {
    SyncLexer(pos);
    ok = ParseRawOperandList(&inst);
    pos = lexer_.pos();
  } else if (Offset p = FastOperandList(pos, &inst.operands); p != kNone) {
    pos = p;
  } else {
    SyncLexer(pos);
    ok = ParseOperandList(0, &inst.operands);
    pos = lexer_.pos();
  }
  inst.operand_list.end = pos;
  inst.span = Span{begin, pos};
  inst.attributes = Slice{static_cast<Id>(file_.attributes.size()), 0};
  inst.called = Slice{static_cast<Id>(file_.computation_refs.size()), 0};
  inst.control_predecessors = Slice{static_cast<Id>(file_.name_refs.size()), 0};
  file_.instructions[id] = inst;
  if (!ok) return false;
  return ParseAttributes(id, pos);
}

// `constant(...)` holds a literal and `parameter(N)` a number: both are kept
// raw here and decoded by literal_text.h / attributes.h on demand.
bool Parser::ParseRawOperandList(Instruction* inst) {
  Offset end = ScanBalanced(text_, inst->operand_list.begin);
  if (end == kNone) {
    Error(Span{inst->operand_list.begin, inst->operand_list.begin + 1},
          "unterminated '(': missing ')'");
    return false;
  }
  lexer_.Seek(end);
  inst->operands = Slice{static_cast<Id>(file_.operands.size()), 0};
  if (inst->opcode == Opcode::kConstant && options_.validate_attributes &&
      inst->shape != kNone) {
    CheckConstant(*inst, end);
  }
  if (inst->opcode == Opcode::kParameter) {
    std::string_view body = text_.substr(inst->operand_list.begin + 1,
                                         end - inst->operand_list.begin - 2);
    size_t b = 0;
    while (b < body.size() && base::IsBlank(body[b])) ++b;
    size_t e = body.size();
    while (e > b && base::IsBlank(body[e - 1])) --e;
    bool digits = e > b;
    for (size_t k = b; k < e; ++k) digits &= body[k] >= '0' && body[k] <= '9';
    if (!digits) {
      Error(Span{inst->operand_list.begin + 1, end - 1},
            "expected a parameter number");
    }
  }
  return true;
}

// The literal must fit the shape: element counts per dimension, value
// ranges. Errors come back as "offset N: message" within the operand list.
void Parser::CheckConstant(const Instruction& inst, Offset end) {
  absl::StatusOr<LiteralShape> shape =
      LiteralShapeFromParsed(file_, inst.shape);
  if (!shape.ok()) return;  // e.g. unbounded dims: nothing to check against
  std::string_view list =
      text_.substr(inst.operand_list.begin, end - inst.operand_list.begin);
  absl::Status status = DecodeConstantOperandList(list, *shape).status();
  if (status.ok()) return;
  std::string_view message = ToStd(status.message());
  Offset at = inst.operand_list.begin;
  if (message.substr(0, 7) == "offset ") {
    size_t colon = message.find(':');
    uint64_t relative = 0;
    for (size_t i = 7; i < colon && i < message.size(); ++i) {
      if (message[i] < '0' || message[i] > '9') break;
      relative = relative * 10 + (message[i] - '0');
    }
    if (relative < list.size()) at += static_cast<Offset>(relative);
    if (colon != std::string_view::npos) {
      message.remove_prefix(std::min(colon + 2, message.size()));
    }
  }
  Error(Span{at, std::min<Offset>(at + 1, end)},
        absl::StrCat("constant does not match its shape: ", ToAbsl(message)));
}

bool Parser::ParseOperandList(int depth, Slice* operands) {
  auto& scratch = scratch_operands_[depth];
  scratch.clear();
  if (lexer_.Peek().kind == TokenKind::kRParen) {
    lexer_.Next();
    *operands = Slice{static_cast<Id>(file_.operands.size()), 0};
    return true;
  }
  while (true) {
    Token t = lexer_.Peek();
    Operand operand;
    operand.span.begin = t.span.begin;
    if (LooksLikeShape(t)) {
      operand.shape = ParseShape(0);
      if (operand.shape == kNone) return false;
    }
    t = lexer_.Next();
    if (t.kind == TokenKind::kName) {
      operand.name = Span{t.span.begin + 1, t.span.end};
    } else if (t.kind == TokenKind::kIdent &&
               lexer_.Peek().kind == TokenKind::kLParen) {
      if (depth + 1 > kMaxDepth) {
        Error(t.span, "operands nested too deeply");
        return false;
      }
      Id nested;
      if (!ParseNestedInstruction(t, operand.shape, depth + 1, &nested)) {
        return false;
      }
      operand.nested = nested;
      operand.definition = nested;
    } else if (t.kind == TokenKind::kIdent) {
      operand.name = t.span;
    } else {
      ErrorExpected("an operand name", t);
      return false;
    }
    operand.span.end = lexer_.pos();
    scratch.push_back(operand);
    Token sep = lexer_.Next();
    if (sep.kind == TokenKind::kRParen) break;
    if (sep.kind != TokenKind::kComma) {
      ErrorExpected("',' or ')'", sep);
      return false;
    }
  }
  *operands = Slice{static_cast<Id>(file_.operands.size()),
                    static_cast<Id>(scratch.size())};
  file_.operands.insert(file_.operands.end(), scratch.begin(), scratch.end());
  return true;
}

bool Parser::ParseNestedInstruction(const Token& opcode, Id shape, int depth,
                                    Id* out) {
  Instruction inst;
  inst.is_nested = true;
  inst.shape = shape;
  ResolveOpcode(opcode, &inst);
  const Id id = static_cast<Id>(file_.instructions.size());
  file_.instructions.push_back(inst);
  Token paren = lexer_.Next();  // '(' (checked by the caller)
  inst.operand_list.begin = paren.span.begin;
  bool ok;
  if (inst.opcode == Opcode::kConstant || inst.opcode == Opcode::kParameter) {
    ok = ParseRawOperandList(&inst);
  } else {
    ok = ParseOperandList(depth, &inst.operands);
  }
  inst.operand_list.end = lexer_.pos();
  inst.span = Span{opcode.span.begin, lexer_.pos()};
  inst.attributes = Slice{static_cast<Id>(file_.attributes.size()), 0};
  inst.called = Slice{static_cast<Id>(file_.computation_refs.size()), 0};
  inst.control_predecessors = Slice{static_cast<Id>(file_.name_refs.size()), 0};
  file_.instructions[id] = inst;
  *out = id;
  return ok;
}

// `pos`: where the lexer would be, after the operand list.
bool Parser::ParseAttributes(Id id, Offset pos) {
  const Id first_attr = static_cast<Id>(file_.attributes.size());
  const Id first_ref = static_cast<Id>(file_.computation_refs.size());
  const Id first_pred = static_cast<Id>(file_.name_refs.size());
  Offset end = file_.instructions[id].span.end;
  bool ok = true;
  Id last_attr = kNone;
  while (true) {
    Token key;
    if (!FastAttributeKey(pos, &key)) {
      SyncLexer(pos);
      if (lexer_.Peek().kind != TokenKind::kComma) break;
      lexer_.Next();
      key = lexer_.Peek();
      if (key.kind != TokenKind::kAttrName) {
        // The printer's fallback `calls=%a, %b` lists computations unbraced.
        if (last_attr != kNone &&
            (key.kind == TokenKind::kName || key.kind == TokenKind::kIdent) &&
            IsComputationRefKey(Text(file_.attributes[last_attr].key))) {
          lexer_.Next();
          AppendExtraCalledName(id, last_attr, key);
          end = key.span.end;
          pos = lexer_.pos();
          continue;
        }
        ErrorExpected("an attribute such as 'dimensions='", key);
        ok = false;
        break;
      }
      lexer_.Next();
    }
    Id attr;
    if (!ParseAttributeValue(key, &attr)) {
      ok = false;
      break;
    }
    last_attr = attr;
    end = file_.attributes[attr].span.end;
    pos = end;
    std::string_view key_text = Text(key.span);
    for (Id a = first_attr; a < attr; ++a) {
      if (Text(file_.attributes[a].key) == key_text) {
        Error(key.span, absl::StrCat("attribute '", ToAbsl(key_text),
                                     "' is given more than once"));
        break;
      }
    }
    if (IsComputationRefKey(key_text)) {
      RecordComputationRefs(id, attr);
    } else if (key_text == "control-predecessors") {
      RecordControlPredecessors(attr);
    }
  }
  Instruction& inst = file_.instructions[id];
  inst.attributes =
      Slice{first_attr, static_cast<Id>(file_.attributes.size()) - first_attr};
  inst.called = Slice{
      first_ref, static_cast<Id>(file_.computation_refs.size()) - first_ref};
  inst.control_predecessors =
      Slice{first_pred, static_cast<Id>(file_.name_refs.size()) - first_pred};
  inst.span.end = end;
  if (!ok) return false;
  SyncLexer(pos);
  Token next = lexer_.Peek();
  switch (next.kind) {
    case TokenKind::kName:
    case TokenKind::kIdent:
    case TokenKind::kAttrName:
    case TokenKind::kRBrace:
    case TokenKind::kEof:
    case TokenKind::kSeparator:
      return true;
    default:
      ErrorExpected("',' or the end of the instruction", next);
      return false;
  }
}

bool Parser::ParseAttributeValue(const Token& key, Id* out) {
  std::string_view key_text = Text(key.span);
  Offset begin = key.span.end + 1;  // after '='
  // Full-bodies printing writes `to_apply=\n{...}`.
  while (begin < text_.size() && base::IsBlank(text_[begin])) ++begin;
  Offset end = begin < text_.size()
                   ? ScanAttributeValue(begin, key_text == "literal")
                   : begin;
  if (end == kNone || end == begin) {
    // The key may have been read raw: the lexer belongs after its '='.
    lexer_.Seek(key.span.end + 1);
  }
  if (end == kNone) {
    Error(Span{begin, begin + 1},
          absl::StrCat("unterminated value of '", ToAbsl(key_text), "'"));
    return false;
  }
  if (end == begin) {
    Token found = lexer_.Peek();
    ErrorExpected(absl::StrCat("a value for '", ToAbsl(key_text), "'"), found);
    return false;
  }
  Attribute attr;
  attr.span = Span{key.span.begin, end};
  attr.key = key.span;
  attr.value = Span{begin, end};
  *out = static_cast<Id>(file_.attributes.size());
  file_.attributes.push_back(attr);
  lexer_.Seek(end);
  if (options_.validate_attributes &&
      !valid_attributes_.contains(Text(attr.span))) {
    if (auto error = ValidateAttributeValue(key_text, Text(attr.value))) {
      Offset at = std::min<Offset>(begin + error->offset, end);
      Offset to =
          std::min<Offset>(at + std::max<uint32_t>(error->length, 1), end);
      Error(Span{at, std::max(to, at)},
            absl::StrCat("invalid '", ToAbsl(key_text), "': ", error->message));
    } else {
      valid_attributes_.insert(Text(attr.span));
    }
  }
  return true;
}

Offset Parser::ScanAttributeValue(Offset begin, bool allow_trailing_group) {
  const Offset size = static_cast<Offset>(text_.size());
  Offset i = begin;
  while (i < size) {
    char c = text_[i];
    if (c == '{' || c == '(' || c == '[') {
      Offset e = ScanBalanced(text_, i);
      if (e == kNone) return kNone;
      i = e;
    } else if (c == '"' || c == '\'') {
      Offset e = ScanString(text_, i);
      if (e == kNone) return kNone;
      i = e;
    } else if (base::IsBlank(c) || c == ',' || c == ')' || c == '}' ||
               c == ']') {
      break;
    } else {
      ++i;
    }
  }
  if (allow_trailing_group) {
    // `literal=s32[2] {1, 2}` or `literal=f32[] 0.1`: a shape, a space, then
    // the literal.
    Offset j = i;
    while (j < size && (text_[j] == ' ' || text_[j] == '\t')) ++j;
    if (j < size && (text_[j] == '{' || text_[j] == '(')) {
      return ScanBalanced(text_, j);
    }
    if (j < size && j > i && (IsIdentChar(text_[j]) || text_[j] == '+')) {
      while (j < size && (IsIdentChar(text_[j]) || text_[j] == '+')) ++j;
      return j;
    }
  }
  return i;
}

void Parser::RecordComputationRefs(Id inst, Id attr) {
  Span value = file_.attributes[attr].value;
  // An inline body (`to_apply={ x = ... }`) holds no names to resolve.
  ForEachName(text_, value, [&](Span name) {
    file_.computation_refs.push_back(ComputationRef{name, inst, attr, kNone});
  });
}

bool Parser::AppendExtraCalledName(Id inst, Id attr, const Token& name) {
  Span span = name.span;
  if (name.kind == TokenKind::kName) ++span.begin;
  file_.computation_refs.push_back(ComputationRef{span, inst, attr, kNone});
  return true;
}

void Parser::RecordControlPredecessors(Id attr) {
  Span value = file_.attributes[attr].value;
  bool ok = ForEachName(text_, value, [&](Span name) {
    file_.name_refs.push_back(NameRef{name, kNone});
  });
  if (!ok) Error(value, "expected a list of instruction names");
}

}  // namespace hlo::internal
