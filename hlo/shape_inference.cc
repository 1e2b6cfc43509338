// Shape inference: the shared plumbing (shapes by value, operand shapes,
// attribute access), the dispatch to the family files, the verifier's shape
// check and the filling of shapes left out of hand-written text.
#include "hlo/shape_inference.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hlo/attributes.h"
#include "hlo/query.h"
#include "hlo/shape_inference_internal.h"

#define XXH_INLINE_ALL
#include "xxhash.h"

namespace hlo {
namespace sii = shape_inference_internal;
namespace {

constexpr int kMaxDepth = 64;

bool ShapeFromFileImpl(const ParsedFile& file, Id id, int depth,
                       InferredShape* out) {
  if (id == kNone || id >= file.shapes.size() || depth > kMaxDepth) {
    return false;
  }
  const Shape& shape = file.shapes[id];
  out->element_type = shape.element_type;
  // b(...) keeps what it holds as its one element, for messages.
  if (shape.is_tuple() || shape.element_type == PrimitiveType::kBuffer) {
    out->dims.clear();
    out->tuple.resize(shape.tuple.count);
    for (Id i = 0; i < shape.tuple.count; ++i) {
      if (shape.tuple.begin + i >= file.shape_ids.size() ||
          !ShapeFromFileImpl(file, file.shape_ids[shape.tuple.begin + i],
                             depth + 1, &out->tuple[i])) {
        return false;
      }
    }
    return true;
  }
  if (shape.dims.end() > file.ints.size()) return false;
  out->tuple.clear();
  out->dims.assign(file.ints.begin() + shape.dims.begin,
                   file.ints.begin() + shape.dims.end());
  return true;
}

void AppendShapeString(const InferredShape& shape, std::string* out) {
  if (shape.element_type == PrimitiveType::kBuffer && shape.tuple.size() == 1) {
    out->append("b(");
    AppendShapeString(shape.tuple[0], out);
    out->push_back(')');
    return;
  }
  if (shape.is_tuple()) {
    out->push_back('(');
    for (size_t i = 0; i < shape.tuple.size(); ++i) {
      if (i) out->append(", ");
      AppendShapeString(shape.tuple[i], out);
    }
    out->push_back(')');
    return;
  }
  out->append(PrimitiveTypeName(shape.element_type));
  out->push_back('[');
  for (size_t i = 0; i < shape.dims.size(); ++i) {
    if (i) out->push_back(',');
    if (shape.dims[i] == kUnboundedDim) {
      out->push_back('?');
    } else {
      absl::StrAppend(out, shape.dims[i]);
    }
  }
  out->push_back(']');
}

// The shape id operand `o` has: its definition's, else the one written
// inline.
Id OperandShapeId(const ParsedFile& file, const Operand& o) {
  Id shape = kNone;
  if (o.definition != kNone && o.definition < file.instructions.size()) {
    shape = file.instructions[o.definition].shape;
  }
  return shape == kNone ? o.shape : shape;
}

bool OperandShape(const ParsedFile& file, const Operand& o,
                  InferredShape* out) {
  return ShapeFromFileImpl(file, OperandShapeId(file, o), 0, out);
}

// The shape id a called computation's result has: its root's, else its
// signature's; kNone when `ref` names none.
Id CalledRootShape(const ParsedFile& file, const ComputationRef& ref) {
  if (ref.computation >= file.computations.size()) return kNone;
  const Computation& comp = file.computations[ref.computation];
  if (comp.root < file.instructions.size() &&
      file.instructions[comp.root].shape != kNone) {
    return file.instructions[comp.root].shape;
  }
  return comp.result_shape;
}

bool IsDeclared(const ParsedFile& file, Id shape) {
  return shape != kNone && shape < file.shapes.size() &&
         !file.shapes[shape].span.empty();
}

// ShapeVerifier::CheckShape's opcodes that reinterpret or move data as it
// is: their shape must match exactly, f32 and bf16 never mix even where
// mixed precision is allowed.
constexpr Opcode kKeepsElementTypesOps[] = {Opcode::kBitcast,
                                            Opcode::kCall,
                                            Opcode::kConditional,
                                            Opcode::kConstant,
                                            Opcode::kCopyDone,
                                            Opcode::kCopyStart,
                                            Opcode::kCustomCall,
                                            Opcode::kGetTupleElement,
                                            Opcode::kInfeed,
                                            Opcode::kOutfeed,
                                            Opcode::kOptimizationBarrier,
                                            Opcode::kOptBarrier,
                                            Opcode::kParameter,
                                            Opcode::kRecv,
                                            Opcode::kRecvDone,
                                            Opcode::kSend,
                                            Opcode::kSendDone,
                                            Opcode::kTuple,
                                            Opcode::kWhile,
                                            Opcode::kDynamicUpdateSlice};

bool KeepsElementTypes(Opcode op) {
  return std::find(std::begin(kKeepsElementTypesOps),
                   std::end(kKeepsElementTypesOps),
                   op) != std::end(kKeepsElementTypesOps);
}

}  // namespace

Span DeclaredShapeSpan(const ParsedFile& file, const Instruction& inst) {
  return OwnShapeSpan(file, inst).value_or(inst.opcode_span);
}

Span SignatureResultSpan(const ParsedFile& file, const Computation& c) {
  if (c.result_shape >= file.shapes.size()) return c.name;
  return OwnResultShapeSpan(file, c).value_or(file.shapes[c.result_shape].span);
}

namespace shape_inference_internal {

std::string_view OpContext::Attr(std::string_view key) const {
  const Attribute* attr = file.FindAttribute(inst, key);
  return attr == nullptr ? std::string_view() : file.Text(attr->value);
}

std::vector<RawAttribute> OpContext::RawAttrs() const {
  std::vector<RawAttribute> raw;
  raw.reserve(inst.attributes.count);
  for (Id a = inst.attributes.begin; a < inst.attributes.end(); ++a) {
    const Attribute& attr = file.attributes[a];
    raw.push_back(RawAttribute{file.Text(attr.key), file.Text(attr.value)});
  }
  return raw;
}

size_t OpContext::CalledCount(std::string_view key) const {
  size_t count = 0;
  for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
    const ComputationRef& ref = file.computation_refs[r];
    if (ref.attribute < file.attributes.size() &&
        file.Text(file.attributes[ref.attribute].key) == key) {
      ++count;
    }
  }
  return count;
}

std::optional<InferredShape> OpContext::CalledRoot(std::string_view key,
                                                   size_t index) const {
  for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
    const ComputationRef& ref = file.computation_refs[r];
    if (ref.attribute >= file.attributes.size() ||
        file.Text(file.attributes[ref.attribute].key) != key) {
      continue;
    }
    if (index-- != 0) continue;
    return ShapeFromFile(file, CalledRootShape(file, ref));
  }
  return std::nullopt;
}

