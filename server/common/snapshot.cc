#include "server/common/snapshot.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "exec/literal.h"
#include "exec/replay.h"
#include "exec/sharded_args.h"
#include "exec/strings.h"
#include "hlo/literal_text.h"
#include "hlo/proto/decode.h"
#include "hlo/proto/literal_print.h"
#include "hlo/proto/print.h"

namespace hlo_lsp {

using hlo::exec::Cat;
using hlo::exec::Literal;
using hlo::exec::Value;

namespace {

absl::StatusOr<Literal> LiteralFromProto(const xla::LiteralProto& proto) {
  if (proto.shape().element_type() == 13 /* TUPLE */) {
    std::vector<Value> elements;
    for (const auto& e : proto.tuple_literals()) {
      auto lit = LiteralFromProto(e);
      if (!lit.ok()) return lit;
      elements.push_back(std::make_shared<const Literal>(*std::move(lit)));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  std::string text = hlo::proto::ShapeText(proto.shape(), false) + " ";
  if (!hlo::proto::AppendLiteralValues(proto, &text))
    return absl::InvalidArgumentError("snapshot literal has no readable data");
  auto value = hlo::DecodeShapedLiteral(text);
  if (!value.ok()) return value.status();
  bool elided = false;
  return hlo::exec::LiteralFromValue(
      *value, hlo::LiteralShape::Array(value->type, value->dims), &elided);
}

}  // namespace

absl::StatusOr<SnapshotContents> LoadSnapshot(std::string_view bytes) {
  // Binary (or gzip'ed) protos, else XLA's text-format dumps (`.pbtxt`).
  auto decoded =
      hlo::proto::IsGzip(bytes) || hlo::proto::LooksLikeBinaryProto(bytes)
          ? hlo::proto::DecodeProto(bytes)
          : hlo::proto::DecodeTextFormatProto(bytes);
  if (!decoded.ok()) return decoded.status();
  SnapshotContents out;
  using hlo::proto::ProtoKind;
  out.has_arguments = decoded->kind != ProtoKind::kHloProto &&
                      decoded->kind != ProtoKind::kHloModuleProto;
  if (decoded->module) {
    hlo::proto::PrintOptions options;
    options.max_constant_elements = INT64_MAX / 2;
    hlo::proto::AppendModuleText(*decoded->module, options, &out.module_text);
  }
  for (const auto& labeled : decoded->literals) {
    if (labeled.raw_bytes >= 0)
      return absl::UnimplementedError(
          Cat(labeled.label, ": chunked snapshot data is not decoded"));
    auto lit = LiteralFromProto(labeled.literal);
    if (!lit.ok())
      return absl::InvalidArgumentError(
          Cat(labeled.label, ": ", lit.status().message()));
    Value v = std::make_shared<const Literal>(*std::move(lit));
    const std::string& label = labeled.label;
    size_t at = label.rfind("argument ");
    if (at != std::string::npos) {
      if (label.rfind("partition ", 0) == 0) {
        const int p = std::atoi(label.c_str() + 10);
        out.partitions = std::max(out.partitions, p + 1);
        if (p >= 0) {
          if (out.partition_arguments.size() <= static_cast<size_t>(p))
            out.partition_arguments.resize(p + 1);
          out.partition_arguments[p].push_back(v);
        }
        if (p != 0) continue;
      }
      out.arguments.push_back({Cat("arg", out.arguments.size()), v});
    } else if (label == "result") {
      out.results = hlo::exec::FlattenResult(v);
    }
  }
  return out;
}

absl::StatusOr<std::vector<hlo::exec::Value>> SnapshotArguments(
    const SnapshotContents& snapshot, const hlo::ParsedFile& file,
    hlo::Id module) {
  if (snapshot.partition_arguments.size() > 1)
    return hlo::exec::AssembleShardedArguments(file, module,
                                               snapshot.partition_arguments);
  std::vector<hlo::exec::Value> out;
  for (const auto& [name, v] : snapshot.arguments) out.push_back(v);
  return out;
}

}  // namespace hlo_lsp
