// hlo.diff {uri, otherUri}: the structural diff of two files (hlo/diff.h),
// read from disk (protos as their text view), with both sides' lines so an
// editor can link each entry to A and to B.
#include "hlo/diff.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "absl/container/flat_hash_map.h"
#include "hlo/parser.h"
#include "server/common/file_reader.h"
#include "server/common/proto_files.h"
#include "server/features/workspace_features.h"

namespace hlo_lsp {
namespace {

struct Side {
  std::optional<FileContents> bytes;
  std::string view;  // a proto's text view
  bool from_proto = false;
  std::unique_ptr<hlo::ParsedFile> parsed;
  // "computation\nname" -> 1-based line.
  absl::flat_hash_map<std::string, int64_t> lines;

  // Computed, not kept: a moved std::string may move its characters.
  std::string_view text() const {
    return from_proto ? std::string_view(view) : bytes->text();
  }
  int64_t LineOf(const std::string& computation,
                 const std::string& name) const {
    auto it = lines.find(computation + "\n" + name);
    return it == lines.end() ? 0 : it->second;
  }
};

Result<Side> Load(const std::string& uri) {
  std::string path = UriToPath(uri);
  if (path.empty()) return InvalidParams("expected file URIs, got " + uri);
  Side side;
  auto contents = FileContents::Read(path);
  if (!contents.ok()) {
    return RequestFailed(std::string(contents.status().message()));
  }
  side.bytes.emplace(std::move(*contents));
  absl::StatusOr<std::string_view> text =
      HloTextOf(path, side.bytes->text(), &side.view);
  if (!text.ok()) {
    return RequestFailed(path + ": " + std::string(text.status().message()));
  }
  side.from_proto = HoldsProto(path, side.bytes->text());
  hlo::ParseOptions options;
  options.max_diagnostics = 16;
  options.validate_attributes = false;
  side.parsed = hlo::Parse(side.text(), options);
  const hlo::ParsedFile& f = *side.parsed;
  for (const hlo::Computation& c : f.computations) {
    std::string computation(f.Text(c.name));
    for (hlo::Id i = c.instructions.begin; i < c.instructions.end(); ++i) {
      const hlo::Instruction& inst = f.instructions[i];
      if (inst.name.empty()) continue;
      side.lines.emplace(computation + "\n" + std::string(f.Text(inst.name)),
                         f.lines().LineOf(inst.span.begin) + 1);
    }
  }
  return side;
}

void AddErrors(const std::string& uri, const Side& side,
               std::vector<std::string>* out) {
  for (const hlo::Diagnostic& d : side.parsed->diagnostics) {
    if (d.severity != hlo::Severity::kError) continue;
    hlo::LineColumn at = side.parsed->lines().ToLineColumn(d.span.begin);
    out->push_back(uri + ":" + std::to_string(at.line + 1) + ":" +
                   std::to_string(at.column + 1) + ": " + d.message);
    if (out->size() >= 10) return;
  }
}

DiffInstructionEntry Entry(const hlo::DiffInstruction& i) {
  return {i.computation, i.name, i.opcode, i.shape, i.line};
}

}  // namespace

Result<DiffReply> DiffFiles(const DiffArgs& args,
                            const std::atomic<bool>* cancelled) {
  Result<Side> a = Load(args.uri);
  if (auto* error = std::get_if<RpcError>(&a)) return *error;
  Result<Side> b = Load(args.other_uri);
  if (auto* error = std::get_if<RpcError>(&b)) return *error;
  if (cancelled != nullptr && *cancelled) return Cancelled();
  const Side& old_side = std::get<Side>(a);
  const Side& new_side = std::get<Side>(b);
  hlo::ModuleDiff diff = hlo::DiffModules(*old_side.parsed, *new_side.parsed);
  DiffReply reply;
  reply.a = args.uri;
  reply.b = args.other_uri;
  for (const auto& i : diff.added) reply.added.push_back(Entry(i));
  for (const auto& i : diff.removed) reply.removed.push_back(Entry(i));
  for (const hlo::DiffRename& r : diff.renamed) {
    reply.renamed.push_back({r.computation, r.from, r.to,
                             new_side.LineOf(r.computation, r.to),
                             old_side.LineOf(r.computation, r.from)});
  }
  // A changed instruction's name in A: its rename's `from`, else the same.
  absl::flat_hash_map<std::string, std::string> old_names;
  for (const hlo::DiffRename& r : diff.renamed) {
    old_names[r.computation + "\n" + r.to] = r.from;
  }
  for (const hlo::DiffChange& c : diff.changed) {
    auto renamed = old_names.find(c.computation + "\n" + c.name);
    const std::string& old_name =
        renamed == old_names.end() ? c.name : renamed->second;
    reply.changed.push_back({c.computation, c.name, c.field, c.old_value,
                             c.new_value,
                             new_side.LineOf(c.computation, c.name),
                             old_side.LineOf(c.computation, old_name)});
  }
  reply.computations_added = std::move(diff.computations_added);
  reply.computations_removed = std::move(diff.computations_removed);
  AddErrors(args.uri, old_side, &reply.errors);
  AddErrors(args.other_uri, new_side, &reply.errors);
  return reply;
}

}  // namespace hlo_lsp
