// Buffer types b(...) (XLA's hlo_verifier.cc VerifyBuffers): only
// custom-calls, tuples, get-tuple-elements, whiles and non-entry parameters
// may carry them; a custom-call names each buffer it takes or gives in one
// output_to_operand_aliasing pair; Pin/Unpin/CreateBuffer have fixed forms;
// and an SSA buffer value has at most one writer (a custom-call, call,
// fusion, while or conditional that takes it, or a while body's root).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "hlo/attributes.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

using Index = std::vector<int64_t>;
constexpr int kMaxBufferDepth =
    64;  // shape nesting and get-tuple-element chains
constexpr int64_t kMaxWriterSteps =
    100000;  // CountWriters calls per buffer value

std::string BufferIndexString(const Index& index) {
  std::string out = "{";
  for (size_t i = 0; i < index.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(index[i]);
  }
  return out + "}";
}

class BufferChecker {
 public:
  BufferChecker(const Findings& f, bool layout_sensitive)
      : f_(f), file_(f.file), layout_sensitive_(layout_sensitive) {}

  void Run() {
    // Without a buffer type anywhere only Pin/Unpin/CreateBuffer can be
    // wrong; real dumps have none, so this stays one scan of the shapes.
    const bool any = std::any_of(
        file_.shapes.begin(), file_.shapes.end(), [](const Shape& s) {
          return s.element_type == PrimitiveType::kBuffer;
        });
    for (Id id = 0; id < file_.instructions.size(); ++id) {
      const Instruction& inst = file_.instructions[id];
      if (!any && inst.opcode != Opcode::kCustomCall) continue;
      switch (inst.opcode) {
        case Opcode::kCustomCall:
          CheckCustomCall(id, any);
          break;
        case Opcode::kWhile:
          CheckUniqueWriters(id);
          break;
        case Opcode::kParameter:
          if (InEntry(inst)) CheckNoBuffers(inst);
          CheckUniqueWriters(id);
          break;
        case Opcode::kTuple:
        case Opcode::kGetTupleElement:
          break;
        default:
          CheckNoBuffers(inst);
          break;
      }
    }
  }

 private:
  const Shape* At(Id s) const {
    return s < file_.shapes.size() ? &file_.shapes[s] : nullptr;
  }
  bool IsBuffer(Id s) const {
    const Shape* shape = At(s);
    return shape && shape->element_type == PrimitiveType::kBuffer;
  }
  bool IsArray(Id s) const {
    const Shape* shape = At(s);
    return shape && IsArrayType(shape->element_type);
  }
  Id Element(const Shape& shape, int64_t i) const {
    if (i < 0 || i >= shape.tuple.count) return kNone;
    return file_.shape_ids[shape.tuple.begin + i];
  }
  Id BufferOf(Id s) const { return IsBuffer(s) ? Element(*At(s), 0) : kNone; }

  // The subshape of `s` at `index`; kNone when the index does not apply.
  Id Subshape(Id s, const Index& index) const {
    for (int64_t i : index) {
      const Shape* shape = At(s);
      if (!shape || !shape->is_tuple()) return kNone;
      s = Element(*shape, i);
    }
    return s;
  }

  // Every buffer of `s` with its index (tuples recurse; a buffer is a leaf).
  void Buffers(Id s, Index* index, std::vector<Index>* out, int depth) const {
    const Shape* shape = At(s);
    if (!shape || depth > kMaxBufferDepth) return;
    if (shape->element_type == PrimitiveType::kBuffer) out->push_back(*index);
    if (!shape->is_tuple()) return;
    for (Id i = 0; i < shape->tuple.count; ++i) {
      index->push_back(i);
      Buffers(Element(*shape, i), index, out, depth + 1);
      index->pop_back();
    }
  }
  std::vector<Index> Buffers(Id s) const {
    std::vector<Index> out;
    Index index;
    Buffers(s, &index, &out, 0);
    return out;
  }

  Id ShapeOf(Id inst) const {
    return inst < file_.instructions.size() ? file_.instructions[inst].shape
                                            : kNone;
  }
  Id DefinitionOf(const Instruction& inst, Id k) const {
    const Operand& o = file_.operands[inst.operands.begin + k];
    return o.Producer();
  }
  Id OperandShape(const Instruction& inst, Id k) const {
    Id def = DefinitionOf(inst, k);
    if (def != kNone && ShapeOf(def) != kNone) return ShapeOf(def);
    return file_.operands[inst.operands.begin + k].shape;
  }
  Span Where(const Instruction& inst) const {
    return inst.name.empty() ? inst.span : inst.name;
  }
  bool InEntry(const Instruction& inst) const {
    return inst.computation < file_.computations.size() &&
           file_.computations[inst.computation].is_entry;
  }

  // ---------------------------------------------------------- contexts --

  void CheckNoBuffers(const Instruction& inst) {
    bool seen = !Buffers(inst.shape).empty();
    for (Id k = 0; k < inst.operands.count && !seen; ++k) {
      seen = !Buffers(OperandShape(inst, k)).empty();
    }
    if (seen) {
      f_.Error(Where(inst),
               base::Cat("Seen buffers while buffers aren't allowed in this "
                         "context: ",
                         file_.Name(inst)));
    }
  }

