// The tolerant HLO parser. Structure (modules, computations, instructions,
// operands, shapes) is parsed token by token; attribute values and constant
// literals are scanned raw and checked by the typed decoders. On an error the
// parser records a diagnostic and resumes at the next line that starts an
// instruction, a computation or a closing brace.
#include "hlo/parser.h"

#include <charconv>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hlo/absl_compat.h"
#include "hlo/attributes.h"
#include "hlo/lexer.h"
#include "hlo/parser_internal.h"
#include "hlo/shape_inference.h"

namespace hlo {

std::unique_ptr<ParsedFile> Parse(std::string_view text,
                                  const ParseOptions& options) {
  auto file = std::make_unique<ParsedFile>(text);
  if (text.size() >= kNone) {
    file->diagnostics.push_back(
        {Span{0, 0}, Severity::kError,
         "file too large: the parser handles files under 4 GiB"});
    return file;
  }
  internal::Parser parser(text, options, file.get());
  parser.Run();
  // `r = add(x, y)` without a shape, as XLA's parser allows: the inferred
  // shape stands in for everything downstream (hover, replay, protos).
  FillMissingShapes(file.get());
  file->BuildReverseEdges();
  return file;
}

namespace internal {

Parser::Parser(std::string_view text, const ParseOptions& options,
               ParsedFile* file)
    : text_(text), options_(options), file_(*file), lexer_(text) {
  // Per-byte densities of the densest long dumps (make-dump-dir's: an
  // instruction per 93-122 bytes), so that a whole parse never regrows:
  // each regrowth copied everything parsed so far (a quarter of a 100 MB
  // parse). In a sparser dump the reserve past the end is never touched.
  const size_t size = text.size();
  file_.instructions.reserve(size / 90 + 16);
  file_.operands.reserve(size / 45 + 16);
  file_.attributes.reserve(size / 90 + 16);
  scratch_operands_.resize(kMaxDepth + 2);
  scratch_shape_ids_.resize(kMaxDepth + 2);
}

// ------------------------------------------------------------ diagnostics --

void Parser::Error(Span span, std::string message, Severity severity) {
  if (file_.diagnostics.size() >= options_.max_diagnostics) {
    file_.diagnostics_truncated = true;
    return;
  }
  file_.diagnostics.push_back({span, severity, std::move(message)});
}

void Parser::Error(Span span, std::string message, RelatedSpan related) {
  Error(span, std::move(message));
  if (!file_.diagnostics_truncated) {
    file_.diagnostics.back().related.push_back(std::move(related));
  }
}

std::string Parser::Describe(const Token& token) const {
  switch (token.kind) {
    case TokenKind::kEof:
      return "end of file";
    case TokenKind::kSeparator:
      return "a module separator";
    case TokenKind::kError: {
      unsigned char c =
          token.span.empty()
              ? 0
              : static_cast<unsigned char>(text_[token.span.begin]);
      if (c == 0) return "a NUL byte";
      if (c == '"' || c == '\'') return "an unterminated string";
      if (c == '/') return "an unterminated comment";
      if (c >= 0x80 || c < 0x20) return absl::StrCat("byte 0x", absl::Hex(c));
      break;
    }
    default:
      break;
  }
  std::string_view t = Text(token.span);
  if (t.size() > 40) t = t.substr(0, 40);
  return absl::StrCat("'", ToAbsl(t), "'");
}

void Parser::ErrorExpected(std::string_view expected, const Token& found) {
  Span span = found.span;
  if (span.empty() && span.begin < text_.size()) span.end = span.begin + 1;
  Error(span, absl::StrCat("expected ", ToAbsl(expected), ", found ",
                           Describe(found)));
}

bool Parser::Expect(TokenKind kind, std::string_view what, Token* out) {
  Token t = lexer_.Next();
  if (out != nullptr) *out = t;
  if (t.kind == kind) return true;
  ErrorExpected(what, t);
  return false;
}

Token Parser::PeekSecond() {
  // The lexer is a few words of state: a copy looks ahead without disturbing
  // the real one's peek cache.
  Lexer ahead = lexer_;
  ahead.Next();
  return ahead.Next();
}

// ---------------------------------------------------------------- modules --

void Parser::Run() {
  while (true) {
    Token t = lexer_.Peek();
    if (t.kind == TokenKind::kEof) break;
    if (t.kind == TokenKind::kSeparator) {
      lexer_.Next();
      FinishModule();
      continue;
    }
    if (IsIdent(t, "HloModule")) {
      FinishModule();
      ParseModuleHeader();
      continue;
    }
    if (IsIdent(t, "FileNames") || IsIdent(t, "FunctionNames") ||
        IsIdent(t, "FileLocations") || IsIdent(t, "StackFrames")) {
      EnsureModule(t.span.begin);
      ParseStackFrameTable();
      continue;
    }
    if (StartsComputation()) {
      EnsureModule(t.span.begin);
      ParseComputation();
      continue;
    }
    if (StartsInstruction() && file_.modules.empty()) {
      ParseBareInstruction();
      continue;
    }
    if (StartsInstruction()) {
      Error(t.span.empty() ? Span{t.span.begin, t.span.begin + 1} : t.span,
            "instruction outside of a computation");
    } else {
      ErrorExpected("'HloModule' or a computation", t);
    }
    lexer_.Next();
    RecoverToLineStart(/*in_computation=*/false);
  }
  FinishModule();
}

// XLA's parser takes text that is one instruction and nothing else: it
// becomes the entry computation (no name) of a module with no header.
// Undefined operands written with a shape are its parameters there.
void Parser::ParseBareInstruction() {
  Token t = lexer_.Peek();
  EnsureModule(t.span.begin);
  Computation comp;
  comp.module = module_;
  comp.is_entry = true;
  comp.span = Span{t.span.begin, t.span.begin};
  comp.body.begin = t.span.begin;
  comp.parameters = Slice{static_cast<Id>(file_.parameters.size()), 0};
  comp.instructions = Slice{static_cast<Id>(file_.instructions.size()), 0};
  const Id comp_id = static_cast<Id>(file_.computations.size());
  file_.computations.push_back(comp);
  bare_ = true;
  if (!ParseInstruction(comp_id)) RecoverToLineStart(true);
  const Offset end = lexer_.Peek().span.begin;
  file_.computations[comp_id].body.end = end;
  FinishComputation(comp_id, end);
  bare_ = false;
}

bool Parser::StartsComputation() {
  Token t = lexer_.Peek();
  if (IsIdent(t, "ENTRY")) return true;
  if (t.kind != TokenKind::kName && t.kind != TokenKind::kIdent) return false;
  Token second = PeekSecond();
  return second.kind == TokenKind::kLParen || second.kind == TokenKind::kLBrace;
}

bool Parser::StartsInstruction() {
  Token t = lexer_.Peek();
  if (IsIdent(t, "ROOT") || t.kind == TokenKind::kAttrName) return true;
  if (t.kind != TokenKind::kName && t.kind != TokenKind::kIdent) return false;
  return PeekSecond().kind == TokenKind::kEqual;
}

void Parser::EnsureModule(Offset begin) {
  if (module_ != kNone) return;
  module_ = static_cast<Id>(file_.modules.size());
  Module m;
  m.span = Span{begin, begin};
  m.computations = Slice{static_cast<Id>(file_.computations.size()), 0};
  m.header_attributes = Slice{static_cast<Id>(file_.attributes.size()), 0};
  file_.modules.push_back(std::move(m));
}

void Parser::ParseModuleHeader() {
  Token keyword = lexer_.Next();  // HloModule
  EnsureModule(keyword.span.begin);
  Module& m = file_.modules[module_];
  m.has_header = true;
  Token name = lexer_.Next();
  if (name.kind == TokenKind::kName) {
    m.name = Span{name.span.begin + 1, name.span.end};
  } else if (name.kind == TokenKind::kIdent) {
    m.name = name.span;
  } else if (name.kind == TokenKind::kAttrName) {
    // "HloModule m,x=" cannot happen; "HloModule m=..." is an error.
    ErrorExpected("a module name", name);
  } else {
    ErrorExpected("a module name", name);
    RecoverToLineStart(false);
    return;
  }
  m.span.end = name.span.end;
  // Old printers wrote `HloModule name:`.
  if (lexer_.Peek().kind == TokenKind::kColon) lexer_.Next();
  Id first_attr = static_cast<Id>(file_.attributes.size());
  while (lexer_.Peek().kind == TokenKind::kComma) {
    lexer_.Next();
    Token key = lexer_.Next();
    if (key.kind != TokenKind::kAttrName) {
      ErrorExpected("a module attribute such as 'is_scheduled='", key);
      RecoverToLineStart(false);
      break;
    }
    Id attr;
    if (!ParseAttributeValue(key, &attr)) {
      RecoverToLineStart(false);
      break;
    }
    file_.modules[module_].span.end = file_.attributes[attr].span.end;
  }
  file_.modules[module_].header_attributes =
      Slice{first_attr, static_cast<Id>(file_.attributes.size()) - first_attr};
}

void Parser::FinishModule() {
  if (module_ == kNone) return;
  Module& m = file_.modules[module_];
  m.computations.count =
      static_cast<Id>(file_.computations.size()) - m.computations.begin;
  // Computation names are module-scoped.
  computation_names_.NewScope();
  Id entry = kNone;
  for (Id c = m.computations.begin; c < m.computations.end(); ++c) {
    const Computation& comp = file_.computations[c];
    if (!computation_names_.Insert(Text(comp.name), c)) {
      const Id first = computation_names_.Find(Text(comp.name));
      Error(comp.name,
            absl::StrCat("redefinition of computation '",
                         ToAbsl(Text(comp.name)), "'"),
            RelatedSpan{file_.computations[first].name, "first defined here"});
    }
    if (comp.is_entry) {
      if (entry != kNone) {
        Error(comp.name, "more than one ENTRY computation in the module");
      } else {
        entry = c;
      }
    }
  }
  // XLA's rule: without an ENTRY marker, the last computation is the entry.
  if (entry == kNone && !m.computations.empty())
    entry = m.computations.end() - 1;
  m.entry = entry;
  for (Id c = m.computations.begin; c < m.computations.end(); ++c) {
    const Computation& comp = file_.computations[c];
    for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
      const Instruction& inst = file_.instructions[i];
      for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
        ComputationRef& ref = file_.computation_refs[r];
        ref.computation = computation_names_.Find(Text(ref.name));
        if (ref.computation == kNone) {
          Error(ref.name, absl::StrCat("use of undefined computation '",
                                       ToAbsl(Text(ref.name)), "'"));
        }
      }
    }
  }
  if (!m.computations.empty()) {
    m.span.end = std::max(
        m.span.end, file_.computations[m.computations.end() - 1].span.end);
  }
  module_ = kNone;
}

