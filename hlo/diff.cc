// DiffModules: match computations by name, instructions by name and then by
// structure, and compare each matched pair field by field. See diff.h.
//
// What is compared (and what is not): an instruction's shape, opcode,
// operands (for constant(...) and parameter(N), the text inside the
// parentheses), attributes and, when asked, metadata. The ROOT marker, the
// computation signature (it repeats the parameters' shapes and the root's),
// execution_thread and the module header are not: a change there shows on
// the instructions themselves, or is a printing detail.
#include "hlo/diff.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "base/strings.h"

namespace hlo {
namespace {

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

// Words and strings: a blank between two of them is kept.
bool IsWordEnd(char c) { return IsWordChar(c) || c == '"' || c == '\''; }

// The text without the '%' of names, outside quoted strings, and with its
// blanks: each run as one space when `keep_blanks` (for showing), else only
// where they separate two words or strings (for comparing, so that
// `(f32[], s32[])` and `(f32[],s32[])` read the same).
std::string Normalize(std::string_view text, bool keep_blanks) {
  std::string out;
  out.reserve(text.size());
  bool pending_blank = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (base::IsBlank(c)) {
      pending_blank = true;
      continue;
    }
    if (pending_blank && !out.empty() &&
        (keep_blanks ||
         (IsWordEnd(out.back()) && (IsWordEnd(c) || c == '%')))) {
      out += ' ';
    }
    pending_blank = false;
    if (c == '%') continue;
    if (c == '"' || c == '\'') {  // copied verbatim up to its closing quote
      size_t end = i + 1;
      while (end < text.size() && text[end] != c) {
        end += text[end] == '\\' ? 2 : 1;
      }
      end = std::min(end + 1, text.size());
      out.append(text.substr(i, end - i));
      i = end - 1;
      continue;
    }
    out += c;
  }
  return out;
}

std::string Shown(std::string_view text) { return Normalize(text, true); }
std::string Canonical(std::string_view text) { return Normalize(text, false); }

constexpr std::string_view kMetadata = "metadata";
constexpr std::string_view kControlPredecessors = "control-predecessors";

class Differ {
 public:
  Differ(const ParsedFile& a, const ParsedFile& b, const DiffOptions& options)
      : a_(a),
        b_(b),
        options_(options),
        a_to_b_(a.instructions.size(), kNone),
        b_to_a_(b.instructions.size(), kNone) {}

