// The bug-report bundle of a module (contracts.md, `hlo-lsp bundle`): one
// .tar.gz with what a report needs -- its stage dumps (before and after
// optimizations), buffer assignment, memory reports, snapshots and
// `debug_options` -- plus MANIFEST.txt. Shared by the CLI and hlo.bundle.
//
// Written with libarchive, streamed in fixed chunks (memory does not grow
// with the files), to a temporary name in the target folder that is then
// linked to the final name, so an existing archive is never replaced.
#ifndef HLO_LSP_SERVER_COMMON_BUNDLE_H_
#define HLO_LSP_SERVER_COMMON_BUNDLE_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hlo_lsp {

struct BundleFile {
  std::string source;  // the path read
  std::string name;    // its name in the archive, below the top folder
  uint64_t size = 0;   // bytes stored (set by WriteBundle)
};

// What goes into the bundle of the module a file belongs to.
struct BundlePlan {
  std::string module_name;  // "" when no file name says it
  int64_t module_id = -1;   // -1 when the file is not a dump
  std::vector<BundleFile> files;
  std::string default_name;  // module_NNNN.NAME.bundle.tar.gz (no folder)
};

// The file itself, then its module's stage dumps, buffer assignments,
// memory reports, snapshots and debug_options, all from the file's own
// folder (index::ModuleFilesOfPath: never another module's or another run's
// files). Pass dumps, protos, LLVM IR, PTX and graphs stay out: a report
// needs the module before and after, and those are large or repeat it.
BundlePlan PlanBundle(const std::string& path);

struct Bundle {
  std::string path;               // the archive written
  std::vector<BundleFile> files;  // MANIFEST.txt not among them
  std::string manifest;           // MANIFEST.txt's text
};

// Writes `plan.files` and MANIFEST.txt (first) into a new gzip'ed tar at
// `out_path`, under one folder named after the archive. Errors:
// AlreadyExists when `out_path` exists (also when it appears meanwhile; it
// is never replaced), Cancelled once `*cancelled` turns true, NotFound or
// Unavailable for files that cannot be read or written. Leaves no partial
// file behind.
absl::StatusOr<Bundle> WriteBundle(
    const BundlePlan& plan, const std::string& out_path,
    const std::atomic<bool>* cancelled = nullptr);

// `name` (NAME.tar.gz) with `-N` before `.tar.gz` for N >= 2: the names tried
// after the first when a bundle must not replace an earlier one.
std::string NumberedBundleName(const std::string& name, int n);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_COMMON_BUNDLE_H_
