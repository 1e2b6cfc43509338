// `hlo-lsp replay MODULE [options]`: replays a module with our own CPU
// evaluator or the CUDA backend (exec/), with fake data, .npz arguments or a
// snapshot's arguments, and prints a short summary (time, shapes, NaN origin).
#include "exec/replay.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "exec/sharded_args.h"
#include "exec/strings.h"
#include "hlo/literal_text.h"
#include "hlo/parser.h"
#include "hlo/proto/literal_print.h"
#include "hlo/proto/print.h"
#include "nlohmann/json.hpp"
#include "server/cli/commands.h"
#include "server/cli/replay_bisect.h"
#include "server/cli/replay_compare.h"
#include "server/cli/replay_flags.h"
#include "server/common/file_reader.h"
#include "server/common/proto_files.h"
#include "server/common/replay_module.h"
#include "server/common/snapshot.h"

namespace hlo_lsp::cli {

using hlo::exec::Cat;
using hlo::exec::Literal;
using hlo::exec::NamedArrays;
using hlo::exec::Value;

namespace {

constexpr char kReplayUsage[] =
    "usage: hlo-lsp replay MODULE [options]\n\n"
    "Replays an HLO module (text, or a proto such as an HloSnapshot) on CPU\n"
    "with hlo-lsp's own evaluator, or on an NVIDIA GPU (CUDA builds).\n\n"
    "  --platform cpu|gpu     where to run (default cpu)\n"
    "  --snapshot S.pb        take the arguments (and recorded result) from S\n"
    "  --force-fake-data      fake arguments even when a snapshot has some\n"
    "  --seed N               fake-data seed (default 0)\n"
    "  --args IN.npz          arguments arg0, arg1, ... from an .npz\n"
    "  --out OUT.npz          write the results out0, out1, ... to an .npz\n"
    "  --stats                per-instruction min/max/mean and NaN/Inf counts\n"
    "  --json                 print the report as JSON\n"
    "  --bisect FILE_OR_DIR   run a module's stages and pass dumps (those\n"
    "                         beside FILE, or the one module of DIR) in step\n"
    "                         order on the same fake arguments; name the\n"
    "                         first pass after which an output differs\n"
    "                         (no MODULE then)\n"
    "  --compare MODULE2      run MODULE2 on the same arguments and report\n"
    "                         the outputs that differ; with --stats also\n"
    "                         MODULE2's first instruction whose values differ\n"
    "                         from the one of its name in MODULE\n"
    "  --compare cpu|snapshot snapshot: compare with the snapshot's recorded\n"
    "                         result; cpu (with --platform gpu): run on CPU "
    "too\n"
    "                         and report the first instruction that differs\n"
    "  --atol X, --rtol X     comparison tolerance (default 1e-3 each)\n"
    "  --timeout SECONDS      wall-clock limit, over 0 and at most 1e9\n"
    "                         (default 600)\n"
    "  --memory-limit BYTES   evaluator memory limit, an integer from 1 to\n"
    "                         9.2e18 (default 80% of RAM)\n"
    "  --print_literals       print every element of the arguments and "
    "outputs\n"
    "run_hlo_module's spellings work too: every flag as --flag=VALUE;\n"
    "  --platform=Host|interpreter|CUDA, --force_fake_data, --use_fake_data,\n"
    "  --reference_platform=Host (= --compare cpu), --input_format=hlo|pb|\n"
    "  pbtxt|snapshot|unoptimized_snapshot. Its --xla_* and pass flags are\n"
    "  refused: the module runs as written, without XLA's passes.\n"
    "exit: 0 replayed (and matched), 1 bad input, refused up front or\n"
    "results differ, 2 usage or I/O error, 3 failed while running\n";

int Usage(const std::string& message) {
  std::fprintf(stderr, "hlo-lsp replay: %s\n\n%s", message.c_str(),
               kReplayUsage);
  return kExitUsage;
}

// Elements a preview shows: 8, or every one (--print_literals).
constexpr int64_t kAll = std::numeric_limits<int64_t>::max();

std::string Preview(const Literal& lit, int64_t n = 8) {
  std::string s = lit.ToString(n);
  size_t brace = s.find(" {");
  return brace == std::string::npos ? "" : s.substr(brace + 1);
}

std::string ShapeOf(const Value& v) {
  return hlo::exec::ShapeString(v->shape());
}

nlohmann::json StatsJson(const hlo::exec::NamedStats& s) {
  nlohmann::json j;
  j["name"] = s.name;
  j["opcode"] = s.opcode;
  j["line"] = s.line;
  j["elements"] = s.stats.elements;
  j["runs"] = s.stats.runs;
  j["nan"] = s.stats.nan_count;
  j["inf"] = s.stats.inf_count;
  const bool any = s.stats.elements > s.stats.nan_count + s.stats.inf_count;
  j["min"] = any ? nlohmann::json(s.stats.min) : nlohmann::json();
  j["max"] = any ? nlohmann::json(s.stats.max) : nlohmann::json();
  j["mean"] = any ? nlohmann::json(s.stats.mean()) : nlohmann::json();
  return j;
}

std::string StatsLine(const hlo::exec::NamedStats& s) {
  const bool any = s.stats.elements > s.stats.nan_count + s.stats.inf_count;
  std::string line = Cat("  ", s.line, ": %", s.name, " ", s.opcode, ":");
  if (any) {
    char buf[160];
    std::snprintf(buf, sizeof buf, " min %g max %g mean %g", s.stats.min,
                  s.stats.max, s.stats.mean());
    line += buf;
  }
  if (s.stats.nan_count) line += Cat(" NaN ", s.stats.nan_count);
  if (s.stats.inf_count) line += Cat(" Inf ", s.stats.inf_count);
  return line;
}

// The run's options from the flags (and the evaluator's memory limit).
hlo::exec::ReplayOptions OptionsFor(const ReplayFlags& f) {
  hlo::exec::ReplayOptions options;
  options.platform = f.platform == "gpu" ? hlo::exec::Platform::kGpu
                                         : hlo::exec::Platform::kCpu;
  options.seed = f.seed;
  options.collect_stats = true;  // the NaN origin is always reported
  // Every instruction's statistics only for --stats and for --compare cpu
  // (which names the first differing instruction); else fusions may run
  // fused while the origin is still found (EvalOptions::origin_only).
  options.origin_only = !f.stats && f.compare != "cpu";
  options.memory_limit = f.memory_limit;
  options.timeout_seconds = f.timeout;
  options.compare_with_cpu = f.platform == "gpu" && f.compare == "cpu";
  options.atol = f.atol;
  options.rtol = f.rtol;
  hlo::exec::SetMemoryLimit(
      f.memory_limit > 0 ? f.memory_limit : hlo::exec::DefaultMemoryLimit());
  return options;
}

}  // namespace

int RunReplay(int argc, char** argv) {
  if (WantsHelp(argc, argv)) {
    std::fputs(kReplayUsage, stdout);
    return kExitOk;
  }
  absl::StatusOr<ReplayFlags> parsed = ParseReplayFlags(argc, argv);
  if (!parsed.ok()) return Usage(std::string(parsed.status().message()));
  const ReplayFlags& f = *parsed;
  if (!f.bisect.empty()) return RunBisect(f, OptionsFor(f));
  const int64_t preview_elements = f.print_literals ? kAll : 8;

  auto contents = FileContents::Read(f.module_path);
  if (!contents.ok()) {
    PrintError(contents.status());
    return kExitUsage;
  }
  std::string module_text(contents->text());
  std::optional<SnapshotContents> snapshot;
  auto load_snapshot = [&](std::string_view bytes,
                           const std::string& path) -> int {
    auto s = LoadSnapshot(bytes);
    if (!s.ok()) {
      std::fprintf(stderr, "hlo-lsp replay: %s: %s\n", path.c_str(),
                   std::string(s.status().message()).c_str());
      return kExitNo;
    }
    snapshot = *std::move(s);
    return kExitOk;
  };
  // --input_format decides; without it, the name and the content do.
  const bool as_proto = f.input_format.empty()
                            ? HoldsProto(f.module_path, module_text)
                            : f.input_format != "hlo";
  if (as_proto) {
    if (int rc = load_snapshot(module_text, f.module_path); rc) return rc;
    if (snapshot->module_text.empty()) {
      std::fprintf(stderr, "hlo-lsp replay: %s holds no module\n",
                   f.module_path.c_str());
      return kExitNo;
    }
    module_text = snapshot->module_text;
  }
  if (!f.snapshot.empty()) {
    auto bytes = FileContents::Read(f.snapshot);
    if (!bytes.ok()) {
      PrintError(bytes.status());
      return kExitUsage;
    }
    if (int rc = load_snapshot(bytes->text(), f.snapshot); rc) return rc;
  }
  if (f.compare == "snapshot" && (!snapshot || snapshot->results.empty())) {
    std::fprintf(stderr,
                 "hlo-lsp replay: --compare snapshot needs a snapshot "
                 "with a recorded result\n");
    return kExitNo;
  }

  auto file = hlo::Parse(module_text);
  if (file->HasErrors() || file->modules.empty()) {
    for (const auto& d : file->diagnostics) {
      if (d.severity != hlo::Severity::kError) continue;
      std::fprintf(stderr, "%s:%u: error: %s\n", f.module_path.c_str(),
                   file->lines().LineOf(d.span.begin) + 1, d.message.c_str());
      break;
    }
    if (file->modules.empty())
      std::fprintf(stderr, "hlo-lsp replay: %s: no HLO module\n",
                   f.module_path.c_str());
    return kExitNo;
  }

  hlo::exec::ReplayOptions options = OptionsFor(f);
  std::string arg_source = Cat("fake data, seed ", f.seed);
  if (!f.args.empty()) {
    auto arrays = hlo::exec::ReadNpzFile(f.args);
    if (!arrays.ok()) {
      std::fprintf(stderr, "hlo-lsp replay: %s: %s\n", f.args.c_str(),
                   std::string(arrays.status().message()).c_str());
      return arrays.status().code() == absl::StatusCode::kNotFound ? kExitUsage
                                                                   : kExitNo;
    }
    for (size_t k = 0;; ++k) {
      auto it =
          std::find_if(arrays->begin(), arrays->end(),
                       [&](const auto& p) { return p.first == Cat("arg", k); });
      if (it == arrays->end()) break;
      options.arguments.push_back(it->second);
    }
    options.arguments_given = true;
    arg_source = f.args;
  } else if (snapshot && snapshot->has_arguments && !f.force_fake) {
    auto arguments = SnapshotArguments(*snapshot, *file, 0);
    if (!arguments.ok()) {
      std::fprintf(stderr, "hlo-lsp replay: %s: %s\n",
                   (f.snapshot.empty() ? f.module_path : f.snapshot).c_str(),
                   std::string(arguments.status().message()).c_str());
      return kExitNo;
    }
    options.arguments = *std::move(arguments);
    options.arguments_given = true;
    arg_source =
        Cat("snapshot ", f.snapshot.empty() ? f.module_path : f.snapshot);
    if (snapshot->partition_arguments.size() > 1)
      arg_source += Cat(", assembled from ",
                        snapshot->partition_arguments.size(), " partitions");
  }
  const hlo::Id module = 0;
  hlo::exec::ReplayResult r = hlo::exec::Replay(*file, module, options);

  std::vector<std::string> mismatches;
  if (r.outcome == hlo::exec::ReplayOutcome::kOk && f.compare == "snapshot")
    mismatches =
        hlo::exec::CompareOutputs(snapshot->results, r.outputs, f.atol, f.rtol);
  if (r.outcome == hlo::exec::ReplayOutcome::kOk && options.compare_with_cpu)
    mismatches = hlo::exec::CompareOutputs(r.reference_outputs, r.outputs,
                                           f.atol, f.rtol);
  std::optional<SecondModuleRun> second;
  if (r.outcome == hlo::exec::ReplayOutcome::kOk && f.compare == "module") {
    second = RunSecondModule(f.compare_module, options, r, f.atol, f.rtol);
    mismatches = second->mismatches;
  }
  int rc = kExitOk;
  if (r.outcome == hlo::exec::ReplayOutcome::kRefused) rc = kExitNo;
  if (r.outcome == hlo::exec::ReplayOutcome::kFailed) rc = kExitFailed;
  if (!mismatches.empty()) rc = kExitNo;
  if (second && second->exit_code != kExitOk) {
    std::fprintf(stderr, "hlo-lsp replay: --compare %s\n",
                 second->error.c_str());
    rc = second->exit_code;
  }
  if (rc == kExitOk && !f.out.empty()) {
    absl::Status st = hlo::exec::WriteNpzFile(f.out, r.outputs);
    if (!st.ok()) {
      std::fprintf(stderr, "hlo-lsp replay: %s\n",
                   std::string(st.message()).c_str());
      return kExitUsage;
    }
  }
  const std::string module_name =
      file->modules[module].name.empty()
          ? "module"
          : std::string(file->Text(file->modules[module].name));
  if (f.json) {
    nlohmann::json j;
    j["module"] = module_name;
    j["platform"] = f.platform;
    j["outcome"] = r.outcome == hlo::exec::ReplayOutcome::kOk        ? "ok"
                   : r.outcome == hlo::exec::ReplayOutcome::kRefused ? "refused"
                                                                     : "failed";
    if (!r.error.empty()) j["error"] = r.error;
    j["seconds"] = r.seconds;
    j["participants"] = r.participants;
    j["estimated_bytes"] = r.estimated_bytes;
    j["memory_limit"] = r.memory_limit;
    j["arguments_from"] = arg_source;
    j["notes"] = r.notes;
    nlohmann::json args = nlohmann::json::array(),
                   outs = nlohmann::json::array();
    for (const auto& [name, v] : r.arguments) {
      args.push_back({{"name", name}, {"shape", ShapeOf(v)}});
      if (f.print_literals) args.back()["preview"] = Preview(*v, kAll);
    }
    for (const auto& [name, v] : r.outputs)
      outs.push_back({{"name", name},
                      {"shape", ShapeOf(v)},
                      {"preview", Preview(*v, preview_elements)}});
    j["arguments"] = args;
    j["outputs"] = outs;
    j["first_nonfinite"] =
        r.first_nonfinite ? StatsJson(*r.first_nonfinite) : nlohmann::json();
    if (f.stats) {
      nlohmann::json s = nlohmann::json::array();
      for (const auto& x : r.stats) s.push_back(StatsJson(x));
      j["stats"] = s;
    }
    if (!f.compare.empty()) {
      j["compare"] = f.compare == "module" ? f.compare_module : f.compare;
      j["mismatches"] = mismatches;
      if (f.stats && second && second->first_differing) {
        const BisectInstruction& d = *second->first_differing;
        j["first_differing"] = {{"name", d.name},
                                {"opcode", d.opcode},
                                {"line", d.line},
                                {"detail", d.detail}};
      }
    }
    if (options.compare_with_cpu) {
      nlohmann::json d;
      if (r.divergence) {
        d = {{"name", r.divergence->gpu.name},
             {"opcode", r.divergence->gpu.opcode},
             {"line", r.divergence->gpu.line},
             {"run", r.divergence->run},
             {"detail", r.divergence->detail},
             {"cpu", StatsJson(r.divergence->cpu)},
             {"gpu", StatsJson(r.divergence->gpu)}};
      }
      j["divergence"] = d;
    }
    std::printf("%s\n",
                j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                    .c_str());
    return rc;
  }
  if (r.outcome != hlo::exec::ReplayOutcome::kOk) {
    std::fprintf(stderr, "hlo-lsp replay: %s: %s\n", f.module_path.c_str(),
                 r.error.c_str());
    return rc;
  }
  std::printf("replayed %s on %s in %.3f s (%lld participant%s)\n",
              module_name.c_str(), f.platform.c_str(), r.seconds,
              static_cast<long long>(r.participants),
              r.participants == 1 ? "" : "s, outputs of participant 0");
  std::printf("arguments (%s):", arg_source.c_str());
  if (r.arguments.empty()) std::printf(" none");
  for (size_t k = 0; k < r.arguments.size() && k < 8; ++k)
    std::printf(" %s %s", r.arguments[k].first.c_str(),
                ShapeOf(r.arguments[k].second).c_str());
  if (r.arguments.size() > 8)
    std::printf(" ... (%zu more)", r.arguments.size() - 8);
  std::printf("\n");
  if (f.print_literals) {
    for (const auto& [name, v] : r.arguments)
      std::printf("%s %s %s\n", name.c_str(), ShapeOf(v).c_str(),
                  Preview(*v, kAll).c_str());
  }
  for (const std::string& note : r.notes)
    std::printf("note: %s\n", note.c_str());
  for (const auto& [name, v] : r.outputs)
    std::printf("%s %s %s\n", name.c_str(), ShapeOf(v).c_str(),
                Preview(*v, preview_elements).c_str());
  if (r.first_nonfinite) {
    const auto& s = *r.first_nonfinite;
    std::printf("first NaN/Inf: %s:%lld: %%%s %s (%lld NaN, %lld Inf)\n",
                f.module_path.c_str(), static_cast<long long>(s.line),
                s.name.c_str(), s.opcode.c_str(),
                static_cast<long long>(s.stats.nan_count),
                static_cast<long long>(s.stats.inf_count));
  } else {
    std::printf("no NaN or Inf produced\n");
  }
  if (f.stats) {
    std::printf("statistics (execution order):\n");
    for (const auto& s : r.stats) std::printf("%s\n", StatsLine(s).c_str());
  }
  if (!f.compare.empty()) {
    if (f.compare == "cpu" && options.compare_with_cpu) {
      if (mismatches.empty())
        std::printf(
            "compare: the outputs match the CPU run (atol %g, rtol %g)\n",
            f.atol, f.rtol);
      for (const std::string& m : mismatches)
        std::printf("mismatch: %s\n", m.c_str());
      if (r.divergence) {
        const auto& d = *r.divergence;
        std::printf("first divergence: %s:%lld: %%%s %s (run %lld): %s\n",
                    f.module_path.c_str(), static_cast<long long>(d.gpu.line),
                    d.gpu.name.c_str(), d.gpu.opcode.c_str(),
                    static_cast<long long>(d.run), d.detail.c_str());
        std::printf("%s\n", StatsLine(d.cpu).replace(0, 2, "  cpu ").c_str());
        std::printf("%s\n", StatsLine(d.gpu).replace(0, 2, "  gpu ").c_str());
      } else {
        std::printf("compare: no instruction differs beyond the tolerance\n");
      }
    } else if (f.compare == "cpu") {
      std::printf("compare: the reference platform is cpu, the platform run\n");
    } else if (f.compare == "module") {
      // (When MODULE2 did not run, stderr said why.)
      if (second && second->exit_code == 0 && mismatches.empty())
        std::printf(
            "compare: %s gives the same outputs on the same arguments "
            "(atol %g, rtol %g)\n",
            f.compare_module.c_str(), f.atol, f.rtol);
      for (const std::string& m : mismatches)
        std::printf("mismatch: %s: %s\n", f.compare_module.c_str(), m.c_str());
      if (f.stats && second && second->first_differing) {
        const BisectInstruction& d = *second->first_differing;
        std::printf(
            "compare: first differing instruction: %s:%lld: %s (%s): %s\n",
            f.compare_module.c_str(), static_cast<long long>(d.line),
            d.name.c_str(), d.opcode.c_str(), d.detail.c_str());
      }
    } else if (mismatches.empty()) {
      std::printf("compare: matches the snapshot's result (atol %g, rtol %g)\n",
                  f.atol, f.rtol);
    } else {
      for (const std::string& m : mismatches)
        std::printf("mismatch: %s\n", m.c_str());
    }
  }
  return rc;
}

}  // namespace hlo_lsp::cli
