// The verifier's rule tests compare findings as "message @ the text it
// points at"; the module must parse without errors.
#ifndef HLO_LSP_TESTS_HLO_VERIFY_FINDINGS_H_
#define HLO_LSP_TESTS_HLO_VERIFY_FINDINGS_H_

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/verify.h"

namespace hlo::verify_test {

inline std::vector<std::string> Findings(const std::string& text,
                                         const VerifierOptions& options = {}) {
  std::unique_ptr<ParsedFile> file = Parse(text);
  EXPECT_FALSE(file->HasErrors())
      << (file->diagnostics.empty() ? "" : file->diagnostics[0].message);
  std::vector<std::string> out;
  for (const Diagnostic& d : Verify(*file, options)) {
    out.push_back(d.message + " @ " + std::string(file->Text(d.span)));
  }
  return out;
}

}  // namespace hlo::verify_test

#endif  // HLO_LSP_TESTS_HLO_VERIFY_FINDINGS_H_
