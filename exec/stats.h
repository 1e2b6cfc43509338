// What replay reports about array values, one rule each: the statistics of
// one array (the evaluator's and the GPU backend's per-instruction
// statistics add these up) and the contracts' tolerance rule comparing two
// arrays (replay's CompareOutputs and compare mode's DescribeDifference).
#ifndef HLO_LSP_EXEC_STATS_H_
#define HLO_LSP_EXEC_STATS_H_

#include <cstdint>

#include "exec/evaluator.h"
#include "exec/literal.h"

namespace hlo::exec {

// Statistics of one array value (what InstructionStats records per run):
// runs 1, or runs 0 and nothing else for a tuple or a token.
InstructionStats StatsOf(Id instruction, const Literal& value);

// The elements of two arrays of one shape that differ under the contracts'
// rule: off by more than atol absolute AND more than rtol relative to
// `want`; NaN equals NaN, NaN against a number differs.
struct Differences {
  int64_t count = 0;
  int64_t first = -1;  // index of the first differing element
  double worst = 0;    // the largest difference (inf for a NaN)
};
Differences CountDifferences(const Literal& want, const Literal& got,
                             double atol, double rtol);

}  // namespace hlo::exec

#endif  // HLO_LSP_EXEC_STATS_H_
