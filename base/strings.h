// String glue for Debian 12's abseil (20220623), which is built with its own
// absl::string_view (ABSL_OPTION_USE_STD_STRING_VIEW 0), a type distinct from
// std::string_view. Our code speaks std::string_view; ToAbsl and ToStd
// convert at the abseil boundary (absl::StrCat, absl::CUnescape, ...).
//
// Prefix and suffix tests need no helper: C++20's std::string_view and
// std::string have starts_with and ends_with.
#ifndef HLO_LSP_BASE_STRINGS_H_
#define HLO_LSP_BASE_STRINGS_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace hlo::base {

inline absl::string_view ToAbsl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}
inline std::string_view ToStd(absl::string_view s) {
  return std::string_view(s.data(), s.size());
}

}  // namespace hlo::base

#endif  // HLO_LSP_BASE_STRINGS_H_
