#include "server/common/archive_api.h"

#include "absl/status/status.h"
#include "base/dynamic_library.h"

#ifndef HLO_LSP_LIBARCHIVE_SONAME
#define HLO_LSP_LIBARCHIVE_SONAME "libarchive.so.13"
#endif

namespace hlo_lsp {
namespace {

absl::StatusOr<ArchiveApi> LoadArchive() {
  absl::StatusOr<hlo::base::DynamicLibrary> library =
      hlo::base::DynamicLibrary::Open(
          {HLO_LSP_LIBARCHIVE_SONAME, "libarchive.so.13", "libarchive.so"});
  if (!library.ok()) {
    return absl::FailedPreconditionError(
        "libarchive is needed to write archives (Debian: apt install "
        "libarchive13): " +
        std::string(library.status().message()));
  }
  ArchiveApi api;
#define HLO_LSP_ARCHIVE_LOAD(name)                                 \
  if (absl::Status s = library->Load(#name, &api.name); !s.ok()) { \
    return absl::FailedPreconditionError(s.message());             \
  }
  HLO_LSP_ARCHIVE_FUNCTIONS(HLO_LSP_ARCHIVE_LOAD)
#undef HLO_LSP_ARCHIVE_LOAD
  return api;
}

}  // namespace

absl::StatusOr<const ArchiveApi*> LoadArchiveApi() {
  static const absl::StatusOr<ArchiveApi>* const api =
      new absl::StatusOr<ArchiveApi>(LoadArchive());
  if (!api->ok()) return api->status();
  return &**api;
}

}  // namespace hlo_lsp