// The JAX >= 0.9 header tables: FileNames / FunctionNames / FileLocations /
// StackFrames, each followed by `<id> <value>` entries.
void Parser::ParseStackFrameTable() {
  Token keyword = lexer_.Next();
  std::string_view which = Text(keyword.span);
  StackFrameTables& tables = file_.modules[module_].stack_frames;
  while (lexer_.Peek().kind == TokenKind::kInt) {
    lexer_.Next();
    Token value = lexer_.Peek();
    if (which == "FileNames" || which == "FunctionNames") {
      if (value.kind != TokenKind::kString) {
        ErrorExpected("a string", value);
        RecoverToLineStart(false);
        return;
      }
      lexer_.Next();
      (which == "FileNames" ? tables.file_names : tables.function_names)
          .push_back(value.span);
      continue;
    }
    if (value.kind != TokenKind::kLBrace) {
      ErrorExpected("'{'", value);
      RecoverToLineStart(false);
      return;
    }
    Offset end = ScanBalanced(text_, value.span.begin);
    if (end == kNone) {
      Error(value.span, "unterminated '{'");
      RecoverToLineStart(false);
      return;
    }
    std::string_view body =
        text_.substr(value.span.begin + 1, end - value.span.begin - 2);
    lexer_.Seek(end);
    auto field = [&](std::string_view key) -> int64_t {
      // `key=N` inside the braces; fields are space or comma separated.
      size_t pos = 0;
      while ((pos = body.find(key, pos)) != std::string_view::npos) {
        bool starts = pos == 0 || !IsIdentChar(body[pos - 1]);
        size_t eq = pos + key.size();
        if (starts && eq < body.size() && body[eq] == '=') {
          int64_t v = 0;
          std::from_chars(body.data() + eq + 1, body.data() + body.size(), v);
          return v;
        }
        pos = eq;
      }
      return 0;
    };
    if (which == "FileLocations") {
      FileLocation loc;
      loc.file_name_id = field("file_name_id");
      loc.function_name_id = field("function_name_id");
      loc.line = field("line");
      loc.end_line = field("end_line");
      loc.column = field("column");
      loc.end_column = field("end_column");
      tables.file_locations.push_back(loc);
    } else {
      StackFrame frame;
      frame.file_location_id = field("file_location_id");
      frame.parent_frame_id = field("parent_frame_id");
      tables.stack_frames.push_back(frame);
    }
  }
}

