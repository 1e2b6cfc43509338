#include "server/features/convert.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <system_error>

#include "hlo/proto/convert.h"
#include "server/common/proto_files.h"
#include "server/documents.h"

namespace hlo_lsp {
namespace fs = std::filesystem;
namespace {

constexpr int kAskTimeoutMs = 5 * 60 * 1000;

absl::Status WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return absl::InternalError("cannot write " + path);
  return absl::OkStatus();
}

// The output path: `wanted` when free or the user says Overwrite, else
// `<stem>.N<ext>`; nullopt when the user cancels.
std::optional<std::string> ChooseOutput(Client& client,
                                        const ClientSupport& support,
                                        const std::string& wanted,
                                        const std::atomic<bool>* cancelled) {
  std::error_code ec;
  if (!fs::exists(wanted, ec)) return wanted;
  if (support.show_message) {
    ShowMessageRequestParams ask{
        3,
        fs::path(wanted).filename().string() + " exists. Overwrite it?",
        {"Overwrite", "Cancel"}};
    std::optional<MessageActionResult> answer =
        client.AskUser(ask, kAskTimeoutMs, cancelled);
    if (cancelled && cancelled->load())
      return std::nullopt;  // the request was cancelled
    if (answer) {
      if (answer->dismissed) return std::nullopt;
      if (answer->title == "Overwrite") return wanted;
      if (answer->title == "Cancel") return std::nullopt;
    }
  }
  // No answer: keep the existing file, write beside it.
  fs::path p(wanted);
  std::string stem = (p.parent_path() / p.stem()).string(),
              ext = p.extension().string();
  for (int n = 1; n < 1000; ++n) {
    std::string candidate = stem + "." + std::to_string(n) + ext;
    if (!fs::exists(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

}  // namespace

Result<ProtoTextReply> ProtoToText(const UriParams& params, size_t cap) {
  std::string path = UriToPath(params.uri);
  if (path.empty()) return InvalidParams("expected {uri} with a file URI");
  auto r = ProtoFileToText(path, cap);
  if (!r.ok()) return RequestFailed(std::string(r.status().message()));
  return ProtoTextReply{std::move(r->text), r->truncated, r->kind};
}

Result<WrittenFile> ConvertToText(Client& client, const ClientSupport& support,
                                  const UriParams& params,
                                  const std::atomic<bool>* cancelled) {
  std::string path = UriToPath(params.uri);
  if (path.empty())
    return InvalidParams("hlo.convertToText needs {uri} with a file URI");
  auto r = ProtoFileToText(path, std::numeric_limits<size_t>::max());
  if (!r.ok()) return RequestFailed(std::string(r.status().message()));
  std::string wanted = StripSuffixes(path, {".gz", ".pb", ".pbtxt"}) + ".txt";
  std::optional<std::string> out =
      ChooseOutput(client, support, wanted, cancelled);
  if (!out) return WrittenFile{.cancelled = true};
  if (absl::Status st = WriteFile(*out, r->text); !st.ok()) {
    return RequestFailed(std::string(st.message()));
  }
  if (support.show_document)
    client.ShowDocument(ShowDocumentParams{PathToUri(*out), true});
  WrittenFile written{.uri = PathToUri(*out)};
  written.kind = r->kind;
  return written;
}

Result<WrittenFile> ExportProto(Client& client, const ClientSupport& support,
                                const UriParams& params,
                                const std::atomic<bool>* cancelled) {
  std::string path = UriToPath(params.uri);
  if (path.empty())
    return InvalidParams("hlo.exportProto needs {uri} with a file URI");
  std::shared_ptr<const std::string> text = client.DocumentText(params.uri);
  if (!text) return RequestFailed("cannot read " + path);
  size_t modules = 0;
  auto bytes = hlo::proto::ConvertTextToHloProtoBytes(*text, &modules);
  if (!bytes.ok()) return RequestFailed(std::string(bytes.status().message()));
  std::string wanted = StripSuffixes(path, {".txt", ".hlo"}) + ".pb";
  std::optional<std::string> out =
      ChooseOutput(client, support, wanted, cancelled);
  if (!out) return WrittenFile{.cancelled = true};
  if (absl::Status st = WriteFile(*out, *bytes); !st.ok()) {
    return RequestFailed(std::string(st.message()));
  }
  WrittenFile written{.uri = PathToUri(*out)};
  written.bytes = bytes->size();
  written.modules = modules;
  if (modules > 1)
    written.note = "an HloProto holds one module: exported the first";
  return written;
}

}  // namespace hlo_lsp
