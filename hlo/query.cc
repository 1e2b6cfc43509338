#include "hlo/query.h"

#include <algorithm>
#include <charconv>

#include "base/strings.h"

namespace hlo {
namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

// The shape `id`'s text when written with its first character at `begin`
// (blanks skipped), no further than `limit`.
std::optional<Span> ShapeTextFrom(const ParsedFile& file, Id id, Offset begin,
                                  Offset limit) {
  if (id >= file.shapes.size() || file.shapes[id].span.empty()) {
    return std::nullopt;
  }
  const Span interned = file.shapes[id].span;
  std::string_view text = file.text();
  limit = std::min<Offset>(limit, static_cast<Offset>(text.size()));
  while (begin < limit && base::IsBlank(text[begin])) ++begin;
  if (begin > limit || limit - begin < interned.size()) return std::nullopt;
  const Span own{begin, begin + interned.size()};
  if (file.Text(own) != file.Text(interned)) return std::nullopt;
  return own;
}

// The shape `id`'s text when written with its last character just before
// `end` (blanks skipped).
std::optional<Span> ShapeTextBefore(const ParsedFile& file, Id id, Offset end) {
  if (id >= file.shapes.size() || file.shapes[id].span.empty()) {
    return std::nullopt;
  }
  const Offset size = file.shapes[id].span.size();
  std::string_view text = file.text();
  end = std::min<Offset>(end, static_cast<Offset>(text.size()));
  while (end > 0 && base::IsBlank(text[end - 1])) --end;
  if (end < size) return std::nullopt;
  return ShapeTextFrom(file, id, end - size, end);
}

// Picks the smaller of two candidate spans (the innermost node wins).
bool Tighter(Span candidate, const NodeAt& best) {
  return best.kind == NodeKind::kNone || candidate.size() < best.span.size();
}

void Consider(NodeAt* best, NodeKind kind, Id id, Id instruction,
              Id computation, Span span, Offset offset) {
  if (span.empty() || !span.Touches(offset)) return;
  if (!Tighter(span, *best)) return;
  *best = NodeAt{kind, id, instruction, computation, span};
}

void InspectInstruction(const ParsedFile& file, Id i, Offset offset,
                        NodeAt* best) {
  const Instruction& inst = file.instructions[i];
  Consider(best, NodeKind::kInstructionName, i, i, inst.computation, inst.name,
           offset);
  Consider(best, NodeKind::kOpcode, i, i, inst.computation, inst.opcode_span,
           offset);
  for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
    const Operand& op = file.operands[o];
    if (op.name.empty()) continue;  // a nested op: inspected on its own
    Consider(best, NodeKind::kOperand, o, i, inst.computation, op.name, offset);
  }
  for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
    Consider(best, NodeKind::kComputationRef, r, i, inst.computation,
             file.computation_refs[r].name, offset);
  }
  for (Id n = inst.control_predecessors.begin;
       n < inst.control_predecessors.end(); ++n) {
    Consider(best, NodeKind::kControlPredecessor, n, i, inst.computation,
             file.name_refs[n].name, offset);
  }
}

std::string_view StripQuotes(std::string_view s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') &&
      s.back() == s.front()) {
    return s.substr(1, s.size() - 2);
  }
  return s;
}

}  // namespace

Id ComputationAt(const ParsedFile& file, Offset offset) {
  // Computations are in text order; find the last one starting at or before
  // the offset.
  const auto& comps = file.computations;
  auto it = std::upper_bound(
      comps.begin(), comps.end(), offset,
      [](Offset off, const Computation& c) { return off < c.span.begin; });
  if (it == comps.begin()) return kNone;
  --it;
  if (!it->span.Touches(offset)) return kNone;
  return static_cast<Id>(it - comps.begin());
}

Slice ComputationsOverlapping(const ParsedFile& file, Span span) {
  const auto& comps = file.computations;
  auto first = std::lower_bound(
      comps.begin(), comps.end(), span.begin,
      [](const Computation& c, Offset off) { return c.span.end < off; });
  auto last = std::upper_bound(
      first, comps.end(), span.end,
      [](Offset off, const Computation& c) { return off < c.span.begin; });
  return Slice{static_cast<Id>(first - comps.begin()),
               static_cast<Id>(last - first)};
}

