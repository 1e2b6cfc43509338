// The module header's input_output_alias={...} and buffer_donor={...}, read
// as XLA's parser reads them (ParseAliasing, ParseBufferDonor,
// ParseShapeIndex), with its messages, at the token that breaks them.
#include <cctype>
#include <string>
#include <string_view>

#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

class AliasReader {
 public:
  AliasReader(const Findings& f, Span value)
      : f_(f), text_(f.file.Text(value)), base_(value.begin) {}

  // False after reporting the first error.
  bool Aliasing() {
    const std::string format =
        "Expected format: <output_shape_index>: (<input_param>, "
        "<input_param_shape_index>) OR <output_shape_index>: <input_param>";
    if (!Eat('{', "Expects '{' at the start of aliasing description")) {
      return false;
    }
    while (Peek() != '}') {
      if (!ShapeIndex() || !Eat(':', format) || !Eat('(', format) || !Int() ||
          !Eat(',', format) || !ShapeIndex()) {
        return false;
      }
      if (Peek() == ',') {
        ++pos_;
        std::string_view kind = Name();
        if (kind != "must-alias" && kind != "may-alias") {
          return Fail("Unexpected aliasing kind; expected SYSTEM or USER");
        }
      }
      if (!Eat(')', format)) return false;
      if (Peek() != ',') break;
      ++pos_;
    }
    return Eat('}', "Expects '}' at the end of aliasing description");
  }

  bool BufferDonor() {
    const std::string format =
        "Expected format: (<input_param>, <input_param_shape_index>)";
    if (!Eat('{', "Expects '{' at the start of buffer donor description")) {
      return false;
    }
    while (Peek() != '}') {
      if (!Eat('(', format) || !Int() || !Eat(',', format) || !ShapeIndex() ||
          !Eat(')', format)) {
        return false;
      }
      if (Peek() != ',') break;
      ++pos_;
    }
    return Eat('}', "Expects '}' at the end of buffer donor description");
  }

 private:
  char Peek() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }

  bool Fail(std::string message) {
    const Offset at = base_ + static_cast<Offset>(pos_);
    f_.Error(Span{at, at + (pos_ < text_.size() ? 1u : 0u)},
             std::move(message));
    return false;
  }

  bool Eat(char c, const std::string& message) {
    if (Peek() != c) return Fail(message);
    ++pos_;
    return true;
  }

  bool Int() {
    Peek();
    size_t end = pos_;
    if (end < text_.size() && (text_[end] == '-' || text_[end] == '+')) ++end;
    const size_t digits = end;
    while (end < text_.size() &&
           std::isdigit(static_cast<unsigned char>(text_[end]))) {
      ++end;
    }
    if (end == digits) return Fail("expects integer");
    pos_ = end;
    return true;
  }

  std::string_view Name() {
    Peek();
    const size_t begin = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
            text_[pos_] == '-' || text_[pos_] == '_' || text_[pos_] == '.')) {
      ++pos_;
    }
    return text_.substr(begin, pos_ - begin);
  }

  bool ShapeIndex() {
    if (!Eat('{', "Expects '{' at the start of ShapeIndex")) return false;
    while (Peek() != '}') {
      if (!Int()) return false;
      if (Peek() != ',') break;
      ++pos_;
    }
    return Eat('}', "Expects '}' at the end of ShapeIndex");
  }

  const Findings& f_;
  std::string_view text_;
  Offset base_;
  size_t pos_ = 0;
};

}  // namespace

void CheckAliasing(const Findings& f) {
  const ParsedFile& file = f.file;
  for (const Module& m : file.modules) {
    for (Id a = m.header_attributes.begin; a < m.header_attributes.end(); ++a) {
      const Attribute& attr = file.attributes[a];
      const std::string_view key = file.Text(attr.key);
      if (key == "input_output_alias") {
        AliasReader(f, attr.value).Aliasing();
      } else if (key == "buffer_donor") {
        AliasReader(f, attr.value).BufferDonor();
      }
    }
  }
}

}  // namespace hlo::verify_internal
