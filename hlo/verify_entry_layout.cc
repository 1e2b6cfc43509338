// The module header's entry_computation_layout against the entry
// computation (XLA's ShapeVerifier::VerifyEntryComputationLayout, layout
// sensitive): the root and each parameter must have the layout's shapes
// (tiles, tail padding and memory space aside), and a must-alias pair of
// input_output_alias must have equal shapes, memory space included.
#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_join.h"
#include "base/strings.h"
#include "hlo/layout_shape.h"
#include "hlo/query.h"
#include "hlo/shape_inference.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

struct EntryLayout {
  std::vector<LayoutShape> parameters;
  LayoutShape result;
};

struct Alias {
  std::vector<int64_t> output_index;
  int64_t parameter = 0;
  std::vector<int64_t> parameter_index;
};

// A tiny cursor for the two header values read here.
class EntryLayoutReader {
 public:
  explicit EntryLayoutReader(std::string_view text) : text_(text) {}
  // The next character past blanks and /*...*/ comments (dumps write
  // /*index=5*/ into long shape lists).
  char Peek() {
    pos_ = SkipBlanksAndComments(text_, pos_);
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool Eat(std::string_view s) {
    Peek();
    if (text_.substr(pos_, s.size()) != s) return false;
    pos_ += s.size();
    return true;
  }
  std::optional<LayoutShape> Shape() { return ParseLayoutShape(text_, &pos_); }
  std::optional<int64_t> Int() {
    Peek();
    size_t begin = pos_;
    while (pos_ < text_.size() &&
           std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
    if (begin == pos_ || pos_ - begin > 18) return std::nullopt;
    return std::stoll(std::string(text_.substr(begin, pos_ - begin)));
  }
  // {a, b, ...}
  bool Index(std::vector<int64_t>* out) {
    if (!Eat("{")) return false;
    while (Peek() != '}') {
      std::optional<int64_t> v = Int();
      if (!v) return false;
      out->push_back(*v);
      if (!Eat(",")) break;
    }
    return Eat("}");
  }
  std::string_view Word() {
    Peek();
    size_t begin = pos_;
    while (pos_ < text_.size() &&
           (std::isalpha(static_cast<unsigned char>(text_[pos_])) ||
            text_[pos_] == '-')) {
      ++pos_;
    }
    return text_.substr(begin, pos_ - begin);
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

std::optional<EntryLayout> ReadEntryLayout(std::string_view text) {
  EntryLayoutReader r(text);
  EntryLayout layout;
  if (!r.Eat("{") || !r.Eat("(")) return std::nullopt;
  while (r.Peek() != ')') {
    std::optional<LayoutShape> p = r.Shape();
    if (!p) return std::nullopt;
    layout.parameters.push_back(std::move(*p));
    if (!r.Eat(",")) break;
  }
  if (!r.Eat(")") || !r.Eat("->")) return std::nullopt;
  std::optional<LayoutShape> result = r.Shape();
  if (!result || !r.Eat("}")) return std::nullopt;
  layout.result = std::move(*result);
  return layout;
}

// input_output_alias's must-alias entries ({} when it does not read).
std::vector<Alias> ReadMustAliases(std::string_view text) {
  EntryLayoutReader r(text);
  std::vector<Alias> out;
  if (!r.Eat("{")) return {};
  while (r.Peek() == '{') {
    Alias a;
    std::optional<int64_t> p;
    if (!r.Index(&a.output_index) || !r.Eat(":") || !r.Eat("(") ||
        !(p = r.Int()) || !r.Eat(",") || !r.Index(&a.parameter_index)) {
      return {};
    }
    a.parameter = *p;
    bool must = false;
    if (r.Eat(",")) must = r.Word() == "must-alias";
    if (!r.Eat(")")) return {};
    if (must) out.push_back(std::move(a));
    if (!r.Eat(",")) break;
  }
  return out;
}

const LayoutShape* Subshape(const LayoutShape& s,
                            const std::vector<int64_t>& index) {
  const LayoutShape* at = &s;
  for (int64_t i : index) {
    if (!at->is_tuple() || i < 0 || i >= static_cast<int64_t>(at->tuple.size()))
      return nullptr;
    at = &at->tuple[i];
  }
  return at;
}

std::string ShapeIndexString(const std::vector<int64_t>& index) {
  return base::Cat("{", absl::StrJoin(index, ","), "}");
}

const Attribute* HeaderAttribute(const ParsedFile& file, const Module& m,
                                 std::string_view key) {
  for (Id a = m.header_attributes.begin; a < m.header_attributes.end(); ++a) {
    if (file.Text(file.attributes[a].key) == key) return &file.attributes[a];
  }
  return nullptr;
}

void CheckModule(const Findings& f, const Module& m) {
  const ParsedFile& file = f.file;
  const Attribute* attr = HeaderAttribute(file, m, "entry_computation_layout");
  if (attr == nullptr || m.entry == kNone) return;
  std::optional<EntryLayout> layout = ReadEntryLayout(file.Text(attr->value));
  if (!layout) return;
  const Computation& entry = file.computations[m.entry];
  // What the entry computation layout may differ in (TPU layout assignment
  // leaves tiles out of it).
  const LayoutEqual loose{.ignore_tiles = true,
                          .ignore_memory_space = true,
                          .ignore_tail_padding = true};
  if (entry.root != kNone) {
    std::optional<LayoutShape> root =
        LayoutShapeOf(file, file.instructions[entry.root].shape);
    if (root && !LayoutShapesEqual(*root, layout->result, loose)) {
      f.Error(attr->value,
              base::Cat("Shape of the root instruction of entry computation "
                        "(",
                        LayoutShapeString(*root),
                        ") should be compatible to one specified in "
                        "module's entry computation layout (",
                        LayoutShapeString(layout->result), ")"));
    }
  }
  std::map<int64_t, Id> parameters;
  for (Id i = entry.instructions.begin; i < entry.instructions.end(); ++i) {
    if (std::optional<int64_t> n = ParameterNumber(file, i)) {
      parameters[*n] = i;
    }
  }
  if (parameters.size() != layout->parameters.size()) {
    f.Error(attr->value,
            base::Cat("Number of parameters in entry computation layout (",
                      layout->parameters.size(),
                      ") must be same as number of parameters of entry "
                      "computation (",
                      parameters.size(), ")"));
    return;
  }
  for (const auto& [n, id] : parameters) {
    if (n < 0 || n >= static_cast<int64_t>(layout->parameters.size())) return;
    const Instruction& p = file.instructions[id];
    std::optional<LayoutShape> shape = LayoutShapeOf(file, p.shape);
    if (!shape || LayoutShapesEqual(*shape, layout->parameters[n], loose)) {
      continue;
    }
    f.Error(DeclaredShapeSpan(file, p),
            base::Cat("Shape of the entry computation parameter ", n, " is ",
                      LayoutShapeString(*shape),
                      " should be compatible to the one specified in "
                      "module's entry computation layout ",
                      LayoutShapeString(layout->parameters[n])));
  }
  const Attribute* aliases = HeaderAttribute(file, m, "input_output_alias");
  if (aliases == nullptr) return;
  for (const Alias& a : ReadMustAliases(file.Text(aliases->value))) {
    if (a.parameter < 0 ||
        a.parameter >= static_cast<int64_t>(layout->parameters.size())) {
      continue;
    }
    const LayoutShape* out = Subshape(layout->result, a.output_index);
    const LayoutShape* in =
        Subshape(layout->parameters[a.parameter], a.parameter_index);
    if (out == nullptr || in == nullptr || LayoutShapesEqual(*out, *in)) {
      continue;
    }
    f.Error(aliases->value,
            base::Cat(
                "Shape and memory space of the result at index ",
                ShapeIndexString(a.output_index), " (", LayoutShapeString(*out),
                ") must be the same as the shape and memory space of "
                "aliased parameter ",
                a.parameter, " at index ", ShapeIndexString(a.parameter_index),
                " (", LayoutShapeString(*in), ")"));
  }
}

}  // namespace

void CheckEntryLayout(const Findings& f) {
  for (const Module& m : f.file.modules) CheckModule(f, m);
}

}  // namespace hlo::verify_internal
