#include "hlo/proto/convert.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "hlo/parser.h"
#include "hlo/proto/decode.h"
#include "hlo/proto/encode.h"

namespace hlo::proto {

namespace {

// nullopt when deferred instructions turn out broken.
std::optional<ProtoTextResult> PrintDecoded(const DecodedProto* decoded,
                                            size_t max_bytes,
                                            const PrintOptions& options) {
  ProtoTextResult result;
  result.kind = std::string(ProtoKindName(decoded->kind));
  std::string& text = result.text;
  if (!AppendDecodedModuleText(*decoded, options, &text)) return std::nullopt;
  absl::StrAppend(&text, "// decoded from xla.", result.kind,
                  decoded->gzipped ? " (gzip)" : "");
  if (!decoded->execution_platform.empty()) {
    absl::StrAppend(&text, ", execution platform ",
                    decoded->execution_platform);
  }
  if (decoded->unknown_fields > 0) {
    absl::StrAppend(&text, "; ", decoded->unknown_fields,
                    " fields unknown to this schema were skipped");
  }
  text.push_back('\n');
  for (const LabeledLiteral& literal : decoded->literals) {
    AppendLiteralComment(literal.label, literal.literal, literal.raw_bytes,
                         options, &text);
    if (text.size() > max_bytes) break;
  }
  if (text.size() > max_bytes) {
    size_t cut = text.rfind('\n', max_bytes);
    text.resize(cut == std::string::npos ? 0 : cut + 1);
    result.truncated = true;
  }
  return result;
}

// Decodes with the instructions deferred (the printer reads them off the
// wire); when one of them is broken, decodes whole, as without deferral,
// so that errors and the kind chosen do not depend on it.
absl::StatusOr<ProtoTextResult> DecodeAndPrint(std::string_view bytes,
                                               DecodeOptions decode,
                                               size_t max_bytes,
                                               const PrintOptions& options) {
  decode.defer_instructions = true;
  absl::StatusOr<DecodedProto> decoded = DecodeProto(bytes, decode);
  if (!decoded.ok()) return decoded.status();
  if (auto result = PrintDecoded(&*decoded, max_bytes, options)) {
    return *std::move(result);
  }
  decode.defer_instructions = false;
  decoded = DecodeProto(bytes, decode);
  if (!decoded.ok()) return decoded.status();
  return *PrintDecoded(&*decoded, max_bytes, options);
}

}  // namespace

absl::StatusOr<ProtoTextResult> ConvertProtoFileToText(
    std::string_view bytes, size_t max_bytes, const PrintOptions& options) {
  return DecodeAndPrint(bytes, {}, max_bytes, options);
}

absl::StatusOr<ProtoTextResult> ConvertTextProtoToText(
    std::string_view text, size_t max_bytes, const PrintOptions& options) {
  absl::StatusOr<DecodedProto> decoded = DecodeTextFormatProto(text);
  if (!decoded.ok()) return decoded.status();
  ProtoTextResult result = *PrintDecoded(&*decoded, max_bytes, options);
  result.kind += " (text format)";
  return result;
}

absl::StatusOr<ProtoTextResult> ProtoBytesToText(std::string_view bytes,
                                                 size_t max_bytes,
                                                 size_t max_decoded) {
  if (!IsGzip(bytes) && !LooksLikeBinaryProto(bytes)) {
    return ConvertTextProtoToText(bytes, max_bytes);
  }
  DecodeOptions decode;
  decode.max_bytes = std::min(decode.max_bytes, max_decoded);
  return DecodeAndPrint(bytes, decode, max_bytes, {});
}

absl::StatusOr<std::string> ConvertTextToHloProtoBytes(std::string_view text,
                                                       size_t* module_count) {
  std::unique_ptr<ParsedFile> file = Parse(text);
  if (module_count) *module_count = file->modules.size();
  absl::StatusOr<xla::HloProto> proto = EncodeHloProto(*file);
  if (!proto.ok()) return proto.status();
  std::string bytes;
  if (!proto->SerializeToString(&bytes)) {
    return absl::ResourceExhaustedError(
        "the HloProto is too large to serialise (2 GiB limit)");
  }
  return bytes;
}

}  // namespace hlo::proto
