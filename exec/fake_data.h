// Fake arguments with run_hlo_module's rules (hlo-format-facts.md section
// 9): a std::minstd_rand0 engine, floats uniform in [-0.1, 0.2) (computed in
// f32 for narrower types), integers over their whole range, and constrained
// uses: in-range dynamic-slice / gather / scatter indices, 0 or 1 for the
// init values of add / multiply reducers, sort keys without duplicates.
#ifndef HLO_LSP_EXEC_FAKE_DATA_H_
#define HLO_LSP_EXEC_FAKE_DATA_H_

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/literal.h"
#include "hlo/syntax.h"

namespace hlo::exec {

// How one parameter's values must be drawn.
struct FakeConstraint {
  std::optional<int64_t> index_max;  // integers in [0, index_max]
  std::optional<int64_t> init_value;  // every element this value
  bool no_duplicates = false;
  std::string reason;  // "dynamic-slice index", ...
};

// Fills every element with the default fake values.
void FillFake(Literal& lit, std::minstd_rand0& engine);
void FillFake(Literal& lit, std::minstd_rand0& engine,
              const FakeConstraint& constraint);

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