InferredShape OneOrTuple(std::vector<InferredShape> elements) {
  if (elements.size() == 1) return std::move(elements[0]);
  return Tuple(std::move(elements));
}

bool IsArray(const InferredShape& s) { return IsArrayType(s.element_type); }

PrimitiveType HigherPrecision(PrimitiveType a, PrimitiveType b) {
  if (a == b) return a;
  if (IsFloatingPoint(a) && IsFloatingPoint(b)) {
    return PrimitiveTypeBitWidth(a) >= PrimitiveTypeBitWidth(b) ? a : b;
  }
  return a;
}

bool IsBounded(const InferredShape& s) {
  if (s.is_tuple()) {
    return std::all_of(s.tuple.begin(), s.tuple.end(), IsBounded);
  }
  return std::none_of(s.dims.begin(), s.dims.end(),
                      [](int64_t d) { return d < 0; });
}

}  // namespace shape_inference_internal

std::string ShapeString(const InferredShape& shape) {
  std::string out;
  AppendShapeString(shape, &out);
  return out;
}

std::optional<InferredShape> ShapeFromFile(const ParsedFile& file, Id id) {
  InferredShape shape;
  if (!ShapeFromFileImpl(file, id, 0, &shape)) return std::nullopt;
  return shape;
}

namespace {

// Ops whose shape is only the instruction's own (or the runtime's): the
// most common of them are answered before any operand shape is built.
bool NeverInferred(Opcode op) {
  switch (op) {
    case Opcode::kUnknown:
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kCustomCall:
    case Opcode::kBitcast:
    case Opcode::kIota:
    case Opcode::kRng:
    case Opcode::kRngBitGenerator:
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kSend:
    case Opcode::kSendDone:
    case Opcode::kRecv:
    case Opcode::kRecvDone:
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
      return true;
    default:
      return false;
  }
}

}  // namespace