// ---------------------------------------------------------- computations --

void Parser::ParseComputation() {
  Token t = lexer_.Next();
  Offset begin = t.span.begin;
  Computation comp;
  comp.module = module_;
  if (IsIdent(t, "ENTRY")) {
    comp.is_entry = true;
    t = lexer_.Next();
  }
  if (t.kind == TokenKind::kName) {
    comp.name = Span{t.span.begin + 1, t.span.end};
  } else if (t.kind == TokenKind::kIdent) {
    comp.name = t.span;
  } else {
    ErrorExpected("a computation name", t);
    RecoverToLineStart(false);
    return;
  }
  comp.span = Span{begin, t.span.end};
  Id comp_id = static_cast<Id>(file_.computations.size());
  comp.parameters = Slice{static_cast<Id>(file_.parameters.size()), 0};
  if (lexer_.Peek().kind == TokenKind::kLParen) {
    if (!ParseSignature(&comp)) {
      // Skip to the body's brace if it is on this line; else give up.
      RecoverToBodyOrLine();
      if (lexer_.Peek().kind != TokenKind::kLBrace) return;
    }
  }
  Token brace;
  if (!Expect(TokenKind::kLBrace, "'{'", &brace)) {
    RecoverToLineStart(false);
    return;
  }
  comp.body.begin = brace.span.begin;
  comp.instructions = Slice{static_cast<Id>(file_.instructions.size()), 0};
  file_.computations.push_back(comp);

  while (true) {
    Token next = lexer_.Peek();
    if (next.kind == TokenKind::kRBrace) break;
    bool ends_body = next.kind == TokenKind::kEof ||
                     next.kind == TokenKind::kSeparator ||
                     IsIdent(next, "HloModule") || IsIdent(next, "ENTRY");
    if (!ends_body &&
        (next.kind == TokenKind::kName || next.kind == TokenKind::kIdent) &&
        !IsIdent(next, "ROOT")) {
      // `name (` or `name {` starts the next computation: this one lacks '}'.
      // `name =`, an instruction, is seen without lexing ahead.
      Offset after = next.span.end;
      while (after < text_.size() &&
             (text_[after] == ' ' || text_[after] == '\t')) {
        ++after;
      }
      TokenKind second = after < text_.size() && text_[after] == '='
                             ? TokenKind::kEqual
                             : PeekSecond().kind;
      ends_body = second == TokenKind::kLParen || second == TokenKind::kLBrace;
    }
    if (ends_body) {
      Error(Span{brace.span.begin, brace.span.end},
            absl::StrCat("missing '}' to close computation '",
                         ToAbsl(Text(file_.computations[comp_id].name)), "'"));
      // The body runs to where the next computation (or the end) begins.
      Offset end = next.span.begin;
      while (end > brace.span.end &&
             (text_[end - 1] == ' ' || text_[end - 1] == '\n' ||
              text_[end - 1] == '\r' || text_[end - 1] == '\t')) {
        --end;
      }
      end = std::max(end, brace.span.end);
      file_.computations[comp_id].body.end = end;
      FinishComputation(comp_id, end);
      return;
    }
    if (!ParseInstruction(comp_id)) RecoverToLineStart(true);
  }
  Token close = lexer_.Next();  // '}'
  Offset end = close.span.end;
  file_.computations[comp_id].body.end = end;
  // `}, execution_thread="name"` marks a non-main thread computation.
  if (lexer_.Peek().kind == TokenKind::kComma &&
      PeekSecond().kind == TokenKind::kAttrName) {
    lexer_.Next();
    Token key = lexer_.Next();
    Token value = lexer_.Next();
    if (Text(key.span) != "execution_thread" ||
        value.kind != TokenKind::kString) {
      ErrorExpected("execution_thread=\"...\"", key);
    } else {
      file_.computations[comp_id].execution_thread = value.span;
      end = value.span.end;
    }
  }
  FinishComputation(comp_id, end);
}