  // ------------------------------------------------------- custom-calls --

  void CheckCustomCall(Id id, bool any_buffer) {
    const Instruction& inst = file_.instructions[id];
    const Attribute* target = file_.FindAttribute(inst, "custom_call_target");
    std::string name;
    if (target != nullptr) {
      auto decoded = DecodeCustomCallTarget(file_.Text(target->value));
      if (decoded.ok()) name = *decoded;
    }
    const bool special =
        name == "Pin" || name == "Unpin" || name == "CreateBuffer";
    if (!special && !any_buffer) return;
    const Attribute* alias =
        file_.FindAttribute(inst, "output_to_operand_aliasing");
    std::vector<OutputOperandAlias> pairs;
    if (alias != nullptr) {
      auto decoded = DecodeOutputToOperandAliasing(file_.Text(alias->value));
      if (!decoded.ok()) return;  // the attribute checks report it
      pairs = *std::move(decoded);
    }
    if (name == "Pin" || name == "Unpin") {
      CheckPinOrUnpin(id, name == "Pin", pairs.size(), alias);
    } else if (name == "CreateBuffer") {
      if (inst.operands.count != 0) {
        f_.Error(inst.operand_list,
                 "custom-call to CreateBuffer can't have an operand");
      } else if (!IsBuffer(inst.shape)) {
        f_.Error(Where(inst),
                 "custom-call to CreateBuffer must have one buffer result");
      } else {
        CheckUniqueWriter(id, {});
      }
    } else {
      CheckAliasedBuffers(id, pairs, alias);
    }
  }

  void CheckPinOrUnpin(Id id, bool pin, size_t aliases, const Attribute* attr) {
    const Instruction& inst = file_.instructions[id];
    const char* what = pin ? "custom-call to Pin" : "custom-call to Unpin";
    Id in = inst.operands.count == 1 ? OperandShape(inst, 0) : kNone;
    // Pin: array -> b(array); Unpin: b(array) -> array.
    Id array = pin ? in : inst.shape;
    Id buffer = pin ? inst.shape : in;
    if (pin && (inst.operands.count != 1 || !IsArray(in))) {
      f_.Error(inst.operand_list,
               base::Cat(what, " must have one array non-buffer operand"));
    } else if (pin && !IsBuffer(inst.shape)) {
      f_.Error(Where(inst), base::Cat(what, " must have one buffer result"));
    } else if (!pin && (inst.operands.count != 1 || !IsBuffer(in))) {
      f_.Error(inst.operand_list,
               base::Cat(what, " must have one buffer operand"));
    } else if (!pin && !IsArray(inst.shape)) {
      f_.Error(Where(inst),
               base::Cat(what, " must have one array non-buffer result"));
    } else if (!SameShape(array, BufferOf(buffer))) {
      f_.Error(Where(inst),
               base::Cat(what, " must have the same shape as the operand"));
    } else if (aliases != 1) {
      f_.Error(attr ? attr->span : Where(inst),
               base::Cat(what, " must have one output-to-operand aliasing"));
    } else if (pin) {
      CheckUniqueWriter(id, {});
    }
  }

  // Element type and dimensions (and the layout when layout sensitive).
  bool SameShape(Id a, Id b) const {
    const Shape* x = At(a);
    const Shape* y = At(b);
    if (!x || !y) return true;  // unknown: nothing to say
    if (x->element_type != y->element_type) return false;
    if (x->is_tuple()) return true;  // Pin/Unpin take arrays only
    if (!std::equal(file_.Ints(x->dims), file_.Ints(x->dims) + x->dims.count,
                    file_.Ints(y->dims), file_.Ints(y->dims) + y->dims.count)) {
      return false;
    }
    return !layout_sensitive_ || MinorToMajor(*x) == MinorToMajor(*y);
  }
  std::vector<int64_t> MinorToMajor(const Shape& s) const {
    if (s.layout != kNone && s.layout < file_.layouts.size()) {
      Slice m = file_.layouts[s.layout].minor_to_major;
      return {file_.Ints(m), file_.Ints(m) + m.count};
    }
    std::vector<int64_t> out;  // XLA's default: major-to-minor in order
    for (int64_t d = static_cast<int64_t>(s.dims.count) - 1; d >= 0; --d)
      out.push_back(d);
    return out;
  }