Inference InferShape(const ParsedFile& file, Id id) {
  if (id >= file.instructions.size()) return sii::CannotInfer();
  const Instruction& inst = file.instructions[id];
  if (NeverInferred(inst.opcode)) return sii::CannotInfer();
  // Reused across calls: their vectors keep their capacity.
  thread_local std::vector<InferredShape> operands;
  thread_local InferredShape declared;
  if (operands.size() < inst.operands.count) {
    operands.resize(inst.operands.count);
  }
  for (Id k = 0; k < inst.operands.count; ++k) {
    // Unbounded '?' sizes take rules XLA applies apart: not inferred here.
    if (!OperandShape(file, file.operands[inst.operands.begin + k],
                      &operands[k]) ||
        !sii::IsBounded(operands[k])) {
      return sii::CannotInfer();
    }
  }
  sii::OpContext ctx{
      file, inst,
      std::span<const InferredShape>(operands.data(), inst.operands.count),
      nullptr};
  if (ShapeFromFileImpl(file, inst.shape, 0, &declared)) {
    ctx.declared = &declared;
  }
  for (auto* family : {sii::InferElementwise, sii::InferDataMovement,
                       sii::InferCompute, sii::InferControl}) {
    // Moved out, not copied: a copy allocates the shape again.
    if (std::optional<Inference> result = family(ctx)) {
      return std::move(*result);
    }
  }
  return sii::CannotInfer();
}

bool ShapesCompatible(const InferredShape& declared,
                      const InferredShape& inferred, bool ignore_fp_precision) {
  if (declared.is_tuple() || inferred.is_tuple()) {
    if (declared.element_type != inferred.element_type ||
        declared.tuple.size() != inferred.tuple.size()) {
      return false;
    }
    for (size_t i = 0; i < declared.tuple.size(); ++i) {
      if (!ShapesCompatible(declared.tuple[i], inferred.tuple[i],
                            ignore_fp_precision)) {
        return false;
      }
    }
    return true;
  }
  if (declared.element_type != inferred.element_type &&
      !(ignore_fp_precision && IsFloatingPoint(declared.element_type) &&
        IsFloatingPoint(inferred.element_type))) {
    return false;
  }
  if (declared.dims.size() != inferred.dims.size()) return false;
  for (size_t i = 0; i < declared.dims.size(); ++i) {
    if (declared.dims[i] != inferred.dims[i] &&
        declared.dims[i] != kUnboundedDim &&
        inferred.dims[i] != kUnboundedDim) {
      return false;
    }
  }
  return true;
}

bool TableShapesCompatible(const ParsedFile& file, Id a, Id b, int depth) {
  if (a >= file.shapes.size() || b >= file.shapes.size() || depth > kMaxDepth) {
    return true;
  }
  const Shape& x = file.shapes[a];
  const Shape& y = file.shapes[b];
  if (x.element_type != y.element_type) return false;
  // b(...) holds its contents as its one element, as a tuple does.
  if (x.is_tuple() || x.element_type == PrimitiveType::kBuffer) {
    if (x.tuple.count != y.tuple.count) return false;
    if (x.tuple.end() > file.shape_ids.size() ||
        y.tuple.end() > file.shape_ids.size()) {
      return true;
    }
    for (Id i = 0; i < x.tuple.count; ++i) {
      if (!TableShapesCompatible(file, file.shape_ids[x.tuple.begin + i],
                                 file.shape_ids[y.tuple.begin + i],
                                 depth + 1)) {
        return false;
      }
    }
    return true;
  }
  if (x.dims.end() > file.ints.size() || y.dims.end() > file.ints.size()) {
    return true;
  }
  if (x.dims.count != y.dims.count) return false;
  for (Id i = 0; i < x.dims.count; ++i) {
    const int64_t p = file.ints[x.dims.begin + i];
    const int64_t q = file.ints[y.dims.begin + i];
    if (p != q && p != kUnboundedDim && q != kUnboundedDim) return false;
  }
  return true;
}