Id InstructionAt(const ParsedFile& file, Offset offset) {
  Id c = ComputationAt(file, offset);
  if (c == kNone) return kNone;
  const Computation& comp = file.computations[c];
  Id best = kNone;
  for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
    const Span span = file.instructions[i].span;
    if (!span.Touches(offset)) continue;
    if (best == kNone || span.size() < file.instructions[best].span.size()) {
      best = i;
    }
  }
  return best;
}

NodeAt FindNodeAt(const ParsedFile& file, Offset offset) {
  NodeAt best;
  Id c = ComputationAt(file, offset);
  if (c != kNone) {
    const Computation& comp = file.computations[c];
    Consider(&best, NodeKind::kComputationName, c, kNone, c, comp.name, offset);
    for (Id p = comp.parameters.begin; p < comp.parameters.end(); ++p) {
      Consider(&best, NodeKind::kSignatureParameter, p, kNone, c,
               file.parameters[p].name, offset);
    }
    if (comp.body.Touches(offset) || comp.body.empty()) {
      for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
        if (file.instructions[i].span.Touches(offset)) {
          InspectInstruction(file, i, offset, &best);
        }
      }
    }
    if (best.kind != NodeKind::kNone) return best;
  }
  for (Id m = 0; m < file.modules.size(); ++m) {
    Consider(&best, NodeKind::kModuleName, m, kNone, kNone,
             file.modules[m].name, offset);
  }
  return best;
}

NodeAt DefinitionOf(const ParsedFile& file, const NodeAt& node) {
  auto instruction = [&](Id i) {
    if (i == kNone || i >= file.instructions.size()) return NodeAt{};
    const Instruction& inst = file.instructions[i];
    return NodeAt{NodeKind::kInstructionName, i, i, inst.computation,
                  inst.name};
  };
  auto computation = [&](Id c) {
    if (c == kNone || c >= file.computations.size()) return NodeAt{};
    return NodeAt{NodeKind::kComputationName, c, kNone, c,
                  file.computations[c].name};
  };
  switch (node.kind) {
    case NodeKind::kInstructionName:
    case NodeKind::kOpcode:
      return instruction(node.instruction);
    case NodeKind::kOperand:
      return instruction(file.operands[node.id].definition);
    case NodeKind::kControlPredecessor:
      return instruction(file.name_refs[node.id].definition);
    case NodeKind::kComputationRef:
      return computation(file.computation_refs[node.id].computation);
    case NodeKind::kComputationName:
      return computation(node.id);
    case NodeKind::kSignatureParameter:
      return instruction(FindInstruction(
          file, node.computation, file.Text(file.parameters[node.id].name)));
    case NodeKind::kModuleName:
    case NodeKind::kNone:
      break;
  }
  return NodeAt{};
}

Id NamedInstructionAt(const ParsedFile& file, Offset offset) {
  NodeAt node = FindNodeAt(file, offset);
  if (node.kind == NodeKind::kNone) return kNone;
  NodeAt def = DefinitionOf(file, node);
  return def.kind == NodeKind::kInstructionName ? def.id : kNone;
}

std::vector<Use> UsersOf(const ParsedFile& file, Id instruction) {
  std::vector<Use> uses;
  if (instruction >= file.instructions.size() ||
      instruction + 1 >= file.use_offsets.size()) {
    return uses;
  }
  for (Id e = file.use_offsets[instruction];
       e < file.use_offsets[instruction + 1]; ++e) {
    const ParsedFile::UseEdge& edge = file.use_edges[e];
    uses.push_back(
        Use{edge.user, edge.operand, kNone, file.operands[edge.operand].name});
  }
  // Control edges are few: scan the enclosing computation for them.
  Id c = file.instructions[instruction].computation;
  if (c != kNone && c < file.computations.size()) {
    const Computation& comp = file.computations[c];
    for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
      const Instruction& inst = file.instructions[i];
      for (Id n = inst.control_predecessors.begin;
           n < inst.control_predecessors.end(); ++n) {
        if (file.name_refs[n].definition == instruction) {
          uses.push_back(Use{i, kNone, n, file.name_refs[n].name});
        }
      }
    }
  }
  return uses;
}

