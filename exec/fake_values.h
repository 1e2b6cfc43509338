// Fake values with run_hlo_module's rules (hlo-format-facts.md section 9),
// one literal at a time: a std::minstd_rand0 engine, floats uniform in
// [-0.1, 0.2) (computed in f32 for narrower types), integers over their
// whole range, or as a FakeConstraint says. The evaluator fills elided
// constants with them; fake_data.h finds the constraints of a module's
// parameters.
#ifndef HLO_LSP_EXEC_FAKE_VALUES_H_
#define HLO_LSP_EXEC_FAKE_VALUES_H_

#include <cstdint>
#include <optional>
#include <random>
#include <string>

#include "exec/literal.h"

namespace hlo::exec {

// How one parameter's values must be drawn.
struct FakeConstraint {
  std::optional<int64_t> index_max;   // integers in [0, index_max]
  std::optional<int64_t> init_value;  // every element this value
  bool no_duplicates = false;
  std::string reason;  // "dynamic-slice index", ...
};

// Fills every element with the default fake values.
void FillFake(Literal& lit, std::minstd_rand0& engine);
void FillFake(Literal& lit, std::minstd_rand0& engine,
              const FakeConstraint& constraint);

}  // namespace hlo::exec

#endif  // HLO_LSP_EXEC_FAKE_VALUES_H_
