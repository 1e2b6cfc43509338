// Fake arguments with run_hlo_module's rules (hlo-format-facts.md section
// 9): values drawn as fake_values.h draws them, constrained by their uses:
// in-range dynamic-slice / gather / scatter indices, 0 or 1 for the init
// values of add / multiply reducers, sort keys without duplicates.
#ifndef HLO_LSP_EXEC_FAKE_DATA_H_
#define HLO_LSP_EXEC_FAKE_DATA_H_

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/fake_values.h"
#include "exec/literal.h"
#include "hlo/syntax.h"

namespace hlo::exec {

// The constraint on entry parameter `number`, found by following its uses
// through fusion/call parameters, convert and reduce-precision (and
// reshape/transpose/copy/slice for gather/scatter indices).
absl::StatusOr<FakeConstraint> ParameterConstraint(const ParsedFile& file,
                                                   Id module, int64_t number);

// One fake literal per entry parameter, in parameter order. `notes` gets a
// line per constrained parameter.
absl::StatusOr<std::vector<Value>> MakeFakeArguments(
    const ParsedFile& file, Id module, uint32_t seed,
    std::vector<std::string>* notes);

}  // namespace hlo::exec

#endif  // HLO_LSP_EXEC_FAKE_DATA_H_
