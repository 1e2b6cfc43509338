// XLA dump file naming (xla/service/dump.cc, hlo-format-facts.md section 8)
// and cheap "is this HLO text?" checks by name and by first bytes.
#ifndef HLO_LSP_INDEX_DUMP_NAME_H_
#define HLO_LSP_INDEX_DUMP_NAME_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hlo::index {

enum class DumpKind : uint8_t {
  kNotDump,    // not XLA dump naming at all (any other file)
  kStage,      // module_NNNN.<name>.<stage>.txt (before_optimizations, ...)
  kPassDump,   // module_NNNN.<name>.SSSS.<pipeline>.after_X.before_Y.txt
  kPassStep,   // module_NNNN.<name>.SSSS.<pass>.<step_name>.txt (mid-pass)
  kAuxiliary,  // buffer assignment, memory report, .ll, .ptx, ... (not HLO)
};

struct DumpFileName {
  DumpKind kind = DumpKind::kNotDump;
  std::string timestamp;    // "" when --xla_dump_include_timestamp was off
  int64_t module_id = -1;   // NNNN; -1 when not a dump name
  std::string module_name;  // may itself contain dots
  std::string stage;        // kStage: e.g. "before_optimizations"
  int64_t step = -1;        // kPassDump / kPassStep: SSSS
  std::string pipeline;     // kPassDump: e.g. "gpu-compiler"; kPassStep: pass
  std::string after_pass;   // kPassDump
  std::string before_pass;  // kPassDump; kPassStep: the step name
};

// Parses a file name (no directory). `module_name_hint` (the HloModule name
// read from the file, when known) resolves the ambiguity of module names that
// contain dots; without it a heuristic is used (a stage never starts with a
// digit, so `name.sm_9.0_gpu_after_optimizations` splits before `sm_9`).
DumpFileName ParseDumpFileName(std::string_view file_name,
                               std::string_view module_name_hint = {});

// True when the name alone says the file can hold HLO worth scanning: .txt,
// .hlo, .pbtxt that are not known auxiliary dumps, and protos (.pb, .pb.gz;
// not profiles, .xplane.pb; text snapshots .hlo_unoptimized_snapshot.txt),
// which are indexed through their text view.
bool IsCandidateByName(std::string_view file_name);

// True when the first bytes of a file look like HLO text: an `HloModule` or
// `ENTRY` line, or a computation header, within the sniffed prefix.
bool LooksLikeHloText(std::string_view prefix);

// Orders the files of one module: stages before_optimizations first, then
// pass dumps by step, then the other stages. Returns a sort key.
std::string DumpOrderKey(const DumpFileName& name);

}  // namespace hlo::index

#endif  // HLO_LSP_INDEX_DUMP_NAME_H_
