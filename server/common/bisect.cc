#include "server/common/bisect.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <utility>

#include "exec/evaluator.h"
#include "exec/literal.h"
#include "exec/strings.h"
#include "server/common/replay_module.h"

namespace hlo_lsp {

using hlo::exec::Cat;
using hlo::index::DumpFile;

std::string BisectLabel(const DumpFile& f) {
  const hlo::index::DumpFileName& d = f.dump;
  if (!d.after_pass.empty()) {
    return Cat(d.step >= 0 ? Cat("step ", d.step, " ") : "", "after ",
               d.after_pass,
               d.pipeline.empty() ? "" : Cat(" (", d.pipeline, ")"));
  }
  if (!d.stage.empty()) return d.stage;
  return std::filesystem::path(f.path).filename().string();
}

absl::StatusOr<BisectDumps> BisectDumpsOf(const std::string& target) {
  std::error_code ec;
  if (std::filesystem::is_directory(target, ec)) {
    std::vector<hlo::index::ModuleDumpFiles> modules =
        hlo::index::ModulesInFolder(target);
    if (modules.empty()) {
      return absl::InvalidArgumentError(target + ": no HLO dump of a module");
    }
    if (modules.size() > 1) {
      return absl::InvalidArgumentError(
          Cat(target,
              " holds the dumps of more than one module: give one of its "
              "files, e.g. ",
              hlo::index::HloTextHistory(modules[0]).front().path));
    }
    return BisectDumps{modules[0].module_name,
                       hlo::index::HloTextHistory(modules[0])};
  }
  hlo::index::ModuleDumpFiles module = hlo::index::ModuleFilesOfPath(target);
  BisectDumps out{module.module_name, hlo::index::HloTextHistory(module)};
  const std::string self = std::filesystem::path(target).filename().string();
  if (std::none_of(out.dumps.begin(), out.dumps.end(), [&](const DumpFile& f) {
        return std::filesystem::path(f.path).filename() == self;
      })) {
    return absl::InvalidArgumentError(target + ": not an HLO text dump");
  }
  return out;
}

namespace {

// Beyond the tolerance rule of the contracts (atol AND rtol).
bool Differ(double a, double b, double atol, double rtol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) != std::isnan(b);
  if (a == b) return false;  // also equal infinities
  const double d = std::fabs(a - b);
  return d > atol && d > rtol * std::fabs(a);  // a: the expected side
}

std::vector<std::string> SignatureOf(const hlo::ParsedFile& file) {
  std::vector<std::string> out;
  auto shapes = hlo::exec::EntryParameterShapes(file, 0);
  if (shapes.ok()) {
    for (const auto& s : *shapes) out.push_back(hlo::exec::ShapeString(s));
  }
  return out;
}

}  // namespace

std::optional<BisectInstruction> FirstDifferingInstruction(
    const std::vector<hlo::exec::NamedStats>& before,
    const std::vector<hlo::exec::NamedStats>& after, double atol, double rtol) {
  std::map<std::string, const hlo::exec::InstructionStats*> by_name;
  for (const auto& s : before) by_name.emplace(s.name, &s.stats);
  for (const auto& s : after) {
    auto it = by_name.find(s.name);
    if (it == by_name.end()) continue;
    const hlo::exec::InstructionStats& b = *it->second;
    const hlo::exec::InstructionStats& a = s.stats;
    std::string detail;
    auto field = [&](const char* what, double x, double y) {
      if (!Differ(x, y, atol, rtol)) return;
      char buf[128];
      std::snprintf(buf, sizeof buf, "%s%s %g -> %g",
                    detail.empty() ? "" : ", ", what, x, y);
      detail += buf;
    };
    field("elements", b.elements, a.elements);
    field("NaN", b.nan_count, a.nan_count);
    field("Inf", b.inf_count, a.inf_count);
    if (a.elements > a.nan_count + a.inf_count &&
        b.elements > b.nan_count + b.inf_count) {
      field("min", b.min, a.min);
      field("max", b.max, a.max);
      field("mean", b.mean(), a.mean());
    }
    if (!detail.empty()) {
      return BisectInstruction{s.name, s.opcode, s.line, std::move(detail)};
    }
  }
  return std::nullopt;
}

BisectResult RunBisect(const BisectDumps& module, const BisectOptions& given,
                       const std::function<void(const BisectStep&)>& on_step) {
  const std::vector<DumpFile>& dumps = module.dumps;
  BisectResult out;
  hlo::exec::ReplayOptions options = given.replay;
  options.collect_stats = options.collect_stats || given.stats;
  hlo::exec::ReplayResult reference, previous;
  std::vector<std::string> signature;
  auto fail = [&](size_t k, BisectVerdict verdict, std::string error) {
    out.verdict = verdict;
    out.failed = k;
    out.error = std::move(error);
    return out;
  };
  for (size_t k = 0; k < dumps.size(); ++k) {
    absl::StatusOr<ParsedModule> parsed = ReadModuleFile(dumps[k].path);
    if (!parsed.ok()) {
      out.read_error = true;
      return fail(k, BisectVerdict::kRefused,
                  std::string(parsed.status().message()));
    }
    std::vector<std::string> here = SignatureOf(*parsed->file);
    if (k > 0 && here != signature) {
      out.verdict = BisectVerdict::kSignature;
      out.changed = k;
      out.before = k - 1;
      return out;
    }
    if (k == 0 && given.snapshot && given.snapshot->has_arguments &&
        !options.arguments_given) {
      auto arguments = SnapshotArguments(*given.snapshot, *parsed->file, 0);
      if (!arguments.ok()) {
        return fail(k, BisectVerdict::kRefused,
                    Cat("snapshot arguments: ", arguments.status().message()));
      }
      options.arguments = *std::move(arguments);
      options.arguments_given = true;
      out.from_snapshot = true;
    }
    hlo::exec::ReplayResult r = hlo::exec::Replay(*parsed->file, 0, options);
    if (r.outcome != hlo::exec::ReplayOutcome::kOk) {
      return fail(k,
                  r.outcome == hlo::exec::ReplayOutcome::kFailed
                      ? BisectVerdict::kFailed
                      : BisectVerdict::kRefused,
                  r.error);
    }
    BisectStep step{k, BisectStep::kReference};
    if (k == 0) {
      // Every later dump runs on exactly these arguments.
      signature = here;
      options.arguments.clear();
      for (const auto& [name, value] : r.arguments) {
        options.arguments.push_back(value);
      }
      options.arguments_given = true;
      reference = std::move(r);
      if (on_step) on_step(step);
      out.steps.push_back(step);
      continue;
    }
    out.mismatches = hlo::exec::CompareOutputs(reference.outputs, r.outputs,
                                               given.atol, given.rtol);
    step.kind =
        out.mismatches.empty() ? BisectStep::kSame : BisectStep::kDiffers;
    if (on_step) on_step(step);
    out.steps.push_back(step);
    if (!out.mismatches.empty()) {
      out.verdict = BisectVerdict::kChanged;
      out.changed = k;
      out.before = k - 1;
      if (given.stats) {
        out.instruction =
            FirstDifferingInstruction(k == 1 ? reference.stats : previous.stats,
                                      r.stats, given.atol, given.rtol);
      }
      return out;
    }
    if (given.stats) previous = std::move(r);
  }
  return out;
}

}  // namespace hlo_lsp
