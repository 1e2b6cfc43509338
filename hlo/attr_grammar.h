// Internal: the grammars of the structured attribute values, over the
// Scanner of attr_scan.h. Each takes a nullable `out` (nullptr = validate
// only, no allocation) and is used both by ValidateAttributeValue and by the
// DecodeX functions of attributes.h.
#ifndef HLO_LSP_HLO_ATTR_GRAMMAR_H_
#define HLO_LSP_HLO_ATTR_GRAMMAR_H_

#include <vector>

#include "hlo/attr_scan.h"
#include "hlo/attr_values.h"

namespace hlo::attr_internal {

// attr_dims.cc
bool ParseWindow(Scanner& s, Window* out);
bool ParseDimLabels(Scanner& s, ConvolutionDimensionNumbers* out);
bool ParseSliceSpec(Scanner& s, SliceSpec* out);
bool ParsePadding(Scanner& s, PaddingConfig* out);

// attr_collectives.cc
bool ParseReplicaGroups(Scanner& s, ReplicaGroups* out);
bool ParseSourceTargetPairs(Scanner& s, std::vector<SourceTargetPair>* out);
bool ParseAliasing(Scanner& s, std::vector<OutputOperandAlias>* out);
// slice_sizes= of gather ({1,2}) or of collective-permute ({{1,2},{3,4}}).
bool ParseIntListOrListList(Scanner& s);

// attr_enums.cc
bool ParseDirection(Scanner& s, ComparisonDirection* out);
bool ParseComparisonType(Scanner& s, ComparisonType* out);
bool ParseFusionKind(Scanner& s, FusionKind* out);
bool ParseApiVersion(Scanner& s, CustomCallApiVersion* out);
bool ParsePrecision(Scanner& s, Precision* out);
bool ParseOperandPrecision(Scanner& s, std::vector<Precision>* out);
bool ParseDotAlgorithm(Scanner& s, DotAlgorithm* out);
bool ParseRandomDistribution(Scanner& s, RandomDistribution* out);
bool ParseRandomAlgorithm(Scanner& s, RandomAlgorithm* out);
// algorithm= is shared by dot (dot_*) and rng-bit-generator (rng_*).
bool ParseAnyAlgorithm(Scanner& s);
bool ParseFftType(Scanner& s, FftType* out);
bool ParseTriangularTranspose(Scanner& s, TriangularTranspose* out);
bool ParsePaddingType(Scanner& s);
bool ParseSchedule(Scanner& s);

// attributes.cc
bool ParseFrontendAttributes(Scanner& s, FrontendAttributes* out);
bool ParseStatistics(Scanner& s);

}  // namespace hlo::attr_internal

#endif  // HLO_LSP_HLO_ATTR_GRAMMAR_H_