namespace {

// Attributes no inference rule reads; they differ between otherwise equal
// instructions, so they stay out of InferenceKey.
bool IgnoredByInference(std::string_view key) {
  return key == "metadata" || key == "backend_config" ||
         key == "frontend_attributes" || key == "sharding" ||
         key == "statistics";
}

// What InferShape reads of `inst`, as bytes: its opcode, its declared and
// operand shapes (interned, so one id per distinct text), its attributes'
// text and, for an attribute naming computations, their root shapes (all
// a rule reads of them). A dump repeats few such combinations over many
// instructions (one per layer, each fusion calling its own computation),
// so CheckShapes works each out once.
// Bytes written without std::string's per-append bookkeeping: a key is
// built for every instruction. Reserve() makes room for what the next
// writes add; they do not check.
class KeyBuffer {
 public:
  void Clear() { size_ = 0; }
  void Reserve(size_t more) {
    if (size_ + more > bytes_.size()) bytes_.resize(2 * (size_ + more));
  }
  void Put(uint32_t v) {
    std::memcpy(bytes_.data() + size_, &v, sizeof(v));
    size_ += sizeof(v);
  }
  void PutText(std::string_view text) {
    Put(static_cast<uint32_t>(text.size()));
    std::memcpy(bytes_.data() + size_, text.data(), text.size());
    size_ += text.size();
  }
  XXH128_hash_t Hash() const { return XXH3_128bits(bytes_.data(), size_); }

 private:
  std::string bytes_;
  size_t size_ = 0;
};

void InferenceKey(const ParsedFile& file, const Instruction& inst,
                  KeyBuffer* key) {
  key->Clear();
  key->Reserve(sizeof(uint32_t) * (3 + inst.operands.count));
  auto put = [key](uint32_t v) { key->Put(v); };
  auto put_text = [key](std::string_view text) { key->PutText(text); };
  put(static_cast<uint32_t>(inst.opcode));
  put(inst.shape);
  put(inst.operands.count);
  for (Id k = inst.operands.begin; k < inst.operands.end(); ++k) {
    put(OperandShapeId(file, file.operands[k]));
  }
  for (Id a = inst.attributes.begin; a < inst.attributes.end(); ++a) {
    const Attribute& attr = file.attributes[a];
    const std::string_view name = file.Text(attr.key);
    if (IgnoredByInference(name)) continue;
    const std::string_view value = file.Text(attr.value);
    key->Reserve(sizeof(uint32_t) * (3 + inst.called.count) + name.size() +
                 value.size());
    put_text(name);
    // A rule asks only whether there is one, and each collective has its
    // own: its value would make every collective a key of its own.
    if (name == "channel_id") {
      put(value.empty() ? 0 : 1);
      continue;
    }
    uint32_t calls = 0;
    for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
      calls += file.computation_refs[r].attribute == a;
    }
    if (calls == 0) {
      put(0);
      put_text(value);
      continue;
    }
    put(calls);
    for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
      const ComputationRef& ref = file.computation_refs[r];
      if (ref.attribute == a) put(CalledRootShape(file, ref));
    }
  }
}

// The shape id of the `key=` computation's result (its first, as
// OpContext::CalledRoot(key, 0)); kNone when none; `count` gets how many
// computations `key=` names.
Id CalledRootShapeOf(const ParsedFile& file, const Instruction& inst,
                     std::string_view key, int* count) {
  Id first = kNone;
  *count = 0;
  for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
    const ComputationRef& ref = file.computation_refs[r];
    if (ref.attribute >= file.attributes.size() ||
        file.Text(file.attributes[ref.attribute].key) != key) {
      continue;
    }
    if ((*count)++ == 0) first = CalledRootShape(file, ref);
  }
  return first;
}

