// Helpers for exec tests: parse a module text and run it in-process.
#ifndef HLO_LSP_TESTS_EXEC_EXEC_TEST_UTIL_H_
#define HLO_LSP_TESTS_EXEC_EXEC_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "exec/evaluator.h"
#include "exec/literal.h"
#include "hlo/parser.h"

namespace hlo::exec::testing {

struct Parsed {
  std::string text;
  std::unique_ptr<ParsedFile> file;
};

inline Parsed ParseModule(std::string text) {
  Parsed p;
  p.text = std::move(text);
  p.file = Parse(p.text);
  return p;
}

inline Value Array(PrimitiveType t, std::vector<int64_t> dims,
                   const std::vector<double>& values) {
  auto lit = Literal::CreateArray(t, std::move(dims));
  for (size_t i = 0; i < values.size(); ++i) lit->SetDouble(i, values[i]);
  return std::make_shared<const Literal>(*std::move(lit));
}

inline std::vector<double> Values(const Literal& lit) {
  std::vector<double> out;
  for (int64_t i = 0; i < lit.count(); ++i) out.push_back(lit.GetDouble(i));
  return out;
}

// Runs the entry on `args`; the result of participant 0.
inline absl::StatusOr<Value> RunHlo(const std::string& text,
                                    std::vector<Value> args = {}) {
  Parsed p = ParseModule(text);
  if (p.file->modules.empty()) return absl::InvalidArgumentError("no module");
  if (p.file->HasErrors())
    return absl::InvalidArgumentError(p.file->diagnostics[0].message);
  if (absl::Status s = CheckSupported(*p.file, 0); !s.ok()) return s;
  auto r = Evaluate(*p.file, 0, {args});
  if (!r.ok()) return r.status();
  return r->results[0];
}

}  // namespace hlo::exec::testing

#endif  // HLO_LSP_TESTS_EXEC_EXEC_TEST_UTIL_H_
