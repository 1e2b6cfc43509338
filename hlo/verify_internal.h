// The verifier's check families (hlo/verify_*.cc), each pure: the syntax
// model in, findings appended. Only hlo/verify.cc calls them.
#ifndef HLO_LSP_HLO_VERIFY_INTERNAL_H_
#define HLO_LSP_HLO_VERIFY_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hlo/shape_inference.h"
#include "hlo/syntax.h"

namespace hlo::verify_internal {

struct Findings {
  const ParsedFile& file;
  std::vector<Diagnostic>* out;
  void Error(Span span, std::string message) const {
    out->push_back(Diagnostic{span, Severity::kError, std::move(message)});
  }
  // The same, naming the other side of the finding.
  void Error(Span span, std::string message,
             std::vector<RelatedSpan> related) const {
    out->push_back(Diagnostic{span, Severity::kError, std::move(message),
                              std::move(related)});
  }
};

// Whether any attribute in the file has this key: a rule for a rare one
// (result_accuracy, origin) skips a file without it at the cost of one
// pass over the attributes, not a lookup per instruction.
inline bool AnyAttributeNamed(const ParsedFile& file, std::string_view key) {
  for (const Attribute& a : file.attributes) {
    if (a.key.size() == key.size() && file.Text(a.key) == key) return true;
  }
  return false;
}

// Where a related location points at an instruction: its name, or the
// whole of a nameless nested one.
inline Span NameOrSpan(const Instruction& inst) {
  return inst.name.empty() ? inst.span : inst.name;
}

// Operand `i`'s shape: its definition's (or its nested instruction's), else
// the shape written inline; nullopt past the operand list or unreadable.
std::optional<InferredShape> OperandShape(const ParsedFile& file,
                                          const Instruction& inst, Id i);
// XLA's memory space number for host memory (Layout::kHostMemorySpace).
inline constexpr int64_t kHostMemorySpace = 5;

// An array shape: neither a tuple nor a token.
inline bool IsArray(const InferredShape& s) {
  return !s.is_tuple() && s.element_type != PrimitiveType::kToken;
}

// The module as a whole: an empty file, a module without an entry.
void CheckModules(const Findings& f);
// Operand counts per opcode (XLA's parser's "expects N operands").
void CheckOperandCounts(const Findings& f);
// Start/done pairs and their one-consumer rule.
void CheckAsyncPairs(const Findings& f);
// Shapes XLA's parser compares: computation results against roots, written
// operand shapes, infeed tuples, conditional branch indices.
void CheckSignatures(const Findings& f);
// Async wrappers: op shapes, what update/done restate, the wrapped
// computation's signature, one async-start per wrapped computation.
void CheckAsyncWrappers(const Findings& f, bool allow_mixed_precision);
// Collectives (replica groups, use_global_device_ids) and comparison
// types.
void CheckCollectives(const Findings& f);
// collective-permute: in-place buffers against offsets, how often a
// source or target may repeat.
void CheckCollectivePermutes(const Findings& f);
// Group sizes, gather/scatter dimensions and shard counts, ragged offsets,
// the all-reduce-start shape (todays_rules), layout-constrained all-reduce.
void CheckCollectiveShapes(const Findings& f, bool todays_rules,
                           bool allow_mixed_precision);
// sharding=: the tile rank against the shape, one sharding across a while
// or conditional and the computations it calls.
void CheckShardings(const Findings& f);
// scaled-dot's scales against its operands.
void CheckScaledDots(const Findings& f);
// An async-start's computation holds one op and its parameters.
void CheckAsyncComputations(const Findings& f);
// Execution threads of called computations against their callers.
void CheckThreads(const Findings& f, bool call_thread_names);
// Per-op rules: rng, iota, select, composite calls, one fp precision.
void CheckOps(const Findings& f, bool allow_mixed_precision);
// The header's input_output_alias and buffer_donor, as XLA reads them.
void CheckAliasing(const Findings& f);
// result_accuracy: which ops take it, and its grammar.
void CheckResultAccuracy(const Findings& f);
// custom-call: layout constraint count, API version (todays_rules).
void CheckCustomCalls(const Findings& f, bool todays_rules);
// custom-call output_to_operand_aliasing: valid indices, equal shapes.
void CheckCustomCallAliasing(const Findings& f, bool layout_sensitive);
// Buffer types b(...): where they may appear, custom-call aliasing of
// them, Pin/Unpin/CreateBuffer, one writer per buffer value.
void CheckBuffers(const Findings& f, bool layout_sensitive);
// Host-transfer send/recv sharing a channel must be identical.
void CheckHostTransferChannels(const Findings& f);
// verify_no_collective_deadlocks: send/recv pairing in schedule order.
void CheckCollectiveDeadlocks(const Findings& f);
// Called computations against their call sites.
void CheckCalledComputations(const Findings& f, bool allow_mixed_precision);

// Layout-sensitive rules (layout_sensitive): layouts kept or equal to an
// operand's, host-offloading memory spaces, bitcast byte sizes.
void CheckLayouts(const Findings& f, bool allow_mixed_precision);
// entry_computation_layout against the entry (layout_sensitive).
void CheckEntryLayout(const Findings& f);
// Rules XLA runs only under an HloVerifierOpts switch of their own.
struct OptInRules {
  bool broadcast_dimensions_order = false;
  bool reshape_is_bitcast = false;  // with layout_sensitive only
  bool no_host_memory_space = false;
  bool instruction_name_unchanged = false;
};
void CheckOptInRules(const Findings& f, const OptInRules& rules);
// Shapes with an unbounded ('?') dimension (unless allowed).
void CheckUnboundedDynamism(const Findings& f);
// origin={...}: its tuple tree against the instruction's shape.
void CheckOriginalValues(const Findings& f);

}  // namespace hlo::verify_internal

#endif  // HLO_LSP_HLO_VERIFY_INTERNAL_H_