bool Parser::ParseSignature(Computation* comp) {
  lexer_.Next();  // '('
  Id first = static_cast<Id>(file_.parameters.size());
  if (lexer_.Peek().kind != TokenKind::kRParen) {
    // `pos` is where the lexer would be: FastParameter (parser_fast.cc)
    // reads `name: shape` raw when it can.
    Offset pos = lexer_.pos();
    while (true) {
      Parameter param;
      if (Offset p = FastParameter(pos, &param); p != kNone) {
        pos = p;
      } else {
        SyncLexer(pos);
        Token name = lexer_.Next();
        if (name.kind == TokenKind::kName) {
          param.name = Span{name.span.begin + 1, name.span.end};
        } else if (name.kind == TokenKind::kIdent) {
          param.name = name.span;
        } else {
          ErrorExpected("a parameter name", name);
          return false;
        }
        // Old printers wrote `(p0 f32[2])` without the colon.
        if (lexer_.Peek().kind == TokenKind::kColon) lexer_.Next();
        param.shape = ParseShape(0);
        if (param.shape == kNone) return false;
        pos = lexer_.pos();
      }
      file_.parameters.push_back(param);
      if (pos < text_.size() && text_[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < text_.size() && text_[pos] == ')') {
        ++pos;
        break;
      }
      SyncLexer(pos);
      Token sep = lexer_.Next();
      pos = lexer_.pos();
      if (sep.kind == TokenKind::kRParen) break;
      if (sep.kind != TokenKind::kComma) {
        ErrorExpected("',' or ')'", sep);
        return false;
      }
    }
    SyncLexer(pos);
  } else {
    lexer_.Next();
  }
  comp->parameters =
      Slice{first, static_cast<Id>(file_.parameters.size()) - first};
  // ` -> f32[2]{0}`: a result shape seen before is read raw too.
  const Offset pos = lexer_.pos();
  if (text_.substr(pos, 3) == " ->") {
    if (Offset p = FastShape(pos + 3, &comp->result_shape); p != kNone) {
      lexer_.Seek(p);
      return true;
    }
  }
  if (!Expect(TokenKind::kArrow, "'->'")) return false;
  comp->result_shape = ParseShape(0);
  return comp->result_shape != kNone;
}

void Parser::FinishComputation(Id comp_id, Offset end) {
  Computation& comp = file_.computations[comp_id];
  comp.span.end = end;
  comp.instructions.count =
      static_cast<Id>(file_.instructions.size()) - comp.instructions.begin;
  // Instruction names are scoped to their computation.
  instruction_names_.NewScope();
  Id explicit_root = kNone;
  Id last_top_level = kNone;
  for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
    Instruction& inst = file_.instructions[i];
    inst.computation = comp_id;
    if (inst.is_nested) continue;
    last_top_level = i;
    if (!instruction_names_.Insert(Text(inst.name), i)) {
      const Id first = instruction_names_.Find(Text(inst.name));
      Error(inst.name,
            absl::StrCat("redefinition of '", ToAbsl(Text(inst.name)), "'"),
            RelatedSpan{file_.instructions[first].name, "first defined here"});
    }
    if (inst.is_root) {
      if (explicit_root != kNone) {
        Error(inst.name, "more than one ROOT in the computation");
      } else {
        explicit_root = i;
      }
    }
  }
  comp.root = explicit_root != kNone ? explicit_root : last_top_level;
  if (comp.root != kNone) file_.instructions[comp.root].is_root = true;
  for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
    const Instruction& inst = file_.instructions[i];
    for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
      Operand& operand = file_.operands[o];
      if (operand.nested != kNone || operand.name.empty()) continue;
      operand.definition = instruction_names_.Find(Text(operand.name));
      if (operand.definition == kNone && !(bare_ && operand.shape != kNone)) {
        Error(operand.name, absl::StrCat("use of undefined value '",
                                         ToAbsl(Text(operand.name)), "'"));
      }
    }
    for (Id r = inst.control_predecessors.begin;
         r < inst.control_predecessors.end(); ++r) {
      NameRef& ref = file_.name_refs[r];
      ref.definition = instruction_names_.Find(Text(ref.name));
      if (ref.definition == kNone) {
        Error(ref.name, absl::StrCat("use of undefined value '",
                                     ToAbsl(Text(ref.name)), "'"));
      }
    }
  }
}

