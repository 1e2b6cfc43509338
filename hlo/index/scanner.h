// A line-oriented symbol scanner over HLO text that does not need the full
// parse: `HloModule name`, computation headers, `[ROOT] %name = shape op(`,
// and `metadata={op_name="..." source_file="..." source_line=N}`. It agrees
// with hlo::Parse on module, computation and (non-nested) instruction names
// and positions for printed dumps (tests/index/scanner_agreement_test.cc).
#ifndef HLO_LSP_HLO_INDEX_SCANNER_H_
#define HLO_LSP_HLO_INDEX_SCANNER_H_

#include <string_view>

#include "hlo/index/symbols.h"

namespace hlo::index {

struct ScanOptions {
  // Metadata symbols (op_name, source_file:line) are kept once per distinct
  // name and file, at the first occurrence: pass dumps repeat them on every
  // instruction, and the instructions themselves are symbols already.
  bool metadata = true;
};

FileSymbols ScanSymbols(std::string_view text, const ScanOptions& options = {});

}  // namespace hlo::index

#endif  // HLO_LSP_HLO_INDEX_SCANNER_H_
