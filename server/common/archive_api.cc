#include "server/common/archive_api.h"

#include "absl/status/status.h"
#include "base/dynamic_library.h"

#ifndef HLO_LSP_LIBARCHIVE_SONAME
#define HLO_LSP_LIBARCHIVE_SONAME "libarchive.so.13"
#endif

namespace hlo_lsp {
namespace {

absl::Status LoadArchiveFunctions(const hlo::base::DynamicLibrary& library,
                                  ArchiveApi* api) {
  HLO_LSP_ARCHIVE_FUNCTIONS(HLO_LSP_LOAD_API_MEMBER)
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<const ArchiveApi*> LoadArchiveApi() {
  return hlo::base::LoadApiOnce<ArchiveApi>(
      {HLO_LSP_LIBARCHIVE_SONAME, "libarchive.so.13", "libarchive.so"},
      LoadArchiveFunctions,
      "libarchive is needed to write archives (Debian: apt install "
      "libarchive13)");
}

}  // namespace hlo_lsp
