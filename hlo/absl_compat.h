// The abseil string_view shim now lives in base/strings.h; this header only
// keeps hlo::ToAbsl and hlo::ToStd for the files that still include it.
// New code: include "base/strings.h" and call base::ToAbsl / base::ToStd.
#ifndef HLO_LSP_HLO_ABSL_COMPAT_H_
#define HLO_LSP_HLO_ABSL_COMPAT_H_

#include "base/strings.h"

namespace hlo {

using base::ToAbsl;
using base::ToStd;

}  // namespace hlo

#endif  // HLO_LSP_HLO_ABSL_COMPAT_H_
