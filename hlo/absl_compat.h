// Debian 12's abseil (20220623) is built with its own absl::string_view
// (ABSL_OPTION_USE_STD_STRING_VIEW 0), distinct from std::string_view. Our
// code speaks std::string_view; these convert at the abseil boundary.
#ifndef HLO_LSP_HLO_ABSL_COMPAT_H_
#define HLO_LSP_HLO_ABSL_COMPAT_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace hlo {

inline absl::string_view ToAbsl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}
inline std::string_view ToStd(absl::string_view s) {
  return std::string_view(s.data(), s.size());
}

}  // namespace hlo

#endif  // HLO_LSP_HLO_ABSL_COMPAT_H_