// Whether the table alone shows that `inst`'s declared shape is the one
// its rule infers, for the common instructions whose rule never fails and
// whose inference would build large operand shapes only to pick one: a
// tuple element, a called computation's result, a tuple of operands. When
// the table shows them compatible, full inference finds nothing either (it
// agrees, or it cannot infer: an unbounded operand, a shape the table
// cannot tell); anything else takes the full inference.
bool MatchesByTable(const ParsedFile& file, const Instruction& inst) {
  auto operand_shape = [&](Id k) {
    return OperandShapeId(file, file.operands[inst.operands.begin + k]);
  };
  int count = 0;
  switch (inst.opcode) {
    case Opcode::kGetTupleElement: {
      if (inst.operands.count != 1) return false;
      const Id tuple = operand_shape(0);
      if (tuple >= file.shapes.size() || !file.shapes[tuple].is_tuple()) {
        return false;
      }
      const Attribute* index_attr = file.FindAttribute(inst, "index");
      if (index_attr == nullptr) return false;
      absl::StatusOr<int64_t> index = DecodeInt(file.Text(index_attr->value));
      const Slice elements = file.shapes[tuple].tuple;
      if (!index.ok() || *index < 0 || *index >= elements.count ||
          elements.end() > file.shape_ids.size()) {
        return false;
      }
      return TableShapesCompatible(file, inst.shape,
                                   file.shape_ids[elements.begin + *index]);
    }
    // A callee without a root shape is left to inference (a while then
    // takes its operand's).
    case Opcode::kFusion: {
      const Id root = CalledRootShapeOf(file, inst, "calls", &count);
      return root < file.shapes.size() &&
             TableShapesCompatible(file, inst.shape, root);
    }
    case Opcode::kCall: {
      const Id root = CalledRootShapeOf(file, inst, "to_apply", &count);
      return count == 1 && root < file.shapes.size() &&
             TableShapesCompatible(file, inst.shape, root);
    }
    case Opcode::kWhile: {
      const Id root = CalledRootShapeOf(file, inst, "body", &count);
      return root < file.shapes.size() &&
             TableShapesCompatible(file, inst.shape, root);
    }
    case Opcode::kTuple: {
      if (inst.shape >= file.shapes.size()) return false;
      const Shape& declared = file.shapes[inst.shape];
      if (!declared.is_tuple() || declared.tuple.count != inst.operands.count ||
          declared.tuple.end() > file.shape_ids.size()) {
        return false;
      }
      for (Id k = 0; k < inst.operands.count; ++k) {
        if (!TableShapesCompatible(file,
                                   file.shape_ids[declared.tuple.begin + k],
                                   operand_shape(k))) {
          return false;
        }
      }
      return true;
    }
    default:
      return false;
  }
}

// The finding on instruction `id`'s declared shape, "" when none.
std::string ShapeFinding(const ParsedFile& file, Id id,
                         const ShapeCheckOptions& options) {
  const Instruction& inst = file.instructions[id];
  Inference inference = InferShape(file, id);
  if (!inference.error.empty()) return std::move(inference.error);
  if (!inference.shape) return "";
  thread_local InferredShape declared;
  if (!ShapeFromFileImpl(file, inst.shape, 0, &declared) ||
      ShapesCompatible(
          declared, *inference.shape,
          options.allow_mixed_precision && !KeepsElementTypes(inst.opcode))) {
    return "";
  }
  return absl::StrCat("Expected instruction to have shape equal to ",
                      ShapeString(*inference.shape), ", actual shape is ",
                      ShapeString(declared));
}

}  // namespace

