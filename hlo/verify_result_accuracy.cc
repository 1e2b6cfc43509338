// result_accuracy={mode=highest} / {tolerance={rtol=.., atol=.., ulps=..}}:
// only on the transcendental unary ops XLA's parser gives it, and in XLA's
// grammar (ParseResultAccuracy), with its messages.
#include <cctype>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/strings.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

bool TakesResultAccuracy(Opcode op) {
  using enum Opcode;
  switch (op) {
    case kAsin:
    case kAsinh:
    case kAtanh:
    case kExponentialMinusOne:
    case kLog:
    case kLogPlusOne:
    case kLogistic:
    case kSqrt:
    case kCbrt:
    case kRsqrt:
    case kTanh:
    case kErf:
    case kSine:
    case kSinh:
    case kCosine:
    case kCosh:
    case kTan:
    case kExponential:
      return true;
    default:
      return false;
  }
}

class AccuracyReader {
 public:
  explicit AccuracyReader(std::string_view text) : text_(text) {}

  // The first problem in XLA's words, or empty.
  std::string Problem() {
    if (!Eat('{')) return "expected '{' to start result precision list";
    std::string_view name = Word();
    if (!Eat('=')) return "expects attribute name";
    if (name == "mode") {
      std::string_view mode = Word();
      std::string lower(mode);
      for (char& c : lower) c = static_cast<char>(std::tolower(c));
      if (lower != "default" && lower != "highest" && lower != "tolerance") {
        return base::Cat("expects ResultAccuracy type but sees: ", mode);
      }
    } else if (name == "tolerance") {
      if (!Eat('{')) return "expected '{' to start result accuracy list";
      while (Skip() != '}') {
        std::string_view key = Word();
        if (!Eat('='))
          return "expects string for result_accuracy tolerance type";
        if (key != "ulps" && key != "rtol" && key != "atol") {
          return base::Cat("invalid attribute name: ", key);
        }
        Word();  // the number
        if (Skip() != ',') break;
        ++pos_;
      }
      if (!Eat('}')) return "expects '}' at the end of result precision";
    } else {
      return base::Cat("invalid attribute name: ", name);
    }
    if (!Eat('}')) return "expected '}' to end result_accuracy";
    return "";
  }

 private:
  char Skip() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool Eat(char c) {
    if (Skip() != c) return false;
    ++pos_;
    return true;
  }
  std::string_view Word() {
    Skip();
    const size_t begin = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
            text_[pos_] == '_' || text_[pos_] == '.' || text_[pos_] == '-' ||
            text_[pos_] == '+')) {
      ++pos_;
    }
    return text_.substr(begin, pos_ - begin);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

void CheckResultAccuracy(const Findings& f) {
  if (!AnyAttributeNamed(f.file, "result_accuracy")) return;
  for (const Instruction& inst : f.file.instructions) {
    const Attribute* a = f.file.FindAttribute(inst, "result_accuracy");
    if (a == nullptr) continue;
    if (!TakesResultAccuracy(inst.opcode)) {
      f.Error(a->key, "unexpected attribute \"result_accuracy\"");
      continue;
    }
    std::string problem = AccuracyReader(f.file.Text(a->value)).Problem();
    if (!problem.empty()) f.Error(a->span, std::move(problem));
  }
}

}  // namespace hlo::verify_internal