  // Every buffer operand and result in exactly one aliasing pair; each
  // buffer result then has at most one writer.
  void CheckAliasedBuffers(Id id, const std::vector<OutputOperandAlias>& pairs,
                           const Attribute* attr) {
    const Instruction& inst = file_.instructions[id];
    std::map<std::pair<int64_t, Index>, int> operand_parts;
    std::map<Index, int> result_parts;
    for (const OutputOperandAlias& p : pairs) {
      ++operand_parts[{p.operand_index, p.operand_shape_index}];
      ++result_parts[p.output_shape_index];
    }
    for (Id k = 0; k < inst.operands.count; ++k) {
      for (const Index& index : Buffers(OperandShape(inst, k))) {
        auto it = operand_parts.find({k, index});
        const Span at = file_.operands[inst.operands.begin + k].span;
        if (it == operand_parts.end()) {
          f_.Error(at, base::Cat("buffer is used in operands but not in "
                                 "results: operand ",
                                 k, " ShapeIndex ", BufferIndexString(index)));
          return;
        }
        if (it->second > 1) {
          f_.Error(attr->span,
                   base::Cat("buffer is used in results multiple "
                             "times: operand ",
                             k, " ShapeIndex ", BufferIndexString(index)));
          return;
        }
      }
    }
    for (const Index& index : Buffers(inst.shape)) {
      auto it = result_parts.find(index);
      if (it == result_parts.end()) {
        f_.Error(attr ? attr->span : Where(inst),
                 base::Cat("buffer is used in results but not in operands: ",
                           BufferIndexString(index)));
        return;
      }
      if (it->second > 1) {
        f_.Error(attr->span,
                 base::Cat("buffer is used in operands multiple times: ",
                           BufferIndexString(index)));
        return;
      }
    }
    for (const Index& index : Buffers(inst.shape)) {
      if (!CheckUniqueWriter(id, index)) return;
    }
  }

  // ------------------------------------------------------------ writers --

  void CheckUniqueWriters(Id id) {
    for (const Index& index : Buffers(ShapeOf(id))) {
      if (!CheckUniqueWriter(id, index)) return;
    }
  }

  bool CheckUniqueWriter(Id id, const Index& index) {
    steps_ = 0;
    if (CountWriters(id, index, 0) <= 1) return true;
    const Instruction& inst = file_.instructions[id];
    f_.Error(Where(inst),
             base::Cat("an HLO buffer value has more than one writers (or "
                       "unpins): '",
                       file_.Name(inst), "' '", BufferIndexString(index), "'"));
    return false;
  }

  // Distinct users of `id`, in text order.
  std::vector<Id> Users(Id id) const {
    std::vector<Id> users;
    if (id + 1 >= file_.use_offsets.size()) return users;
    for (Id e = file_.use_offsets[id]; e < file_.use_offsets[id + 1]; ++e) {
      Id user = file_.use_edges[e].user;
      if (std::find(users.begin(), users.end(), user) == users.end()) {
        users.push_back(user);
      }
    }
    return users;
  }

  bool CalledByWhile(Id computation) const {
    if (computation + 1 >= file_.caller_offsets.size()) return false;
    for (Id r = file_.caller_offsets[computation];
         r < file_.caller_offsets[computation + 1]; ++r) {
      const ComputationRef& ref = file_.computation_refs[file_.caller_refs[r]];
      if (ref.instruction != kNone &&
          file_.instructions[ref.instruction].opcode == Opcode::kWhile) {
        return true;
      }
    }
    return false;
  }

  int64_t CountWriters(Id id, const Index& index, int depth) const {
    // Tuples of tuples can fan out into exponentially many paths; past the
    // budget the count stops growing (no finding rather than no answer).
    if (depth > kMaxBufferDepth || ++steps_ > kMaxWriterSteps) return 0;
    int64_t writers = 0;
    for (Id user : Users(id)) writers += WritersIn(id, index, user, depth);
    return writers;
  }

  // XLA's CountWritersInUser: callers and loops write what they take; a
  // get-tuple-element or (non-root) tuple passes the value on; a while
  // body's root tuple hands it to the next iteration, which writes it.
  int64_t WritersIn(Id id, const Index& index, Id user_id, int depth) const {
    const Instruction& user = file_.instructions[user_id];
    switch (user.opcode) {
      case Opcode::kCustomCall:
      case Opcode::kCall:
      case Opcode::kFusion:
      case Opcode::kWhile:
      case Opcode::kConditional:
        return 1;
      case Opcode::kGetTupleElement: {
        const Attribute* a = file_.FindAttribute(user, "index");
        if (a == nullptr || index.empty()) return 0;
        absl::StatusOr<int64_t> i = DecodeInt(file_.Text(a->value));
        if (!i.ok() || *i != index[0]) return 0;
        return CountWriters(user_id, Index(index.begin() + 1, index.end()),
                            depth + 1);
      }
      case Opcode::kTuple: {
        if (user.is_root) return CalledByWhile(user.computation) ? 1 : 0;
        Index deeper = {0};
        for (Id k = 0; k < user.operands.count; ++k) {
          if (DefinitionOf(user, k) == id) {
            deeper[0] = k;
            break;
          }
        }
        deeper.insert(deeper.end(), index.begin(), index.end());
        return CountWriters(user_id, deeper, depth + 1);
      }
      default:
        return 0;
    }
  }

  const Findings& f_;
  const ParsedFile& file_;
  bool layout_sensitive_;
  mutable int64_t steps_ = 0;  // CountWriters calls for one value
};

}  // namespace

void CheckBuffers(const Findings& f, bool layout_sensitive) {
  BufferChecker(f, layout_sensitive).Run();
}

}  // namespace hlo::verify_internal
