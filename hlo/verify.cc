#include "hlo/verify.h"

#include "hlo/shape_inference.h"
#include "hlo/verify_internal.h"

namespace hlo {

namespace verify_internal {

std::optional<InferredShape> OperandShape(const ParsedFile& file,
                                          const Instruction& inst, Id i) {
  if (i >= inst.operands.count) return std::nullopt;
  const Operand& operand = file.operands[inst.operands.begin + i];
  const Id def = operand.Producer();
  return ShapeFromFile(
      file, def != kNone ? file.instructions[def].shape : operand.shape);
}

}  // namespace verify_internal

bool ParseVerifierOptions(std::string_view list, VerifierOptions* options,
                          std::string* bad) {
  // XLA's HloVerifierOpts names the contract lists; those we do not act on
  // yet are accepted (they only ever add findings XLA would add).
  static constexpr std::string_view kNames[] = {
      "default",
      "layout_sensitive",
      "allow_mixed_precision",
      "verify_no_collective_deadlocks",
      "verify_call_nested_computation_thread_name",
      "verify_reshape_is_bitcast",
      "verify_no_host_memory_space",
      "verify_instruction_name_unchanged",
      "verify_broadcast_dimensions_order",
      "allow_scalar_index_dynamic_ops",
      "allow_unbounded_dynamism"};
  *options =
      VerifierOptions{.allow_mixed_precision = false, .todays_rules = true};
  for (size_t start = 0; start <= list.size();) {
    size_t end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    std::string_view name = list.substr(start, end - start);
    bool known = false;
    for (std::string_view k : kNames) known |= name == k;
    if (!known) {
      *bad = std::string(name);
      return false;
    }
    if (name == "allow_mixed_precision") options->allow_mixed_precision = true;
    if (name == "layout_sensitive") options->layout_sensitive = true;
    options->allow_unbounded_dynamism |= name == "allow_unbounded_dynamism";
    options->verify_broadcast_dimensions_order |=
        name == "verify_broadcast_dimensions_order";
    options->verify_reshape_is_bitcast |= name == "verify_reshape_is_bitcast";
    options->verify_no_host_memory_space |=
        name == "verify_no_host_memory_space";
    options->verify_instruction_name_unchanged |=
        name == "verify_instruction_name_unchanged";
    if (name == "verify_no_collective_deadlocks") {
      options->no_collective_deadlocks = true;
    }
    if (name == "verify_call_nested_computation_thread_name") {
      options->call_nested_computation_thread_name = true;
    }
    start = end + 1;
  }
  return true;
}

std::vector<Diagnostic> Verify(const ParsedFile& file,
                               const VerifierOptions& options) {
  std::vector<Diagnostic> out =
      CheckShapes(file, ShapeCheckOptions{.allow_mixed_precision =
                                              options.allow_mixed_precision});
  // XLA stops at its parser's first error and never verifies; while the
  // text has a syntax error, these checks would only see what recovery
  // left (an operand list cut short) and report cascades.
  if (file.HasErrors()) return out;
  const verify_internal::Findings findings{file, &out};
  verify_internal::CheckModules(findings);
  verify_internal::CheckAliasing(findings);
  verify_internal::CheckResultAccuracy(findings);
  verify_internal::CheckCustomCalls(findings, options.todays_rules);
  verify_internal::CheckOperandCounts(findings);
  verify_internal::CheckSignatures(findings);
  verify_internal::CheckAsyncPairs(findings);
  verify_internal::CheckCollectives(findings);
  verify_internal::CheckCollectivePermutes(findings);
  verify_internal::CheckCollectiveShapes(findings, options.todays_rules,
                                         options.allow_mixed_precision);
  verify_internal::CheckShardings(findings);
  verify_internal::CheckScaledDots(findings);
  verify_internal::CheckAsyncComputations(findings);
  verify_internal::CheckOps(findings, options.allow_mixed_precision);
  verify_internal::CheckThreads(findings,
                                options.call_nested_computation_thread_name);
  verify_internal::CheckAsyncWrappers(findings, options.allow_mixed_precision);
  verify_internal::CheckCalledComputations(findings,
                                           options.allow_mixed_precision);
  verify_internal::CheckOriginalValues(findings);
  if (!options.allow_unbounded_dynamism) {
    verify_internal::CheckUnboundedDynamism(findings);
  }
  if (options.layout_sensitive) {
    verify_internal::CheckLayouts(findings, options.allow_mixed_precision);
    verify_internal::CheckEntryLayout(findings);
  }
  verify_internal::CheckOptInRules(
      findings,
      {.broadcast_dimensions_order = options.verify_broadcast_dimensions_order,
       .reshape_is_bitcast =
           options.verify_reshape_is_bitcast && options.layout_sensitive,
       .no_host_memory_space = options.verify_no_host_memory_space,
       .instruction_name_unchanged =
           options.verify_instruction_name_unchanged});
  verify_internal::CheckCustomCallAliasing(findings, options.layout_sensitive);
  verify_internal::CheckBuffers(findings, options.layout_sensitive);
  verify_internal::CheckHostTransferChannels(findings);
  if (options.no_collective_deadlocks) {
    verify_internal::CheckCollectiveDeadlocks(findings);
  }
  return out;
}

}  // namespace hlo