size_t UserCount(const ParsedFile& file, Id instruction) {
  if (instruction + 1 >= file.use_offsets.size()) return 0;
  size_t count = 0;
  Id last = kNone;
  for (Id e = file.use_offsets[instruction];
       e < file.use_offsets[instruction + 1]; ++e) {
    Id user = file.use_edges[e].user;
    if (user != last) ++count;
    last = user;
  }
  return count;
}

std::vector<Id> CallersOf(const ParsedFile& file, Id computation) {
  if (computation + 1 >= file.caller_offsets.size()) return {};
  return std::vector<Id>(
      file.caller_refs.begin() + file.caller_offsets[computation],
      file.caller_refs.begin() + file.caller_offsets[computation + 1]);
}

std::vector<Id> CalleesOf(const ParsedFile& file, Id computation) {
  std::vector<Id> refs;
  if (computation >= file.computations.size()) return refs;
  const Computation& comp = file.computations[computation];
  for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
    const Instruction& inst = file.instructions[i];
    for (Id r = inst.called.begin; r < inst.called.end(); ++r)
      refs.push_back(r);
  }
  return refs;
}

std::optional<int64_t> ParameterNumber(const ParsedFile& file, Id instruction) {
  if (instruction >= file.instructions.size()) return std::nullopt;
  const Instruction& inst = file.instructions[instruction];
  if (inst.opcode != Opcode::kParameter) return std::nullopt;
  std::string_view list = file.Text(inst.operand_list);
  while (!list.empty() && !(list.front() >= '0' && list.front() <= '9')) {
    list.remove_prefix(1);
  }
  int64_t n = -1;
  auto [ptr, ec] = std::from_chars(list.data(), list.data() + list.size(), n);
  if (ec != std::errc() || n < 0) return std::nullopt;
  return n;
}

Id CallSiteOperand(const ParsedFile& file, Id ref, int64_t parameter_number) {
  if (ref >= file.computation_refs.size() || parameter_number < 0) return kNone;
  const ComputationRef& r = file.computation_refs[ref];
  if (r.instruction >= file.instructions.size()) return kNone;
  const Instruction& inst = file.instructions[r.instruction];
  int64_t index = -1;
  switch (inst.opcode) {
    case Opcode::kCall:
    case Opcode::kFusion:
    case Opcode::kAsyncStart:
      index = parameter_number;
      break;
    case Opcode::kWhile:
      index = parameter_number == 0 ? 0 : -1;
      break;
    case Opcode::kConditional: {
      if (parameter_number != 0) break;
      // Branch k of branch_computations (or true/false) takes operand k+1.
      std::string_view key = r.attribute < file.attributes.size()
                                 ? file.Text(file.attributes[r.attribute].key)
                                 : std::string_view();
      if (key == "true_computation") {
        index = 1;
      } else if (key == "false_computation") {
        index = 2;
      } else {
        int64_t k = 0;
        for (Id o = inst.called.begin; o < ref; ++o) {
          if (file.computation_refs[o].attribute == r.attribute) ++k;
        }
        index = k + 1;
      }
      break;
    }
    default:
      break;
  }
  if (index < 0 || index >= static_cast<int64_t>(inst.operands.count)) {
    return kNone;
  }
  return inst.operands.begin + static_cast<Id>(index);
}

Id FindComputation(const ParsedFile& file, std::string_view name, Id module) {
  for (Id c = 0; c < file.computations.size(); ++c) {
    const Computation& comp = file.computations[c];
    if ((module == kNone || comp.module == module) && file.Name(comp) == name) {
      return c;
    }
  }
  return kNone;
}

Id FindInstruction(const ParsedFile& file, Id computation,
                   std::string_view name) {
  if (computation >= file.computations.size()) return kNone;
  const Computation& comp = file.computations[computation];
  for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
    const Instruction& inst = file.instructions[i];
    if (!inst.is_nested && file.Name(inst) == name) return i;
  }
  return kNone;
}

