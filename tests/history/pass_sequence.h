// A module's dumps with known edits between them, written into a folder:
// the pass timeline, blame, `passes` and the server's pass features are
// tested against what each step is known to have changed.
#ifndef HLO_LSP_TESTS_HISTORY_PASS_SEQUENCE_H_
#define HLO_LSP_TESTS_HISTORY_PASS_SEQUENCE_H_

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace hlo::history_test {

struct KnownStep {
  std::string file;  // name in the folder
  std::string pass;  // what `passes` calls it
  int added, removed, changed, renamed, computations_added;
};

inline std::string ReplaceAll(std::string s, const std::string& from,
                              const std::string& to) {
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos;
       pos += to.size()) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

inline const char kBaseModule[] =
    R"(HloModule jit_f, entry_computation_layout={(f32[4]{0}, f32[4]{0})->f32[4]{0}}

%add_comp (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(%a, %b)
}

ENTRY %main (x: f32[4], y: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %y = f32[4]{0} parameter(1)
  %mul.1 = f32[4]{0} multiply(%x, %y)
  %add.1 = f32[4]{0} add(%mul.1, %x)
  %unused.1 = f32[4]{0} negate(%y)
  ROOT %out = f32[4]{0} subtract(%add.1, %y)
}
)";

inline const char kFused[] = R"(%fused_negate (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %n = f32[4]{0} negate(%p)
}

)";

// Writes the sequence into `dir` (which exists) and returns each step in
// history order with what it changed against the one before.
inline std::vector<KnownStep> WritePassSequence(
    const std::filesystem::path& dir) {
  const std::string prefix = "module_0007.jit_f.";
  std::vector<std::pair<KnownStep, std::string>> steps;
  std::string text = kBaseModule;
  steps.push_back({{prefix + "before_optimizations.txt", "before_optimizations",
                    0, 0, 0, 0, 0},
                   text});
  steps.push_back({{prefix + "0000.opt.after_pipeline-start.before_rename.txt",
                    "pipeline-start", 0, 0, 0, 0, 0},
                   text});  // a pass that changed nothing
  text = ReplaceAll(text, "add.1", "add.7");
  steps.push_back({{prefix + "0001.opt.after_rename.before_algsimp.txt",
                    "rename", 0, 0, 0, 1, 0},
                   text});
  text = ReplaceAll(text, "f32[4]{0} multiply(", "f32[4]{0} divide(");
  steps.push_back({{prefix + "0002.opt.after_algsimp.before_dce.txt", "algsimp",
                    0, 0, 1, 0, 0},
                   text});
  text = ReplaceAll(text, "  %unused.1 = f32[4]{0} negate(%y)\n", "");
  steps.push_back(
      {{prefix + "0003.opt.after_dce.before_fusion.txt", "dce", 0, 1, 0, 0, 0},
       text});
  text = ReplaceAll(text, "ENTRY %main", std::string(kFused) + "ENTRY %main");
  text = ReplaceAll(text, "  ROOT %out",
                    "  %fusion.1 = f32[4]{0} fusion(%x), kind=kLoop, "
                    "calls=%fused_negate\n  ROOT %out");
  steps.push_back({{prefix + "0004.opt.after_fusion.before_layout.txt",
                    "fusion", 1, 0, 0, 0, 1},
                   text});
  text =
      ReplaceAll(text, "ROOT %out = f32[4]{0}", "ROOT %out = f32[4]{0:T(4)}");
  steps.push_back({{prefix + "0005.opt.after_layout.before_end.txt", "layout",
                    0, 0, 1, 0, 0},
                   text});
  steps.push_back({{prefix + "after_optimizations.txt", "after_optimizations",
                    0, 0, 0, 0, 0},
                   text});
  std::vector<KnownStep> out;
  for (auto& [step, body] : steps) {
    std::ofstream(dir / step.file, std::ios::binary) << body;
    out.push_back(step);
  }
  // Files of the module that are not HLO text, and a stranger.
  std::ofstream(dir / (prefix + "after_optimizations-buffer-assignment.txt"))
      << "BufferAssignment:\n";
  std::ofstream(dir / (prefix + "before_optimizations.hlo.pb")) << "\x0a\x00";
  std::ofstream(dir / "module_0008.other.before_optimizations.txt")
      << "HloModule other\n\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] "
         "constant(1)\n}\n";
  return out;
}

}  // namespace hlo::history_test

#endif  // HLO_LSP_TESTS_HISTORY_PASS_SEQUENCE_H_
