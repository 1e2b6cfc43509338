// hlo.bisect {uri, snapshot?, fakeData?, timeout?}: "find the pass that
// changed the result". The same walk as `hlo-lsp replay --bisect`
// (server/common/bisect.h), each dump in the replay child with its limits;
// cancelling the request kills the running child. The answer links the two
// dumps either side of the pass and the hlo.diff between them.
#include "server/common/bisect.h"

#include <atomic>
#include <optional>
#include <string>

#include "exec/strings.h"
#include "server/common/file_reader.h"
#include "server/common/proto_files.h"
#include "server/common/snapshot.h"
#include "server/documents.h"
#include "server/features/workspace_features.h"

namespace hlo_lsp {
namespace {

using hlo::exec::Cat;

absl::StatusOr<SnapshotContents> ReadSnapshot(const std::string& path) {
  auto bytes = FileContents::Read(path);
  if (!bytes.ok()) return bytes.status();
  auto s = LoadSnapshot(bytes->text());
  if (!s.ok())
    return absl::Status(s.status().code(),
                        path + ": " + std::string(s.status().message()));
  return s;
}

const char* StepResult(BisectStep::Kind kind) {
  switch (kind) {
    case BisectStep::kReference:
      return "reference";
    case BisectStep::kSame:
      return "same";
    case BisectStep::kDiffers:
      return "differs";
  }
  return "";
}

// Fills what the verdict names: the pass, both dumps, the diff, the summary.
void Describe(const BisectDumps& module, const BisectResult& r,
              const BisectOptions& options, BisectReply* out) {
  const auto& dumps = module.dumps;
  const std::string of = " of module " + module.module_name;
  if (r.changed) {
    const hlo::index::DumpFile& after = dumps[*r.changed];
    out->label = BisectLabel(after);
    out->pass = after.dump.after_pass;
    if (after.dump.step >= 0) out->step = after.dump.step;
    out->before_uri = PathToUri(dumps[*r.before].path);
    out->after_uri = PathToUri(after.path);
    out->diff =
        Command{"Diff the dumps before and after " + out->label, "hlo.diff",
                CommandArgs{out->before_uri, std::nullopt, {}, out->after_uri}};
  }
  switch (r.verdict) {
    case BisectVerdict::kUnchanged:
      out->outcome = "unchanged";
      out->summary =
          Cat("no pass changed the result", of, " (", dumps.size(),
              " dumps, atol ", options.atol, ", rtol ", options.rtol, ")");
      return;
    case BisectVerdict::kSignature:
      out->outcome = "signature";
      out->summary = Cat("stopped at ", out->label, of,
                         ": it changes the entry signature, so the dumps "
                         "after it take other arguments; no output differed "
                         "before it");
      return;
    case BisectVerdict::kChanged: {
      out->outcome = "changed";
      const std::string& first = r.mismatches.front();
      out->first_output = first.substr(0, first.find(':'));
      out->summary = Cat(out->label, " changed the result", of, ": ", first);
      if (r.instruction) {
        out->instruction =
            BisectInstructionEntry{r.instruction->name, r.instruction->opcode,
                                   r.instruction->detail, r.instruction->line};
        out->summary += Cat(
            "; first differing instruction: %", r.instruction->name,
            " at line ", r.instruction->line, " (", r.instruction->detail, ")");
      }
      return;
    }
    case BisectVerdict::kRefused:
    case BisectVerdict::kFailed:
      out->outcome = r.verdict == BisectVerdict::kFailed ? "failed" : "refused";
      out->error = r.error;
      out->after_uri = PathToUri(dumps[r.failed].path);
      out->summary = Cat("bisection", of, " stopped at ",
                         BisectLabel(dumps[r.failed]), ": ", r.error);
      return;
  }
}

}  // namespace

Result<BisectReply> BisectPasses(const ReplayArgs& args,
                                 const std::atomic<bool>* cancelled) {
  const std::string path = UriToPath(ProtoViewSource(args.uri));
  if (path.empty()) return InvalidParams("expected {uri} with a file URI");
  if (!args.platform.empty() && args.platform != "cpu") {
    return InvalidParams("hlo.bisect runs on the CPU only");
  }
  absl::StatusOr<BisectDumps> module = BisectDumpsOf(path);
  if (!module.ok())
    return RequestFailed(std::string(module.status().message()));
  BisectReply reply;
  reply.module = module->module_name;
  reply.dumps = static_cast<int64_t>(module->dumps.size());
  reply.reference_uri = PathToUri(module->dumps.front().path);
  if (module->dumps.size() < 2) {
    reply.outcome = "refused";
    reply.summary =
        "only one dump of module " + reply.module + ", nothing to bisect";
    return reply;
  }
  std::optional<SnapshotContents> snapshot;
  if (!args.snapshot.empty() && !args.fake_data) {
    std::string snapshot_path = UriToPath(args.snapshot);
    if (snapshot_path.empty()) snapshot_path = args.snapshot;
    auto s = ReadSnapshot(snapshot_path);
    if (!s.ok()) return RequestFailed(std::string(s.status().message()));
    snapshot = *std::move(s);
  }
  BisectOptions options;
  options.replay.timeout_seconds = args.timeout;
  options.replay.cancel = cancelled;
  options.snapshot = snapshot ? &*snapshot : nullptr;
  options.stats = true;
  BisectResult r = RunBisect(*module, options, nullptr);
  if (cancelled && cancelled->load()) return Cancelled();
  reply.arguments = r.from_snapshot ? "snapshot" : "fake data";
  for (const BisectStep& s : r.steps) {
    const hlo::index::DumpFile& dump = module->dumps[s.index];
    reply.steps.push_back(
        {PathToUri(dump.path), BisectLabel(dump), StepResult(s.kind)});
  }
  reply.mismatches = r.mismatches;
  Describe(*module, r, options, &reply);
  return reply;
}

}  // namespace hlo_lsp
