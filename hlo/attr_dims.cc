// Window, convolution dim_labels, slice and padding grammars.
#include <bit>
#include <string>

#include "hlo/attr_grammar.h"

namespace hlo::attr_internal {
namespace {

enum WindowField { kSize, kStride, kPad, kLhsDilate, kRhsDilate, kRhsReversal };
constexpr std::string_view kWindowFields[] = {
    "size", "stride", "pad", "lhs_dilate", "rhs_dilate", "rhs_reversal"};

// rhs_reversal pieces must be 0 or 1; checked on the text so that
// validation needs no buffer.
bool CheckReversal(Scanner& s, size_t begin, size_t end) {
  std::string_view text = s.text().substr(begin, end - begin);
  size_t piece = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == 'x') {
      std::string_view p = text.substr(piece, i - piece);
      if (p != "0" && p != "1") {
        return s.Fail(begin + piece, begin + i,
                      "rhs_reversal entries must be 0 or 1");
      }
      piece = i + 1;
    }
  }
  return true;
}

}  // namespace

bool ParseWindow(Scanner& s, Window* out) {
  size_t open = (s.SkipSpace(), s.pos());
  if (!s.Expect('{')) return false;
  uint32_t seen = 0;
  size_t rank = 0;
  WindowField rank_field = kSize;
  std::vector<int64_t> values[6];
  std::vector<PaddingDimension> pads;
  while (!s.TryConsume('}')) {
    if (!s.ok()) return false;
    if (s.AtEnd()) return s.FailHere("expected '}' to close the window");
    if (s.TryConsume(',')) continue;  // older printers used commas
    size_t at = s.pos();
    std::string_view key = s.AttributeName();
    int field = -1;
    for (int i = 0; i < 6; ++i) {
      if (key == kWindowFields[i]) field = i;
    }
    if (field < 0) {
      s.set_pos(at);
      return s.FailHere(
          "expected size=, stride=, pad=, lhs_dilate=, rhs_dilate= or "
          "rhs_reversal=");
    }
    if (seen & (1u << field)) {
      return s.Fail(at, at + key.size(),
                    attr_internal::Cat("duplicate ", key, "="));
    }
    size_t value_at = (s.SkipSpace(), s.pos());
    size_t count = 0;
    bool ok =
        field == kPad
            ? ParsePadList(s, 2, out != nullptr ? &pads : nullptr, &count)
            : ParseDxD(s, out != nullptr ? &values[field] : nullptr, &count);
    if (!ok) return false;
    if (field == kRhsReversal && !CheckReversal(s, value_at, s.pos())) {
      return false;
    }
    if (seen == 0) {
      rank = count;
      rank_field = static_cast<WindowField>(field);
    } else if (count != rank) {
      return s.Fail(
          value_at, s.pos(),
          attr_internal::Cat(key, "= has ", count, " dimensions but ",
                             kWindowFields[rank_field], "= has ", rank));
    }
    seen |= 1u << field;
  }
  if (seen != 0 && !(seen & (1u << kSize))) {
    return s.Fail(open, s.pos(), "a window needs size=");
  }
  if (out != nullptr) {
    out->dimensions.assign(rank, WindowDimension{});
    for (size_t d = 0; d < rank; ++d) {
      WindowDimension& dim = out->dimensions[d];
      dim.size = values[kSize][d];
      if (seen & (1u << kStride)) dim.stride = values[kStride][d];
      if (seen & (1u << kPad)) {
        dim.padding_low = pads[d].edge_padding_low;
        dim.padding_high = pads[d].edge_padding_high;
      }
      if (seen & (1u << kLhsDilate)) dim.base_dilation = values[kLhsDilate][d];
      if (seen & (1u << kRhsDilate)) {
        dim.window_dilation = values[kRhsDilate][d];
      }
      if (seen & (1u << kRhsReversal)) {
        dim.window_reversal = values[kRhsReversal][d] == 1;
      }
    }
  }
  return true;
}

