#include "server/cli/replay_flags.h"

#include <cmath>
#include <cstdlib>
#include <string_view>

#include "absl/status/status.h"

namespace hlo_lsp::cli {
namespace {

bool ParseNumber(const std::string& s, double* out) {
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end && *end == '\0' && end != s.c_str() && std::isfinite(*out) &&
         *out >= 0;
}

// run_hlo_module's platform names (and ours) to ours.
bool PlatformOf(std::string_view name, std::string* platform) {
  for (std::string_view cpu :
       {"cpu", "CPU", "Host", "host", "interpreter", "Interpreter"}) {
    if (name == cpu) {
      *platform = "cpu";
      return true;
    }
  }
  for (std::string_view gpu : {"gpu", "GPU", "CUDA", "cuda"}) {
    if (name == gpu) {
      *platform = "gpu";
      return true;
    }
  }
  return false;
}

// Why a flag of run_hlo_module has no meaning here; empty when it is not one.
std::string XlaOnlyReason(std::string_view name) {
  if (name.starts_with("xla_")) {
    return "XLA's compiler options do not apply: hlo-lsp evaluates the module "
           "as written, without XLA's passes";
  }
  if (name == "run_xla_backend_only" || name == "run_test_hlo_passes" ||
      name == "run_reference_hlo_passes" || name == "flatten_control_flow" ||
      name == "isolate_instructions") {
    return "hlo-lsp runs no HLO passes: the module runs as written";
  }
  if (name == "num_replicas" || name == "num_partitions") {
    return "the module's replica_count and num_partitions decide it";
  }
  if (name == "iterations" || name == "different_random_seeds" ||
      name == "output_literals_file" || name == "use_large_float_range" ||
      name == "treat_gte_as_data_formatting" || name == "abs_error_bound" ||
      name == "rel_error_bound") {
    return name == "abs_error_bound" || name == "rel_error_bound"
               ? "use --atol and --rtol"
               : "not supported by hlo-lsp replay";
  }
  return "";
}

}  // namespace

absl::StatusOr<ReplayFlags> ParseReplayFlags(int argc, char** argv) {
  ReplayFlags f;
  auto usage = [](const std::string& message) {
    return absl::InvalidArgumentError(message);
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-' || arg[1] != '-') {
      if (!arg.empty() && arg[0] == '-' && arg != "-") {
        return usage("unknown option " + arg);
      }
      if (!f.module_path.empty()) return usage("one MODULE only");
      f.module_path = arg;
      continue;
    }
    // --name=value or --name value; run_hlo_module's underscores read as
    // dashes where the flag is ours.
    std::string name = arg.substr(2);
    std::string inline_value;
    bool has_inline = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name.resize(eq);
      has_inline = true;
    }
    if (std::string why = XlaOnlyReason(name); !why.empty()) {
      return usage("--" + name + " is a flag of XLA's run_hlo_module: " + why);
    }
    std::string value;
    auto take = [&]() {
      if (has_inline) {
        value = inline_value;
        return true;
      }
      if (i + 1 >= argc) return false;
      value = argv[++i];
      return true;
    };
    auto no_value = [&]() { return !has_inline; };
    double d = 0;
    if (name == "platform") {
      if (!take() || !PlatformOf(value, &f.platform)) {
        return usage(
            "--platform takes cpu (also Host, interpreter) or gpu (also "
            "CUDA)");
      }
    } else if (name == "reference_platform") {
      // run_hlo_module compares the test platform with this one: here the
      // reference is the CPU evaluator, compared with a GPU run.
      std::string reference;
      if (!take() || !PlatformOf(value, &reference) || reference != "cpu") {
        return usage(
            "--reference_platform takes the CPU (cpu, Host, interpreter): "
            "the GPU run is compared with it");
      }
      f.compare = "cpu";
    } else if (name == "snapshot") {
      if (!take()) return usage("--snapshot needs a file");
      f.snapshot = value;
    } else if (name == "force-fake-data" || name == "force_fake_data" ||
               name == "use_fake_data") {
      if (!no_value()) return usage("--" + name + " takes no value");
      f.force_fake = true;
    } else if (name == "seed") {
      if (!take() || !ParseNumber(value, &d) || d > 4294967295.0 ||
          d != std::floor(d)) {
        return usage("--seed takes an integer in [0, 2^32)");
      }
      f.seed = static_cast<uint32_t>(d);
    } else if (name == "args") {
      if (!take()) return usage("--args needs an .npz file");
      f.args = value;
    } else if (name == "out") {
      if (!take()) return usage("--out needs an .npz file");
      f.out = value;
    } else if (name == "stats" || name == "json" || name == "print_literals" ||
               name == "print-literals") {
      if (!no_value()) return usage("--" + name + " takes no value");
      bool& flag = name == "stats"  ? f.stats
                   : name == "json" ? f.json
                                    : f.print_literals;
      flag = true;
    } else if (name == "input_format" || name == "input-format") {
      if (!take() || (value != "hlo" && value != "pb" && value != "pbtxt" &&
                      value != "snapshot" && value != "unoptimized_snapshot")) {
        return usage(
            "--input_format takes hlo, pb, pbtxt, snapshot or "
            "unoptimized_snapshot");
      }
      f.input_format = value;
    } else if (name == "input_literals_file") {
      return usage(
          "--input_literals_file (a RunHloModuleLiterals proto) is not "
          "supported yet: convert the literals to an .npz for --args");
    } else if (name == "bisect") {
      if (!take() || value.empty())
        return usage("--bisect needs a FILE or DIR");
      f.bisect = value;
    } else if (name == "compare") {
      if (!take() || value.empty()) {
        return usage("--compare takes cpu, snapshot or a second MODULE");
      }
      f.compare = value == "cpu" || value == "snapshot" ? value : "module";
      if (f.compare == "module") f.compare_module = value;
    } else if (name == "timeout") {
      // No "0 means none": a limit is always set, and 0 is refused rather
      // than read as no limit. 1e9 keeps the child's CPU rlimit in range.
      if (!take() || !ParseNumber(value, &f.timeout) || f.timeout <= 0 ||
          f.timeout > 1e9) {
        return usage("--timeout takes seconds, over 0 and at most 1e9");
      }
    } else if (name == "memory-limit" || name == "memory_limit") {
      if (!take() || !ParseNumber(value, &d) || d < 1 || d > 9.2e18 ||
          d != std::floor(d)) {
        return usage("--memory-limit takes a byte count from 1 to 9.2e18");
      }
      f.memory_limit = static_cast<int64_t>(d);
    } else if (name == "atol" || name == "rtol") {
      if (!take() || !ParseNumber(value, name == "atol" ? &f.atol : &f.rtol)) {
        return usage("--" + name + " takes a non-negative number");
      }
    } else {
      return usage("unknown option " + arg);
    }
  }
  if (!f.bisect.empty()) {
    if (!f.module_path.empty()) {
      return usage("--bisect takes its FILE_OR_DIR in place of MODULE");
    }
    if (!f.args.empty() || !f.snapshot.empty() || !f.compare.empty() ||
        f.platform != "cpu") {
      return usage(
          "--bisect runs on the CPU with fake data (--seed); --args, "
          "--snapshot, --compare and --platform gpu are not supported with "
          "it yet");
    }
    return f;
  }
  if (f.module_path.empty()) return usage("missing MODULE");
  if (!f.args.empty() && !f.snapshot.empty()) {
    return usage("--args and --snapshot both give arguments; choose one");
  }
  if (f.force_fake && f.compare == "snapshot") {
    return usage(
        "--compare snapshot with fake data would compare fake outputs with "
        "the recorded ones: drop --force-fake-data");
  }
  return f;
}

}  // namespace hlo_lsp::cli
