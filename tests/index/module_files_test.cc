#include "index/module_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "tests/index/test_dir.h"

namespace hlo::index {
namespace {

using index_test::TempDir;
using index_test::WriteFile;

std::string Hlo(const std::string& module) {
  return "HloModule " + module +
         "\n\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] constant(1)\n}\n";
}

// file name -> kind name, for the module of `file`.
std::map<std::string, std::string> KindsOf(const std::filesystem::path& file) {
  std::map<std::string, std::string> out;
  for (const DumpFile& f : ModuleFilesOfPath(file.string()).files) {
    out[std::filesystem::path(f.path).filename().string()] =
        std::string(DumpFileKindName(f.kind));
  }
  return out;
}

TEST(ModuleFilesTest, EveryKindXlaWritesIsListedWithItsKind) {
  TempDir dir;
  const std::string m = "module_0001.jit_f.";
  WriteFile(dir.path() / (m + "before_optimizations.txt"), Hlo("jit_f"));
  WriteFile(dir.path() / (m + "0001.opt.after_a.before_b.txt"), Hlo("jit_f"));
  WriteFile(dir.path() / (m + "sm_9.0_gpu_after_optimizations.txt"),
            Hlo("jit_f"));
  std::map<std::string, std::string> expected = {
      {m + "before_optimizations.txt", "stage"},
      {m + "0001.opt.after_a.before_b.txt", "pass"},
      {m + "sm_9.0_gpu_after_optimizations.txt", "stage"},
      {m + "sm_9.0_gpu_after_optimizations-buffer-assignment.txt",
       "buffer-assignment"},
      {m + "sm_9.0_gpu_after_optimizations-memory-usage-report.txt",
       "memory-report"},
      {m + "before_optimizations.hlo.pb", "proto"},
      {m + "after_optimizations.hlo.pb.gz", "proto"},
      {"1764000000000001.module_0001.jit_f.execution_0000.hlo_snapshot.pb",
       "snapshot"},
      {m + "execution_0000.hlo_unoptimized_snapshot.txt", "snapshot"},
      {"module_jit_f.execution_0001.hlo_snapshot.pb", "snapshot"},
      {m + "ir-no-opt.ll", "llvm-ir"},
      {m + "ir-with-opt.ll", "llvm-ir"},
      {m + "ptx", "other"},  // not ".ptx": no kind by a bare word
      {m + "sm_90.ptx", "ptx"},
      {m + "after_optimizations.dot", "graph"},
      {m + "after_optimizations.html", "graph"},
      {m + "after_optimizations.url", "graph"},
      {"fused.module_0001.jit_f._fusion.html", "graph"},
      {m + "debug_options", "other"},
      {m + "autotune_results.pbtxt", "other"},
      {m + "thunk-sequence.txt", "other"},
  };
  for (const auto& [name, kind] : expected) {
    if (!std::filesystem::exists(dir.path() / name)) {
      WriteFile(dir.path() / name, "x");
    }
  }
  // Another module, and a file that is no dump at all.
  WriteFile(dir.path() / "module_0002.jit_g.before_optimizations.txt",
            Hlo("jit_g"));
  WriteFile(dir.path() / "notes.txt", "hello");
  EXPECT_EQ(KindsOf(dir.path() / (m + "before_optimizations.txt")), expected);
  // From any of its files, the same module.
  EXPECT_EQ(KindsOf(dir.path() / (m + "ir-no-opt.ll")), expected);
}

TEST(ModuleFilesTest, HloTextComesFirstInHistoryOrderThenByKind) {
  TempDir dir;
  const std::string m = "module_0001.jit_f.";
  WriteFile(dir.path() / (m + "sm_9.0_gpu_after_optimizations.txt"),
            Hlo("jit_f"));
  WriteFile(dir.path() / (m + "0012.opt.after_c.before_d.txt"), Hlo("jit_f"));
  WriteFile(dir.path() / (m + "0002.opt.after_a.before_b.txt"), Hlo("jit_f"));
  WriteFile(dir.path() / (m + "before_optimizations.txt"), Hlo("jit_f"));
  WriteFile(dir.path() / (m + "ir-no-opt.ll"), "x");
  WriteFile(dir.path() / (m + "before_optimizations.hlo.pb"), "x");
  ModuleDumpFiles files =
      ModuleFilesOfPath((dir.path() / (m + "ir-no-opt.ll")).string());
  EXPECT_EQ(files.module_name, "jit_f");
  EXPECT_EQ(files.module_id, 1);
  std::vector<std::string> labels;
  for (const DumpFile& f : files.files) labels.push_back(f.label);
  EXPECT_EQ(labels, (std::vector<std::string>{
                        "before_optimizations",
                        "0002.opt.after_a.before_b",
                        "0012.opt.after_c.before_d",
                        "sm_9.0_gpu_after_optimizations",
                        "before_optimizations.hlo.pb",
                        "ir-no-opt.ll",
                    }));
  EXPECT_EQ(HloTextHistory(files).size(), 4u);
  EXPECT_EQ(files.files[2].dump.step, 12);
  EXPECT_EQ(files.files[2].dump.after_pass, "c");
}

TEST(ModuleFilesTest, NamesXlaDroppedOrSanitizedStillGroup) {
  TempDir dir;
  // Over 255 characters: XLA dropped the module name from every file.
  const std::string long_name(260, 'n');
  WriteFile(dir.path() / "module_0002.before_optimizations.txt",
            Hlo(long_name));
  WriteFile(dir.path() / "module_0002.0003.opt.after_a.before_b.txt",
            Hlo(long_name));
  WriteFile(dir.path() / "module_0002.before_optimizations.hlo.pb", "x");
  std::map<std::string, std::string> dropped =
      KindsOf(dir.path() / "module_0002.before_optimizations.txt");
  EXPECT_EQ(dropped, (std::map<std::string, std::string>{
                         {"module_0002.before_optimizations.txt", "stage"},
                         {"module_0002.0003.opt.after_a.before_b.txt", "pass"},
                         {"module_0002.before_optimizations.hlo.pb", "proto"},
                     }));
  // SanitizeFileName turned "[" and "]" into "_".
  WriteFile(dir.path() / "module_0003.jit_f_2_.before_optimizations.txt",
            Hlo("jit_f[2]"));
  WriteFile(dir.path() / "module_0003.jit_f_2_.after_optimizations.txt",
            Hlo("jit_f[2]"));
  WriteFile(dir.path() / "module_0003.jit_f_2_.ir-no-opt.ll", "x");
  ModuleDumpFiles sanitized = ModuleFilesOfPath(
      (dir.path() / "module_0003.jit_f_2_.ir-no-opt.ll").string());
  EXPECT_EQ(sanitized.module_name, "jit_f_2_");
  ASSERT_EQ(sanitized.files.size(), 3u);
  EXPECT_EQ(sanitized.files[1].label, "after_optimizations");
}

TEST(ModuleFilesTest, DottedNamesAndSameIdsOfOtherRunsStayApart) {
  TempDir dir;
  WriteFile(dir.path() / "module_0005.a.b.before_optimizations.txt",
            Hlo("a.b"));
  WriteFile(dir.path() / "module_0005.a.b.0001.opt.after_x.before_y.txt",
            Hlo("a.b"));
  WriteFile(dir.path() / "module_0005.a.b.ir-no-opt.ll", "x");
  // The same id from another process writing to the same folder.
  WriteFile(dir.path() / "module_0005.a.before_optimizations.txt", Hlo("a"));
  std::map<std::string, std::string> ab =
      KindsOf(dir.path() / "module_0005.a.b.ir-no-opt.ll");
  EXPECT_EQ(ab, (std::map<std::string, std::string>{
                    {"module_0005.a.b.before_optimizations.txt", "stage"},
                    {"module_0005.a.b.0001.opt.after_x.before_y.txt", "pass"},
                    {"module_0005.a.b.ir-no-opt.ll", "llvm-ir"},
                }));
  EXPECT_EQ(
      KindsOf(dir.path() / "module_0005.a.before_optimizations.txt").size(),
      1u);
  // Two timestamped runs of one module: two histories.
  WriteFile(dir.path() / "111.module_0006.f.before_optimizations.txt",
            Hlo("f"));
  WriteFile(dir.path() / "222.module_0006.f.before_optimizations.txt",
            Hlo("f"));
  EXPECT_EQ(
      KindsOf(dir.path() / "111.module_0006.f.before_optimizations.txt").size(),
      1u);
  size_t sixes = 0;
  for (const ModuleDumpFiles& m : ModulesInFolder(dir.path().string())) {
    if (m.module_id == 6) ++sixes;
  }
  EXPECT_EQ(sixes, 2u);
}

TEST(ModuleFilesTest, AFileThatIsNoDumpIsItsOwnModule) {
  TempDir dir;
  WriteFile(dir.path() / "model.hlo", Hlo("m"));
  WriteFile(dir.path() / "model2.hlo", Hlo("m"));
  ModuleDumpFiles files =
      ModuleFilesOfPath((dir.path() / "model.hlo").string());
  ASSERT_EQ(files.files.size(), 1u);
  EXPECT_EQ(files.files[0].kind, DumpFileKind::kStage);
  EXPECT_EQ(files.module_name, "m");
  // A missing file is listed as itself, never an error or a crash.
  EXPECT_EQ(ModuleFilesOfPath((dir.path() / "module_0001.x.txt").string())
                .files.size(),
            1u);
}

TEST(ModuleFilesTest, TheListingIsFlatAndBounded) {
  TempDir dir;
  const std::filesystem::path& d = dir.path();
  WriteFile(d / "module_0001.foo.before_optimizations.txt", Hlo("foo"));
  WriteFile(d / "module_0001.foo.after_optimizations.txt", Hlo("foo"));
  WriteFile(d / "module_0002.bar.before_optimizations.txt", Hlo("bar"));
  WriteFile(d / "sub" / "module_0001.foo.0001.p.after_a.before_b.txt",
            Hlo("foo"));
  const std::filesystem::path self =
      d / "module_0001.foo.after_optimizations.txt";
  std::vector<DumpFile> history = HloTextHistory(ModuleFilesOfPath(self));
  ASSERT_EQ(history.size(), 2u);  // not the other module, not sub/
  EXPECT_EQ(history[0].path, (d / "module_0001.foo.before_optimizations.txt"));
  EXPECT_EQ(history[1].path, self);
  // A folder with more entries than allowed (/tmp, a home folder): the
  // listing stops; the file still lists itself.
  ModuleDumpFiles bounded = ModuleFilesOfPath(self.string(), 1);
  EXPECT_GE(bounded.files.size(), 1u);
  EXPECT_LE(bounded.files.size(), 1u);
}

}  // namespace
}  // namespace hlo::index
