// The computation an async-start wraps holds one op and its parameters
// (XLA's HloVerifier::Run: VerifyAsyncComputation, unless it only sends and
// receives or its start carries the _collectives_group frontend attribute,
// the forms that wrap NCCL groups).
#include <string_view>

#include "base/strings.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

bool OnlySendRecv(const ParsedFile& file, const Computation& c) {
  for (Id id = c.instructions.begin; id < c.instructions.end(); ++id) {
    switch (file.instructions[id].opcode) {
      case Opcode::kSend:
      case Opcode::kRecv:
      case Opcode::kBitcast:
      case Opcode::kParameter:
      case Opcode::kTuple:
        break;
      default:
        return false;
    }
  }
  return true;
}

bool IsTrivial(const ParsedFile& file, const Computation& c) {
  for (Id id = c.instructions.begin; id < c.instructions.end(); ++id) {
    if (id != c.root && file.instructions[id].opcode != Opcode::kParameter) {
      return false;
    }
  }
  return true;
}

// Whether computation `c` is an async computation (some async-start calls
// it) that XLA checks: none of its starts groups collectives.
bool IsCheckedAsyncComputation(const ParsedFile& file, Id c) {
  if (c + 1 >= file.caller_offsets.size()) return false;
  bool async = false;
  for (Id i = file.caller_offsets[c]; i < file.caller_offsets[c + 1]; ++i) {
    const ComputationRef& ref = file.computation_refs[file.caller_refs[i]];
    if (ref.instruction == kNone) continue;
    const Instruction& caller = file.instructions[ref.instruction];
    // A sugared start (call-start, fusion-start...) names the wrapped op's
    // computation, not an async computation.
    if (caller.opcode != Opcode::kAsyncStart ||
        caller.wrapped_opcode != Opcode::kUnknown) {
      continue;
    }
    async = true;
    const Attribute* attrs = file.FindAttribute(caller, "frontend_attributes");
    if (attrs != nullptr &&
        file.Text(attrs->value).find("_collectives_group") !=
            std::string_view::npos) {
      return false;
    }
  }
  return async;
}

}  // namespace

void CheckAsyncComputations(const Findings& f) {
  const ParsedFile& file = f.file;
  for (Id c = 0; c < file.computations.size(); ++c) {
    const Computation& comp = file.computations[c];
    if (comp.root == kNone || IsTrivial(file, comp) ||
        OnlySendRecv(file, comp) || !IsCheckedAsyncComputation(file, c)) {
      continue;
    }
    f.Error(comp.name, base::Cat("Asynchronous computation ", file.Name(comp),
                                 " expected to contain only the root and "
                                 "parameter instructions."));
  }
}

}  // namespace hlo::verify_internal
