// libarchive, loaded the first time an archive is written: only `bundle`
// writes one, and loading libarchive with the dozen libraries it needs
// (ICU and libxml2 among them) cost every start of hlo-lsp ~3 ms.
#ifndef HLO_LSP_SERVER_COMMON_ARCHIVE_API_H_
#define HLO_LSP_SERVER_COMMON_ARCHIVE_API_H_

#include <archive.h>
#include <archive_entry.h>

#include "absl/status/statusor.h"
#include "base/dynamic_library.h"

namespace hlo_lsp {

// The functions bundle.cc calls, each member named and typed as declared
// in archive.h.
#define HLO_LSP_ARCHIVE_FUNCTIONS(X) \
  X(archive_entry_free)              \
  X(archive_entry_new)               \
  X(archive_entry_set_filetype)      \
  X(archive_entry_set_mtime)         \
  X(archive_entry_set_pathname)      \
  X(archive_entry_set_perm)          \
  X(archive_entry_set_size)          \
  X(archive_error_string)            \
  X(archive_write_add_filter_gzip)   \
  X(archive_write_close)             \
  X(archive_write_data)              \
  X(archive_write_free)              \
  X(archive_write_header)            \
  X(archive_write_new)               \
  X(archive_write_open_fd)           \
  X(archive_write_set_format_pax_restricted)

struct ArchiveApi {
  HLO_LSP_ARCHIVE_FUNCTIONS(HLO_LSP_DECLARE_API_MEMBER)
};

// Loads libarchive once per process; an error (naming the library or
// function missing) every call after a failed load.
absl::StatusOr<const ArchiveApi*> LoadArchiveApi();

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_COMMON_ARCHIVE_API_H_