std::vector<Diagnostic> CheckShapes(const ParsedFile& file,
                                    const ShapeCheckOptions& options) {
  std::vector<Diagnostic> out;
  // By the 128-bit hash of InferenceKey: a table of small keys, probed
  // without a string compare, where two keys that differ collide with
  // odds of 2^-128.
  absl::flat_hash_map<std::pair<uint64_t, uint64_t>, std::string> findings;
  KeyBuffer key;
  for (Id id = 0; id < file.instructions.size(); ++id) {
    const Instruction& inst = file.instructions[id];
    if (!IsDeclared(file, inst.shape) || NeverInferred(inst.opcode) ||
        MatchesByTable(file, inst)) {
      continue;
    }
    InferenceKey(file, inst, &key);
    const XXH128_hash_t hash = key.Hash();
    auto [it, inserted] = findings.try_emplace({hash.low64, hash.high64});
    if (inserted) it->second = ShapeFinding(file, id, options);
    if (it->second.empty()) continue;
    out.push_back(Diagnostic{DeclaredShapeSpan(file, inst), Severity::kError,
                             it->second});
  }
  return out;
}

namespace {

Id AppendShape(ParsedFile* file, const InferredShape& shape, Span span,
               int depth) {
  Shape parsed;
  parsed.span = span;
  parsed.element_type = shape.element_type;
  // A buffer b(...) holds its contents as its one element, as parsed.
  if (shape.is_tuple() || shape.element_type == PrimitiveType::kBuffer) {
    std::vector<Id> elements;
    if (depth < kMaxDepth) {
      for (const InferredShape& e : shape.tuple) {
        elements.push_back(AppendShape(file, e, span, depth + 1));
      }
    }
    parsed.tuple = Slice{static_cast<Id>(file->shape_ids.size()),
                         static_cast<Id>(elements.size())};
    file->shape_ids.insert(file->shape_ids.end(), elements.begin(),
                           elements.end());
  } else {
    parsed.dims = Slice{static_cast<Id>(file->ints.size()),
                        static_cast<Id>(shape.dims.size())};
    file->ints.insert(file->ints.end(), shape.dims.begin(), shape.dims.end());
  }
  file->shapes.push_back(parsed);
  return static_cast<Id>(file->shapes.size() - 1);
}

class Filler {
 public:
  explicit Filler(ParsedFile* file)
      : file_(*file), state_(file->instructions.size(), kTodo) {}

  int Run() {
    for (Id id = 0; id < file_.instructions.size(); ++id) {
      if (file_.instructions[id].shape == kNone) Fill(id, 0);
    }
    return filled_;
  }

 private:
  enum State : uint8_t { kTodo, kBusy, kDone };

  void Fill(Id id, int depth) {
    if (state_[id] != kTodo || depth > kMaxDepth) return;
    state_[id] = kBusy;
    // Operands and called roots first: text order does not guarantee it
    // (a nested operand comes after its user in the table).
    const Instruction inst = file_.instructions[id];
    for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
      Id def = file_.operands[o].definition;
      if (def < file_.instructions.size() &&
          file_.instructions[def].shape == kNone) {
        Fill(def, depth + 1);
      }
    }
    for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
      Id comp = file_.computation_refs[r].computation;
      if (comp >= file_.computations.size()) continue;
      Id root = file_.computations[comp].root;
      if (root < file_.instructions.size() &&
          file_.instructions[root].shape == kNone) {
        Fill(root, depth + 1);
      }
    }
    state_[id] = kDone;
    Inference inference = InferShape(file_, id);
    if (!inference.shape) return;
    Span at{inst.opcode_span.begin, inst.opcode_span.begin};
    file_.instructions[id].shape = AppendShape(&file_, *inference.shape, at, 0);
    ++filled_;
  }

  ParsedFile& file_;
  std::vector<uint8_t> state_;
  int filled_ = 0;
};

}  // namespace

bool IsInferredShape(const ParsedFile& file, Id shape) {
  return shape < file.shapes.size() && file.shapes[shape].span.empty();
}

int FillMissingShapes(ParsedFile* file) {
  bool any = false;
  for (const Instruction& inst : file->instructions) {
    if (inst.shape == kNone && inst.opcode != Opcode::kUnknown) {
      any = true;
      break;
    }
  }
  return any ? Filler(file).Run() : 0;
}

}  // namespace hlo
