// textDocument/semanticTokens/full and /range: names, opcodes, shapes and
// attribute keys, in LSP's relative encoding.
#include <algorithm>
#include <optional>

#include "hlo/query.h"
#include "server/features/features.h"

namespace hlo_lsp {
namespace {

enum TokenType : uint32_t {
  kNamespace = 0,  // module name
  kFunction,       // computation names and references
  kVariable,       // instruction names and operands
  kParameter,      // signature parameters
  kType,           // shapes
  kKeyword,        // opcodes
  kProperty,       // attribute keys
};
constexpr uint32_t kDeclaration = 1;  // modifier bit

struct Token {
  hlo::Span span;
  uint32_t type;
  uint32_t modifiers;
};

void Add(hlo::Span span, uint32_t type, uint32_t modifiers, hlo::Span window,
         std::vector<Token>* out) {
  if (span.empty() || span.end < window.begin || span.begin > window.end)
    return;
  out->push_back(Token{span, type, modifiers});
}

// Each use's own copy of its shape's text (shapes are interned by text).
void AddShape(std::optional<hlo::Span> span, hlo::Span window,
              std::vector<Token>* out) {
  if (span) Add(*span, kType, 0, window, out);
}

void Collect(const hlo::ParsedFile& file, hlo::Span window,
             std::vector<Token>* tokens) {
  for (const hlo::Module& mod : file.modules) {
    Add(mod.name, kNamespace, kDeclaration, window, tokens);
  }
  hlo::Slice comps = hlo::ComputationsOverlapping(file, window);
  for (hlo::Id c = comps.begin; c < comps.end(); ++c) {
    const hlo::Computation& comp = file.computations[c];
    Add(comp.name, kFunction, kDeclaration, window, tokens);
    for (hlo::Id p = comp.parameters.begin; p < comp.parameters.end(); ++p) {
      const hlo::Parameter& param = file.parameters[p];
      Add(param.name, kParameter, kDeclaration, window, tokens);
      AddShape(hlo::OwnShapeSpan(file, param), window, tokens);
    }
    AddShape(hlo::OwnResultShapeSpan(file, comp), window, tokens);
    for (hlo::Id i = comp.instructions.begin; i < comp.instructions.end();
         ++i) {
      const hlo::Instruction& inst = file.instructions[i];
      if (inst.span.end < window.begin || inst.span.begin > window.end)
        continue;
      Add(inst.name, kVariable, kDeclaration, window, tokens);
      AddShape(hlo::OwnShapeSpan(file, inst), window, tokens);
      Add(inst.opcode_span, kKeyword, 0, window, tokens);
      for (hlo::Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
        const hlo::Operand& op = file.operands[o];
        AddShape(hlo::OwnShapeSpan(file, op), window, tokens);
        Add(op.name, kVariable, 0, window, tokens);
      }
      for (hlo::Id a = inst.attributes.begin; a < inst.attributes.end(); ++a) {
        Add(file.attributes[a].key, kProperty, 0, window, tokens);
      }
      for (hlo::Id r = inst.called.begin; r < inst.called.end(); ++r) {
        Add(file.computation_refs[r].name, kFunction, 0, window, tokens);
      }
      for (hlo::Id n = inst.control_predecessors.begin;
           n < inst.control_predecessors.end(); ++n) {
        Add(file.name_refs[n].name, kVariable, 0, window, tokens);
      }
    }
  }
}

SemanticTokens Encode(const Snapshot& snap, std::vector<Token> tokens) {
  // Nested ops and shapes inside operands make the order not quite textual;
  // sort and drop overlaps (LSP tokens may not overlap).
  std::sort(tokens.begin(), tokens.end(), [](const Token& a, const Token& b) {
    return a.span.begin < b.span.begin ||
           (a.span.begin == b.span.begin && a.span.end < b.span.end);
  });
  SemanticTokens out;
  out.data.reserve(tokens.size() * 5);
  hlo::Offset covered = 0;
  Position prev{0, 0};
  for (const Token& t : tokens) {
    if (t.span.begin < covered) continue;
    Position start = snap.ToPosition(t.span.begin);
    Position end = snap.ToPosition(t.span.end);
    if (end.line != start.line) continue;  // multi-line tokens: not supported
    covered = t.span.end;
    uint32_t delta_line = start.line - prev.line;
    uint32_t delta_char =
        delta_line == 0 ? start.character - prev.character : start.character;
    out.data.insert(out.data.end(),
                    {delta_line, delta_char, end.character - start.character,
                     t.type, t.modifiers});
    prev = start;
  }
  return out;
}

}  // namespace

const std::vector<const char*>& SemanticTokenTypes() {
  static const std::vector<const char*> kTypes = {
      "namespace", "function", "variable", "parameter",
      "type",      "keyword",  "property"};
  return kTypes;
}

const std::vector<const char*>& SemanticTokenModifiers() {
  static const std::vector<const char*> kModifiers = {"declaration"};
  return kModifiers;
}

SemanticTokens SemanticTokensFull(const Snapshot& snap) {
  std::vector<Token> tokens;
  hlo::Span all{0, static_cast<hlo::Offset>(snap.file->text().size())};
  Collect(*snap.file, all, &tokens);
  return Encode(snap, std::move(tokens));
}

SemanticTokens SemanticTokensRange(const Snapshot& snap, Range range) {
  std::vector<Token> tokens;
  hlo::Span window{snap.ToOffset(range.start), snap.ToOffset(range.end)};
  Collect(*snap.file, window, &tokens);
  return Encode(snap, std::move(tokens));
}

}  // namespace hlo_lsp
