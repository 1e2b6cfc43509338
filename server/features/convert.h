// Conversion commands: a proto's text view (hlo/protoToText), a proto
// written out as text (hlo.convertToText), and HLO text written out as an
// HloProto (hlo.exportProto). Writing asks before overwriting a file.
#ifndef HLO_LSP_SERVER_FEATURES_CONVERT_H_
#define HLO_LSP_SERVER_FEATURES_CONVERT_H_

#include <atomic>
#include <cstddef>

#include "server/client.h"
#include "server/protocol_workspace.h"
#include "server/result.h"

namespace hlo_lsp {

inline constexpr size_t kProtoTextCap = size_t{256} << 20;

Result<ProtoTextReply> ProtoToText(const UriParams& params,
                                   size_t cap = kProtoTextCap);
Result<WrittenFile> ConvertToText(Client& client, const ClientSupport& support,
                                  const UriParams& params,
                                  const std::atomic<bool>* cancelled);
Result<WrittenFile> ExportProto(Client& client, const ClientSupport& support,
                                const UriParams& params,
                                const std::atomic<bool>* cancelled);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_FEATURES_CONVERT_H_