namespace {

struct LabelPart {
  int64_t first = -1;   // position of 'b' (or 'i')
  int64_t second = -1;  // position of 'f' (or 'o')
  int spatial = 0;      // number of spatial dims
  int64_t spatial_at[10] = {};
};

// One of the three label groups; letters are "bf" or "io".
bool CheckLabels(Scanner& s, size_t begin, std::string_view part,
                 const char* letters, const char* what, LabelPart* result) {
  if (part.size() < 2) {
    return s.Fail(
        begin, begin + part.size(),
        attr_internal::Cat(what, " labels need at least 2 dimensions"));
  }
  uint32_t digits = 0;
  for (size_t p = 0; p < part.size(); ++p) {
    char c = part[p];
    size_t at = begin + p;
    if (c == letters[0] || c == letters[1]) {
      int64_t& slot = c == letters[0] ? result->first : result->second;
      if (slot >= 0) {
        return s.Fail(at, at + 1,
                      attr_internal::Cat("'", std::string(1, c),
                                         "' repeated in ", what, " labels"));
      }
      slot = static_cast<int64_t>(p);
    } else if (c >= '0' && c <= '9') {
      int d = c - '0';
      if (digits & (1u << d)) {
        return s.Fail(at, at + 1,
                      attr_internal::Cat("spatial dimension ", d,
                                         " repeated in ", what, " labels"));
      }
      digits |= 1u << d;
      result->spatial_at[d] = static_cast<int64_t>(p);
    } else if (c != '?') {
      return s.Fail(
          at, at + 1,
          attr_internal::Cat("unexpected '", std::string(1, c), "' in ", what,
                             " labels (expected ", letters, ", digits or ?)"));
    }
  }
  if (result->first < 0 || result->second < 0) {
    return s.Fail(
        begin, begin + part.size(),
        attr_internal::Cat(what, " labels need '", std::string(1, letters[0]),
                           "' and '", std::string(1, letters[1]), "'"));
  }
  result->spatial = std::popcount(digits);
  if (digits != (1u << result->spatial) - 1) {
    return s.Fail(
        begin, begin + part.size(),
        attr_internal::Cat(what, " spatial dimensions must be numbered 0..",
                           result->spatial - 1));
  }
  return true;
}

}  // namespace

bool ParseDimLabels(Scanner& s, ConvolutionDimensionNumbers* out) {
  s.SkipSpace();
  if (!s.ok()) return false;
  std::string_view text = s.text();
  size_t begin = s.pos();
  size_t end = begin;
  while (end < text.size() &&
         (IsIdentChar(text[end]) || text[end] == '>' || text[end] == '?')) {
    ++end;
  }
  std::string_view labels = text.substr(begin, end - begin);
  size_t underscore = labels.find('_');
  size_t arrow = labels.find("->");
  if (underscore == std::string_view::npos || arrow == std::string_view::npos ||
      underscore > arrow) {
    return s.Fail(begin, std::max(end, begin + 1),
                  "expected dim_labels like b01f_01io->b01f");
  }
  LabelPart lhs, rhs, output;
  std::string_view lhs_text = labels.substr(0, underscore);
  std::string_view rhs_text =
      labels.substr(underscore + 1, arrow - underscore - 1);
  std::string_view out_text = labels.substr(arrow + 2);
  if (!CheckLabels(s, begin, lhs_text, "bf", "input", &lhs) ||
      !CheckLabels(s, begin + underscore + 1, rhs_text, "io", "kernel", &rhs) ||
      !CheckLabels(s, begin + arrow + 2, out_text, "bf", "output", &output)) {
    return false;
  }
  if (lhs_text.size() != rhs_text.size() ||
      lhs_text.size() != out_text.size()) {
    return s.Fail(begin, end,
                  "input, kernel and output labels must have the same rank");
  }
  if (lhs.spatial != rhs.spatial || lhs.spatial != output.spatial) {
    return s.Fail(begin, end,
                  "input, kernel and output must have the same spatial "
                  "dimensions");
  }
  if (out != nullptr) {
    out->input_batch_dimension = lhs.first;
    out->input_feature_dimension = lhs.second;
    out->kernel_input_feature_dimension = rhs.first;
    out->kernel_output_feature_dimension = rhs.second;
    out->output_batch_dimension = output.first;
    out->output_feature_dimension = output.second;
    out->input_spatial_dimensions.assign(lhs.spatial_at,
                                         lhs.spatial_at + lhs.spatial);
    out->kernel_spatial_dimensions.assign(rhs.spatial_at,
                                          rhs.spatial_at + rhs.spatial);
    out->output_spatial_dimensions.assign(output.spatial_at,
                                          output.spatial_at + output.spatial);
  }
  s.set_pos(end);
  return true;
}

bool ParseSliceSpec(Scanner& s, SliceSpec* out) {
  if (!s.Expect('{')) return false;
  if (out != nullptr) *out = SliceSpec{};
  if (s.TryConsume('}')) return true;
  do {
    int64_t start = 0, limit = 0, stride = 1;
    if (!s.Expect('[') || !s.Int(&start) || !s.Expect(':') || !s.Int(&limit)) {
      return false;
    }
    if (s.TryConsume(':')) {
      size_t at = (s.SkipSpace(), s.pos());
      if (!s.Int(&stride)) return false;
      if (stride <= 0)
        return s.Fail(at, s.pos(), "slice stride must be positive");
    }
    if (!s.Expect(']')) return false;
    if (out != nullptr) {
      out->starts.push_back(start);
      out->limits.push_back(limit);
      out->strides.push_back(stride);
    }
  } while (s.TryConsume(','));
  return s.Expect('}');
}

bool ParsePadding(Scanner& s, PaddingConfig* out) {
  return ParsePadList(s, 3, out != nullptr ? &out->dimensions : nullptr);
}

}  // namespace hlo::attr_internal
