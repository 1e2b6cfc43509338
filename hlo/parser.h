// The error-tolerant HLO text parser. It never throws, never aborts, and
// bounds its recursion: bad input yields diagnostics with spans, and parsing
// resumes at the next instruction or computation.
#ifndef HLO_LSP_HLO_PARSER_H_
#define HLO_LSP_HLO_PARSER_H_

#include <cstddef>
#include <memory>
#include <string_view>

#include "hlo/syntax.h"

namespace hlo {

struct ParseOptions {
  // Stop recording diagnostics after this many (the parse goes on).
  size_t max_diagnostics = 1000;
  // Check known attribute values with the typed decoders (attributes.h).
  bool validate_attributes = true;
};

// Parses `text`, which must outlive the result. Always returns a file; its
// `diagnostics` say what was wrong. Texts of 4 GiB or more are rejected with
// one diagnostic.
std::unique_ptr<ParsedFile> Parse(std::string_view text,
                                  const ParseOptions& options = {});

}  // namespace hlo

#endif  // HLO_LSP_HLO_PARSER_H_
