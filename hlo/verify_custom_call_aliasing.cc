// A custom-call's output_to_operand_aliasing (XLA's
// ShapeVerifier::HandleCustomCall): each pair names an operand and valid
// shape indices on both sides, and the two subshapes are equal: ignoring
// layouts (and dynamic sizes) by default, with layouts when layout
// sensitive. Pin and Unpin alias a buffer with what it holds, so b(...)
// counts as its contents there.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "base/strings.h"
#include "hlo/attributes.h"
#include "hlo/shape_inference.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

constexpr int kMaxAliasDepth = 64;

class AliasChecker {
 public:
  AliasChecker(const Findings& f, bool layout_sensitive)
      : f_(f), file_(f.file), layout_sensitive_(layout_sensitive) {}

  void Check(const Instruction& inst) {
    const Attribute* attr =
        file_.FindAttribute(inst, "output_to_operand_aliasing");
    if (attr == nullptr) return;
    absl::StatusOr<std::vector<OutputOperandAlias>> pairs =
        DecodeOutputToOperandAliasing(file_.Text(attr->value));
    if (!pairs.ok()) return;  // the attribute checks report it
    ignore_buffer_ = false;
    if (const Attribute* t = file_.FindAttribute(inst, "custom_call_target")) {
      absl::StatusOr<std::string> name =
          DecodeCustomCallTarget(file_.Text(t->value));
      ignore_buffer_ = name.ok() && (*name == "Pin" || *name == "Unpin");
    }
    for (const OutputOperandAlias& p : *pairs) {
      if (p.operand_index < 0 || p.operand_index >= inst.operands.count) {
        f_.Error(attr->span, "Invalid aliasing operand index.");
        return;
      }
      const Id operand_shape = OperandShape(inst, p.operand_index);
      if (operand_shape == kNone || inst.shape == kNone) continue;
      Id operand = Subshape(operand_shape, p.operand_shape_index);
      if (operand == kNone) {
        f_.Error(attr->span, "Invalid aliasing operand shape index.");
        return;
      }
      Id output = Subshape(inst.shape, p.output_shape_index);
      if (output == kNone) {
        f_.Error(attr->span, "Invalid aliasing output shape index.");
        return;
      }
      if (SkipsShapeCheck(inst)) return;
      const Shape& o = file_.shapes[operand];
      scalar_operand_ =
          IsArrayType(o.element_type) &&
          std::all_of(file_.Ints(o.dims), file_.Ints(o.dims) + o.dims.count,
                      [](int64_t d) { return d == 1; });
      if (!Equal(operand, output, 0)) {
        f_.Error(attr->span, base::Cat("Different aliasing shapes: ",
                                       Print(operand), " vs ", Print(output)));
        return;
      }
    }
  }

 private:
  Id OperandShape(const Instruction& inst, int64_t k) const {
    const Operand& o = file_.operands[inst.operands.begin + k];
    Id def = o.Producer();
    if (def != kNone && file_.instructions[def].shape != kNone) {
      return file_.instructions[def].shape;
    }
    return o.shape;
  }

  // kNone when the index leaves the shape.
  Id Subshape(Id s, const std::vector<int64_t>& index) const {
    if (s == kNone) return kNone;
    for (int64_t i : index) {
      const Shape& shape = file_.shapes[s];
      if (!shape.is_tuple() || i < 0 || i >= shape.tuple.count) return kNone;
      s = file_.shape_ids[shape.tuple.begin + i];
    }
    return s;
  }

  bool SkipsShapeCheck(const Instruction& inst) const {
    const Attribute* a = file_.FindAttribute(inst, "frontend_attributes");
    if (a == nullptr) return false;
    absl::StatusOr<FrontendAttributes> attrs =
        DecodeFrontendAttributes(file_.Text(a->value));
    return attrs.ok() &&
           attrs->Find("xla_skip_custom_call_alias_shape_check") != nullptr;
  }

  Id Unwrap(Id s) const {
    const Shape& shape = file_.shapes[s];
    if (ignore_buffer_ && shape.element_type == PrimitiveType::kBuffer &&
        shape.tuple.count == 1) {
      return file_.shape_ids[shape.tuple.begin];
    }
    return s;
  }

  bool Equal(Id a, Id b, int depth) const {
    if (depth > kMaxAliasDepth) return true;
    a = Unwrap(a);
    b = Unwrap(b);
    const Shape& x = file_.shapes[a];
    const Shape& y = file_.shapes[b];
    if (x.element_type != y.element_type) return false;
    if (x.is_tuple() || x.element_type == PrimitiveType::kBuffer) {
      if (x.tuple.count != y.tuple.count) return false;
      for (Id i = 0; i < x.tuple.count; ++i) {
        if (!Equal(file_.shape_ids[x.tuple.begin + i],
                   file_.shape_ids[y.tuple.begin + i], depth + 1)) {
          return false;
        }
      }
      return true;
    }
    if (!SameInts(x.dims, y.dims)) return false;
    return !layout_sensitive_ || !IsArrayType(x.element_type) ||
           SameLayout(x, y);
  }

  bool SameInts(Slice a, Slice b) const {
    return std::equal(file_.Ints(a), file_.Ints(a) + a.count, file_.Ints(b),
                      file_.Ints(b) + b.count);
  }

  // What XLA's layout equality looks at that the text can differ in; a
  // shape written without a layout has XLA's default one.
  bool SameLayout(const Shape& x, const Shape& y) const {
    const Layout* lx = x.layout != kNone ? &file_.layouts[x.layout] : nullptr;
    const Layout* ly = y.layout != kNone ? &file_.layouts[y.layout] : nullptr;
    if (MinorToMajor(x, lx) != MinorToMajor(y, ly)) return false;
    const Layout none;
    if (!lx) lx = &none;
    if (!ly) ly = &none;
    if (lx->element_size_in_bits != ly->element_size_in_bits) return false;
    if (!scalar_operand_ && lx->memory_space != ly->memory_space) return false;
    if (lx->tiles.count != ly->tiles.count) return false;
    for (Id i = 0; i < lx->tiles.count; ++i) {
      if (!SameInts(file_.tiles[lx->tiles.begin + i].dims,
                    file_.tiles[ly->tiles.begin + i].dims)) {
        return false;
      }
    }
    return true;
  }

  std::vector<int64_t> MinorToMajor(const Shape& s, const Layout* l) const {
    if (l != nullptr) {
      return {file_.Ints(l->minor_to_major),
              file_.Ints(l->minor_to_major) + l->minor_to_major.count};
    }
    std::vector<int64_t> out;
    for (int64_t d = static_cast<int64_t>(s.dims.count) - 1; d >= 0; --d)
      out.push_back(d);
    return out;
  }

  std::string Print(Id s) const {
    const Shape& shape = file_.shapes[s];
    if (!shape.span.empty()) return std::string(file_.Text(shape.span));
    std::optional<InferredShape> inferred = ShapeFromFile(file_, s);
    return inferred ? ShapeString(*inferred) : "?";
  }

  const Findings& f_;
  const ParsedFile& file_;
  bool layout_sensitive_;
  bool ignore_buffer_ = false;
  bool scalar_operand_ = false;
};

}  // namespace

void CheckCustomCallAliasing(const Findings& f, bool layout_sensitive) {
  AliasChecker checker(f, layout_sensitive);
  for (const Instruction& inst : f.file.instructions) {
    if (inst.opcode == Opcode::kCustomCall) checker.Check(inst);
  }
}

}  // namespace hlo::verify_internal
