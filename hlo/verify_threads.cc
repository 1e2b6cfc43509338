// Execution threads (XLA's hlo_verifier.cc): a fusion, while or conditional
// runs its computations on its own computation's thread; an async op's
// wrapped computation takes its thread (so that is never wrong); with
// verify_call_nested_computation_thread_name, calls, custom-calls and every
// to_apply too.
#include <string_view>

#include "base/strings.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

std::string_view Unquote(std::string_view v) {
  if (v.size() >= 2 && v.front() == '"') return v.substr(1, v.size() - 2);
  return v;
}

// A computation's thread: as printed, else the async_execution_thread of
// the async-start that wraps it (XLA's parser gives the wrapped computation
// the op's thread, so the two never differ), else main.
std::string_view ThreadOf(const ParsedFile& file, Id computation) {
  std::string_view t =
      Unquote(file.Text(file.computations[computation].execution_thread));
  if (!t.empty()) return t;
  if (computation + 1 < file.caller_offsets.size()) {
    for (Id r = file.caller_offsets[computation];
         r < file.caller_offsets[computation + 1]; ++r) {
      const ComputationRef& ref = file.computation_refs[file.caller_refs[r]];
      if (ref.instruction == kNone) continue;
      const Instruction& caller = file.instructions[ref.instruction];
      if (caller.opcode != Opcode::kAsyncStart) continue;
      if (const Attribute* a =
              file.FindAttribute(caller, "async_execution_thread")) {
        return Unquote(file.Text(a->value));
      }
    }
  }
  return "main";
}

}  // namespace

void CheckThreads(const Findings& f, bool call_thread_names) {
  const ParsedFile& file = f.file;
  for (const Instruction& inst : file.instructions) {
    // Most instructions call nothing: skip the caller's thread lookup.
    if (inst.computation == kNone || inst.called.count == 0) continue;
    const std::string_view parent = ThreadOf(file, inst.computation);
    const bool callable =
        inst.opcode == Opcode::kFusion || inst.opcode == Opcode::kWhile ||
        inst.opcode == Opcode::kConditional ||
        (call_thread_names &&
         (inst.opcode == Opcode::kCall || inst.opcode == Opcode::kCustomCall));
    for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
      const ComputationRef& ref = file.computation_refs[r];
      if (ref.computation == kNone || ref.attribute == kNone) continue;
      const std::string_view callee = ThreadOf(file, ref.computation);
      const std::string_view key =
          file.Text(file.attributes[ref.attribute].key);
      if (callee == parent) continue;
      if (callable) {
        f.Error(ref.name,
                base::Cat("Callable instruction ", file.Name(inst),
                          " expects parent computation thread name same as "
                          "called computation's thread name (",
                          parent, " vs ", callee, ")."),
                {{file.computations[ref.computation].name,
                  "the called computation"}});
      } else if (call_thread_names && key == "to_apply") {
        f.Error(ref.name,
                base::Cat(file.Name(inst),
                          " to_apply computation execution thread "
                          "does not match (",
                          callee, " vs ", parent, ")"),
                {{file.computations[ref.computation].name,
                  "the called computation"}});
      }
    }
  }
}

}  // namespace hlo::verify_internal