std::string_view MetadataField(const ParsedFile& file, Id instruction,
                               std::string_view key, Span* where) {
  if (instruction >= file.instructions.size()) return {};
  const Attribute* md =
      file.FindAttribute(file.instructions[instruction], "metadata");
  if (md == nullptr) return {};
  std::string_view value = file.Text(md->value);
  size_t i = 0;
  while (i < value.size()) {
    char c = value[i];
    if (c == '"' || c == '\'') {  // skip a string we are not looking for
      char quote = c;
      for (++i; i < value.size() && value[i] != quote; ++i) {
        if (value[i] == '\\') ++i;
      }
      ++i;
      continue;
    }
    bool boundary = i == 0 || !IsNameChar(value[i - 1]);
    if (boundary && value.compare(i, key.size(), key) == 0 &&
        i + key.size() < value.size() && value[i + key.size()] == '=') {
      size_t start = i + key.size() + 1;
      size_t end = start;
      if (start < value.size() &&
          (value[start] == '"' || value[start] == '\'')) {
        char quote = value[start];
        for (end = start + 1; end < value.size() && value[end] != quote;
             ++end) {
          if (value[end] == '\\') ++end;
        }
        end = std::min(end + 1, value.size());
      } else {
        while (end < value.size() && value[end] != ' ' && value[end] != ',' &&
               value[end] != '}') {
          ++end;
        }
      }
      std::string_view raw = value.substr(start, end - start);
      std::string_view stripped = StripQuotes(raw);
      if (where != nullptr) {
        Offset base = md->value.begin + static_cast<Offset>(start) +
                      static_cast<Offset>(stripped.data() - raw.data());
        *where = Span{base, base + static_cast<Offset>(stripped.size())};
      }
      return stripped;
    }
    ++i;
  }
  return {};
}

bool StackFrameLocation(const ParsedFile& file, Id module, int64_t frame_id,
                        std::string_view* file_name, int64_t* line,
                        std::string_view* function_name) {
  if (module >= file.modules.size()) return false;
  const StackFrameTables& t = file.modules[module].stack_frames;
  // Ids in the printed tables are 1-based.
  if (frame_id < 1 || frame_id > static_cast<int64_t>(t.stack_frames.size())) {
    return false;
  }
  const StackFrame& frame = t.stack_frames[frame_id - 1];
  int64_t loc_id = frame.file_location_id;
  if (loc_id < 1 || loc_id > static_cast<int64_t>(t.file_locations.size())) {
    return false;
  }
  const FileLocation& loc = t.file_locations[loc_id - 1];
  if (loc.file_name_id < 1 ||
      loc.file_name_id > static_cast<int64_t>(t.file_names.size())) {
    return false;
  }
  *file_name = StripQuotes(file.Text(t.file_names[loc.file_name_id - 1]));
  *line = loc.line;
  *function_name = {};
  if (loc.function_name_id >= 1 &&
      loc.function_name_id <= static_cast<int64_t>(t.function_names.size())) {
    *function_name =
        StripQuotes(file.Text(t.function_names[loc.function_name_id - 1]));
  }
  return true;
}

std::optional<Span> OwnShapeSpan(const ParsedFile& file,
                                 const Instruction& inst) {
  if (inst.opcode_span.empty()) return std::nullopt;
  return ShapeTextBefore(file, inst.shape, inst.opcode_span.begin);
}

std::optional<Span> OwnShapeSpan(const ParsedFile& file,
                                 const Operand& operand) {
  return ShapeTextFrom(file, operand.shape, operand.span.begin,
                       operand.span.end);
}

std::optional<Span> OwnShapeSpan(const ParsedFile& file,
                                 const Parameter& param) {
  std::string_view text = file.text();
  Offset at = param.name.end;
  while (at < text.size() && base::IsBlank(text[at])) ++at;
  if (at >= text.size() || text[at] != ':') return std::nullopt;
  return ShapeTextFrom(file, param.shape, at + 1,
                       static_cast<Offset>(text.size()));
}

std::optional<Span> OwnResultShapeSpan(const ParsedFile& file,
                                       const Computation& comp) {
  if (comp.body.empty()) return std::nullopt;
  return ShapeTextBefore(file, comp.result_shape, comp.body.begin);
}

}  // namespace hlo
