// Every file XLA wrote for one module of one run (contracts.md, "The
// compilation history of a module"): stages, pass dumps in step order,
// protos, snapshots, buffer assignment, memory reports, LLVM IR, PTX, graphs
// and the rest, found by name in the module's own folder (never below it),
// also where XLA dropped the module name (a base name over 255 characters)
// or changed it (SanitizeFileName turns `/\[] ` into `_`).
//
// Grouping, from the folder listing: the same `module_NNNN` id, the same
// timestamp prefix where both files have one (snapshots always carry one),
// and the same module name where the file name carries it. Module names with
// dots are settled by the pass dumps' names (unambiguous) and the HloModule
// line of the stage dumps (a 4 KB head read each), never guessed.
#ifndef HLO_LSP_INDEX_MODULE_FILES_H_
#define HLO_LSP_INDEX_MODULE_FILES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "index/dump_name.h"

namespace hlo::index {

enum class DumpFileKind : uint8_t {
  kStage,
  kPass,
  kProto,
  kSnapshot,
  kBufferAssignment,
  kMemoryReport,
  kLlvmIr,
  kPtx,
  kGraph,
  kOther,
};

// "stage", "pass", "proto", "snapshot", "buffer-assignment",
// "memory-report", "llvm-ir", "ptx", "graph", "other".
std::string_view DumpFileKindName(DumpFileKind kind);

struct DumpFile {
  std::string path;  // the folder as given, joined with the file name
  DumpFileKind kind = DumpFileKind::kOther;
  // What the name says after the module name: the stage
  // ("after_optimizations"), the pass dump's suffix
  // ("0003.simplification.after_algsimp.before_dce"), or the file's own
  // suffix ("after_optimizations-buffer-assignment.txt").
  std::string label;
  DumpFileName dump;  // stage / step / pipeline / pass, as parsed
  bool is_hlo_text() const {
    return kind == DumpFileKind::kStage || kind == DumpFileKind::kPass;
  }
};

struct ModuleDumpFiles {
  std::string module_name;      // "" when no file says it
  int64_t module_id = -1;       // -1 for a file that is not a dump
  std::vector<DumpFile> files;  // HLO text in history order, then by kind
};

// The files of the module `path` belongs to, `path` among them (the only
// one when its name is not a dump name). Reads at most `max_entries`
// entries of the folder.
ModuleDumpFiles ModuleFilesOfPath(const std::string& path,
                                  size_t max_entries = 200000);

// The modules of a folder that have HLO text dumps, each with its files
// (for `passes DIR`), ordered by module id.
std::vector<ModuleDumpFiles> ModulesInFolder(const std::string& folder,
                                             size_t max_entries = 200000);

// The stage and pass dumps of `files` only (HLO text, history order).
std::vector<DumpFile> HloTextHistory(const ModuleDumpFiles& files);

}  // namespace hlo::index

#endif  // HLO_LSP_INDEX_MODULE_FILES_H_