// ------------------------------------------------------------- recovery --

bool Parser::AtRecoveryPoint(bool in_computation) {
  Token t = lexer_.Peek();
  switch (t.kind) {
    case TokenKind::kEof:
    case TokenKind::kSeparator:
      return true;
    case TokenKind::kRBrace:
      return in_computation;
    default:
      break;
  }
  if (IsIdent(t, "HloModule") || IsIdent(t, "ENTRY") || IsIdent(t, "ROOT")) {
    return true;
  }
  if (StartsInstruction()) return in_computation;
  return StartsComputation();
}

void Parser::RecoverToLineStart(bool in_computation) {
  // Always make progress: move past the current line first.
  while (true) {
    lexer_.SkipToNextLine();
    if (lexer_.pos() >= text_.size()) return;
    if (AtRecoveryPoint(in_computation)) return;
  }
}

void Parser::RecoverToBodyOrLine() {
  // Used after a broken signature: the body brace usually ends the line.
  Offset line_end = static_cast<Offset>(text_.find('\n', lexer_.pos()));
  if (line_end == static_cast<Offset>(std::string_view::npos)) {
    line_end = static_cast<Offset>(text_.size());
  }
  Offset brace = line_end;
  while (brace > lexer_.pos() &&
         (text_[brace - 1] == ' ' || text_[brace - 1] == '\r' ||
          text_[brace - 1] == '\t')) {
    --brace;
  }
  if (brace > lexer_.pos() && text_[brace - 1] == '{') {
    lexer_.Seek(brace - 1);
  } else {
    RecoverToLineStart(false);
  }
}

}  // namespace internal
}  // namespace hlo