  ModuleDiff Run() {
    Slice a_comps = a_.modules.empty() ? Slice{} : a_.modules[0].computations;
    Slice b_comps = b_.modules.empty() ? Slice{} : b_.modules[0].computations;
    absl::flat_hash_map<std::string_view, Id> b_by_name;
    for (Id c = b_comps.begin; c < b_comps.end(); ++c) {
      b_by_name.try_emplace(b_.Name(b_.computations[c]), c);
    }
    std::vector<Id> a_partner(a_.computations.size(), kNone);
    std::vector<bool> b_matched(b_.computations.size(), false);
    for (Id c = a_comps.begin; c < a_comps.end(); ++c) {
      auto it = b_by_name.find(a_.Name(a_.computations[c]));
      if (it == b_by_name.end() || b_matched[it->second]) {
        result_.computations_removed.emplace_back(a_.Name(a_.computations[c]));
        continue;
      }
      a_partner[c] = it->second;
      b_matched[it->second] = true;
      MatchInstructions(a_.computations[c], b_.computations[it->second]);
    }
    for (Id c = a_comps.begin; c < a_comps.end(); ++c) {
      if (a_partner[c] == kNone) continue;
      const Computation& comp = a_.computations[c];
      for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
        const Instruction& inst = a_.instructions[i];
        if (inst.is_nested || a_to_b_[i] != kNone) continue;
        result_.removed.push_back(Listed(a_, comp, inst));
      }
    }
    for (Id c = b_comps.begin; c < b_comps.end(); ++c) {
      const Computation& comp = b_.computations[c];
      if (!b_matched[c]) {
        result_.computations_added.emplace_back(b_.Name(comp));
        continue;
      }
      for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
        const Instruction& inst = b_.instructions[i];
        if (inst.is_nested) continue;
        if (b_to_a_[i] == kNone) {
          result_.added.push_back(Listed(b_, comp, inst));
        } else {
          Compare(comp, b_to_a_[i], i);
        }
      }
    }
    return std::move(result_);
  }

 private:
  static DiffInstruction Listed(const ParsedFile& file, const Computation& comp,
                                const Instruction& inst) {
    DiffInstruction out;
    out.computation = file.Name(comp);
    out.name = file.Name(inst);
    out.opcode = file.Text(inst.opcode_span);
    out.shape = ShapeText(file, inst);
    out.line = file.lines().LineOf(inst.span.begin) + 1;
    return out;
  }

  static std::string ShapeText(const ParsedFile& file,
                               const Instruction& inst) {
    if (inst.shape == kNone) return "";
    return Shown(file.Text(file.shapes[inst.shape].span));
  }

  void Pair(Id a, Id b) {
    a_to_b_[a] = b;
    b_to_a_[b] = a;
  }

  // ------------------------------------------------------------ matching --

  void MatchInstructions(const Computation& a, const Computation& b) {
    absl::flat_hash_map<std::string_view, Id> b_by_name;
    b_by_name.reserve(b.instructions.count);
    for (Id i = b.instructions.begin; i < b.instructions.end(); ++i) {
      const Instruction& inst = b_.instructions[i];
      if (!inst.is_nested) b_by_name.try_emplace(b_.Name(inst), i);
    }
    bool all_named = true;
    for (Id i = a.instructions.begin; i < a.instructions.end(); ++i) {
      const Instruction& inst = a_.instructions[i];
      if (inst.is_nested) continue;
      auto it = b_by_name.find(a_.Name(inst));
      if (it != b_by_name.end() && b_to_a_[it->second] == kNone) {
        Pair(i, it->second);
      } else {
        all_named = false;
      }
    }
    if (!all_named) MatchByStructure(a, b);
  }

  // Buckets of A's unmatched instructions by key, first in text order first.
  struct Bucket {
    std::vector<Id> ids;
    size_t next = 0;
  };
  using Buckets = absl::flat_hash_map<std::string, Bucket>;

  // Pairs B's unmatched instructions with A's of the same key. A's keys name
  // A's operands; B's name a matched operand by its partner's A name (and an
  // unmatched one not at all), so a user pairs only once its operands have:
  // a pairing re-queues the B users, which is how chains of renames pair,
  // in any text order, in time linear in the edges.
  void MatchByStructure(const Computation& a, const Computation& b) {
    Buckets exact, loose;  // with attributes; opcode, shape and operands only
    for (Id i = a.instructions.begin; i < a.instructions.end(); ++i) {
      if (a_.instructions[i].is_nested || a_to_b_[i] != kNone) continue;
      exact[Key(a_, i, /*b_side=*/false, true)].ids.push_back(i);
      loose[Key(a_, i, /*b_side=*/false, false)].ids.push_back(i);
    }
    // Exact keys first everywhere, so that a `fusion(x), calls=c1` pairs
    // with its equal before the loose key hands it the one calling c2.
    for (bool allow_loose : {false, true}) {
      std::vector<Id> queue;
      for (Id i = b.instructions.begin; i < b.instructions.end(); ++i) {
        if (!b_.instructions[i].is_nested && b_to_a_[i] == kNone) {
          queue.push_back(i);
        }
      }
      for (size_t q = 0; q < queue.size(); ++q) {
        Id i = queue[q];
        if (b_to_a_[i] != kNone) continue;
        Id partner = Take(exact, Key(b_, i, /*b_side=*/true, true));
        if (partner == kNone && allow_loose) {
          partner = Take(loose, Key(b_, i, /*b_side=*/true, false));
        }
        if (partner == kNone) continue;
        Pair(partner, i);  // reported as a rename by Compare
        QueueUsers(i, &queue);
      }
    }
  }

  Id Take(Buckets& buckets, const std::string& key) {
    auto it = buckets.find(key);
    if (it == buckets.end()) return kNone;
    Bucket& bucket = it->second;
    while (bucket.next < bucket.ids.size()) {
      Id id = bucket.ids[bucket.next++];
      if (a_to_b_[id] == kNone) return id;
    }
    return kNone;
  }

  // B's instructions that use `i`, a nested user standing for the top-level
  // instruction holding it.
  void QueueUsers(Id i, std::vector<Id>* queue) {
    if (b_.use_offsets.size() <= i + 1) return;
    for (Id e = b_.use_offsets[i]; e < b_.use_offsets[i + 1]; ++e) {
      Id user = TopLevel(b_.use_edges[e].user);
      if (user != kNone && b_to_a_[user] == kNone) queue->push_back(user);
    }
  }

  Id TopLevel(Id i) {
    if (!b_.instructions[i].is_nested) return i;
    if (nested_parent_.empty()) {
      nested_parent_.assign(b_.instructions.size(), kNone);
      for (Id u = 0; u < b_.instructions.size(); ++u) {
        Slice ops = b_.instructions[u].operands;
        for (Id o = ops.begin; o < ops.end(); ++o) {
          if (b_.operands[o].nested != kNone) {
            nested_parent_[b_.operands[o].nested] = u;
          }
        }
      }
    }
    for (int depth = 0; i != kNone && b_.instructions[i].is_nested; ++depth) {
      if (depth > 1000) return kNone;
      i = nested_parent_[i];
    }
    return i;
  }

  // opcode, shape and operands (and, for `exact`, the attributes but for
  // metadata and control-predecessors), '\0'-separated.
  std::string Key(const ParsedFile& file, Id id, bool b_side, bool exact) {
    const Instruction& inst = file.instructions[id];
    std::string key(file.Text(inst.opcode_span));
    key += '\0';
    key += ShapeText(file, inst);
    key += '\0';
    key += Operands(file, inst, [&](const Operand& op) -> std::string {
      if (!b_side || op.definition == kNone) {
        return std::string(file.Text(op.name));
      }
      Id partner = b_to_a_[op.definition];
      if (partner == kNone) return "\x01";  // matches no A name
      return std::string(a_.Name(a_.instructions[partner]));
    });
    if (exact) {
      key += '\0';
      key += Attributes(file, inst, /*metadata=*/false, nullptr);
    }
    return Canonical(key);
  }

  // ----------------------------------------------------------- rendering --

  // Operand names joined by ", ", each named by `name_of`; a nested operand
  // as `SHAPE OPCODE(OPERANDS), ATTRIBUTES`; for an instruction whose
  // parentheses hold no operands (constant, parameter), their text.
  template <typename NameOf>
  std::string Operands(const ParsedFile& file, const Instruction& inst,
                       const NameOf& name_of, int depth = 0) {
    std::string out;
    if (inst.operands.empty()) {
      std::string_view list = file.Text(inst.operand_list);
      if (list.size() >= 2) out = Shown(list.substr(1, list.size() - 2));
      return out;
    }
    for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
      if (o != inst.operands.begin) out += ", ";
      const Operand& op = file.operands[o];
      if (op.nested != kNone && depth < 64) {
        const Instruction& nested = file.instructions[op.nested];
        out += ShapeText(file, nested);
        out += ' ';
        out += file.Text(nested.opcode_span);
        out += '(';
        out += Operands(file, nested, name_of, depth + 1);
        out += ')';
        std::string attributes = Attributes(file, nested, false, nullptr);
        if (!attributes.empty()) out += ", " + attributes;
      } else if (op.nested != kNone) {
        out += Shown(file.Text(op.span));
      } else {
        out += name_of(op);
      }
    }
    return out;
  }

  // `key=value` of each attribute but metadata, joined by ", " in written
  // order (or metadata's value alone when `metadata`). Control predecessors
  // are written as `predecessors` names them, and left out without it;
  // computation names compare as names, with or without '%'.
  std::string Attributes(const ParsedFile& file, const Instruction& inst,
                         bool metadata,
                         const std::vector<std::string>* predecessors) {
    std::string out;
    for (Id i = inst.attributes.begin; i < inst.attributes.end(); ++i) {
      const Attribute& attr = file.attributes[i];
      std::string_view key = file.Text(attr.key);
      if ((key == kMetadata) != metadata) continue;
      if (metadata) return Shown(file.Text(attr.value));
      if (key == kControlPredecessors && predecessors == nullptr) {
        continue;  // not in a key: its names may not be matched yet
      }
      if (!out.empty()) out += ", ";
      out += key;
      out += '=';
      if (key == kControlPredecessors && predecessors != nullptr) {
        out += '{';
        for (size_t p = 0; p < predecessors->size(); ++p) {
          if (p > 0) out += ", ";
          out += (*predecessors)[p];
        }
        out += '}';
      } else {
        out += Shown(file.Text(attr.value));
        // The printer's fallback `calls=%a, %b` leaves names past the value.
        for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
          const ComputationRef& ref = file.computation_refs[r];
          if (ref.attribute == i && ref.name.begin >= attr.value.end) {
            out += ", ";
            out += file.Text(ref.name);
          }
        }
      }
    }
    return out;
  }

  // ----------------------------------------------------------- comparing --

  void Compare(const Computation& comp, Id a_id, Id b_id) {
    const Instruction& a = a_.instructions[a_id];
    const Instruction& b = b_.instructions[b_id];
    std::string_view a_name = a_.Name(a), b_name = b_.Name(b);
    if (a_name != b_name) {
      result_.renamed.push_back(DiffRename{std::string(b_.Name(comp)),
                                           std::string(a_name),
                                           std::string(b_name)});
    }
    // Equal text is equal everywhere: a name both files define names the
    // same pair (name matching came first).
    if (a_name == b_name && a_.Text(a.span) == b_.Text(b.span)) return;
    auto change = [&](std::string_view field, std::string old_value,
                      std::string new_value) {
      if (old_value == new_value ||
          Canonical(old_value) == Canonical(new_value))
        return;
      result_.changed.push_back(DiffChange{
          std::string(b_.Name(comp)), std::string(b_name), std::string(field),
          std::move(old_value), std::move(new_value)});
    };
    change("shape", ShapeText(a_, a), ShapeText(b_, b));
    change("opcode", std::string(a_.Text(a.opcode_span)),
           std::string(b_.Text(b.opcode_span)));
    // A's operands named through the match, B's as written.
    change("operands",
           Operands(a_, a,
                    [&](const Operand& op) {
                      return NameInB(op.definition, a_.Text(op.name));
                    }),
           Operands(b_, b, [&](const Operand& op) {
             return std::string(b_.Text(op.name));
           }));
    std::vector<std::string> a_preds, b_preds;
    for (Id r = a.control_predecessors.begin; r < a.control_predecessors.end();
         ++r) {
      const NameRef& ref = a_.name_refs[r];
      a_preds.push_back(NameInB(ref.definition, a_.Text(ref.name)));
    }
    for (Id r = b.control_predecessors.begin; r < b.control_predecessors.end();
         ++r) {
      b_preds.emplace_back(b_.Text(b_.name_refs[r].name));
    }
    change("attributes", Attributes(a_, a, false, &a_preds),
           Attributes(b_, b, false, &b_preds));
    if (options_.metadata) {
      change("metadata", Attributes(a_, a, true, nullptr),
             Attributes(b_, b, true, nullptr));
    }
  }

  // The B name of A's instruction `id` when it has a partner, else `name`.
  std::string NameInB(Id id, std::string_view name) {
    if (id != kNone && a_to_b_[id] != kNone) {
      return std::string(b_.Name(b_.instructions[a_to_b_[id]]));
    }
    return std::string(name);
  }

  const ParsedFile& a_;
  const ParsedFile& b_;
  const DiffOptions& options_;
  std::vector<Id> a_to_b_, b_to_a_;
  std::vector<Id> nested_parent_;  // of B, built on first need
  ModuleDiff result_;
};

}  // namespace

ModuleDiff DiffModules(const ParsedFile& a, const ParsedFile& b,
                       const DiffOptions& options) {
  return Differ(a, b, options).Run();
}

}  // namespace hlo
