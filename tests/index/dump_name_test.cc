#include "index/dump_name.h"

#include "gtest/gtest.h"

namespace hlo::index {
namespace {

TEST(DumpNameTest, StageWithTimestamp) {
  DumpFileName d = ParseDumpFileName(
      "1700000000123456.module_0007.jit_f.before_optimizations.txt");
  EXPECT_EQ(d.kind, DumpKind::kStage);
  EXPECT_EQ(d.timestamp, "1700000000123456");
  EXPECT_EQ(d.module_id, 7);
  EXPECT_EQ(d.module_name, "jit_f");
  EXPECT_EQ(d.stage, "before_optimizations");
}

TEST(DumpNameTest, StageWithoutTimestamp) {
  DumpFileName d =
      ParseDumpFileName("module_0001.jit_f.after_optimizations.txt");
  EXPECT_EQ(d.kind, DumpKind::kStage);
  EXPECT_EQ(d.timestamp, "");
  EXPECT_EQ(d.module_id, 1);
  EXPECT_EQ(d.module_name, "jit_f");
  EXPECT_EQ(d.stage, "after_optimizations");
}

TEST(DumpNameTest, BackendStageWithDotInIt) {
  DumpFileName d = ParseDumpFileName(
      "1764000000007919.module_0001.jit_train_step_1."
      "sm_9.0_gpu_after_optimizations.txt");
  EXPECT_EQ(d.kind, DumpKind::kStage);
  EXPECT_EQ(d.module_name, "jit_train_step_1");
  EXPECT_EQ(d.stage, "sm_9.0_gpu_after_optimizations");
}

TEST(DumpNameTest, ModuleNameWithDots) {
  DumpFileName d = ParseDumpFileName(
      "module_0003.SyncTensorsGraph.6428_3.before_optimizations.txt");
  EXPECT_EQ(d.module_name, "SyncTensorsGraph.6428_3");
  EXPECT_EQ(d.stage, "before_optimizations");
  // The hint from the file's HloModule line settles it in any case.
  DumpFileName hinted = ParseDumpFileName(
      "module_0003.a.b.sm_9.0_gpu_after_optimizations.txt", "a.b");
  EXPECT_EQ(hinted.module_name, "a.b");
  EXPECT_EQ(hinted.stage, "sm_9.0_gpu_after_optimizations");
}

TEST(DumpNameTest, PassDump) {
  DumpFileName d = ParseDumpFileName(
      "module_0004.jit_f.0012.gpu-fusion.after_priority-fusion."
      "before_multi_output_fusion.txt");
  EXPECT_EQ(d.kind, DumpKind::kPassDump);
  EXPECT_EQ(d.module_id, 4);
  EXPECT_EQ(d.module_name, "jit_f");
  EXPECT_EQ(d.step, 12);
  EXPECT_EQ(d.pipeline, "gpu-fusion");
  EXPECT_EQ(d.after_pass, "priority-fusion");
  EXPECT_EQ(d.before_pass, "multi_output_fusion");
}

TEST(DumpNameTest, PassDumpPipelineStartAndDottedModule) {
  DumpFileName d = ParseDumpFileName(
      "1764000000047514.module_0006.SyncTensorsGraph.1470_6.0000.gpu-compiler."
      "after_pipeline-start.before_sharding-propagation.txt");
  EXPECT_EQ(d.kind, DumpKind::kPassDump);
  EXPECT_EQ(d.timestamp, "1764000000047514");
  EXPECT_EQ(d.module_name, "SyncTensorsGraph.1470_6");
  EXPECT_EQ(d.step, 0);
  EXPECT_EQ(d.after_pass, "pipeline-start");
  EXPECT_EQ(d.before_pass, "sharding-propagation");
  DumpFileName hinted = ParseDumpFileName(
      "module_0006.SyncTensorsGraph.1470_6.0003.gpu-compiler.after_algsimp."
      "before_cse.txt",
      "SyncTensorsGraph.1470_6");
  EXPECT_EQ(hinted.kind, DumpKind::kPassDump);
  EXPECT_EQ(hinted.step, 3);
  EXPECT_EQ(hinted.pipeline, "gpu-compiler");
}

TEST(DumpNameTest, PassStep) {
  DumpFileName d =
      ParseDumpFileName("module_0004.jit_f.0007.spmd-partitioning.after_x.txt");
  // `after_x` without `.before_` is a step name inside a pass.
  EXPECT_EQ(d.kind, DumpKind::kPassStep);
  EXPECT_EQ(d.step, 7);
  EXPECT_EQ(d.pipeline, "spmd-partitioning");
  EXPECT_EQ(d.before_pass, "after_x");
}

TEST(DumpNameTest, AuxiliaryFiles) {
  for (const char* name :
       {"module_0001.jit_f.after_optimizations-buffer-assignment.txt",
        "module_0001.jit_f.sm_9.0_gpu_after_optimizations-memory-usage-report."
        "txt",
        "module_0001.jit_f.ir-no-opt.ll", "module_0001.jit_f.ptx",
        "module_0001.jit_f.after_optimizations.dot",
        "module_0001.jit_f.after_optimizations.html"}) {
    DumpFileName d = ParseDumpFileName(name);
    EXPECT_EQ(d.kind, DumpKind::kAuxiliary) << name;
    EXPECT_EQ(d.module_id, 1) << name;
    EXPECT_EQ(d.module_name, "jit_f") << name;
    EXPECT_FALSE(IsCandidateByName(name)) << name;
  }
}

// Protos are indexed through their text view: candidates by name, though
// their dump kind stays auxiliary (not a text stage).
TEST(DumpNameTest, ProtosAreCandidates) {
  for (const char* name :
       {"module_0001.jit_f.before_optimizations.hlo.pb",
        "module_0001.jit_f.hlo_snapshot.pb", "module_0001.jit_f.snapshot.0.pb",
        "module_0001.jit_f.execution_0000.hlo_unoptimized_snapshot.pb",
        "module_0001.jit_f.execution_0000.hlo_unoptimized_snapshot.txt",
        "m.pb.gz"}) {
    EXPECT_TRUE(IsCandidateByName(name)) << name;
  }
  EXPECT_EQ(
      ParseDumpFileName("module_0001.jit_f.before_optimizations.hlo.pb").kind,
      DumpKind::kAuxiliary);
  EXPECT_FALSE(IsCandidateByName("host.xplane.pb"));
  EXPECT_FALSE(IsCandidateByName("m.pbx"));
}

TEST(DumpNameTest, NotDumps) {
  EXPECT_EQ(ParseDumpFileName("bert__graph_2.hlo").kind, DumpKind::kNotDump);
  EXPECT_EQ(ParseDumpFileName("my_module_0001.txt").kind, DumpKind::kNotDump);
  EXPECT_EQ(ParseDumpFileName("module_12.x.txt").kind, DumpKind::kNotDump);
  EXPECT_EQ(ParseDumpFileName("").kind, DumpKind::kNotDump);
  EXPECT_TRUE(IsCandidateByName("bert__graph_2.hlo"));
  EXPECT_TRUE(IsCandidateByName("graph.pbtxt"));
  EXPECT_TRUE(IsCandidateByName("notes.txt"));
  EXPECT_FALSE(IsCandidateByName("notes.md"));
}

TEST(DumpNameTest, Sniffing) {
  EXPECT_TRUE(LooksLikeHloText("\n\nHloModule m, is_scheduled=true\n"));
  EXPECT_TRUE(LooksLikeHloText("ENTRY %main (a: f32[]) -> f32[] {\n"));
  EXPECT_TRUE(LooksLikeHloText("%add (x: f32[], y: f32[]) -> f32[] {\n"));
  EXPECT_FALSE(LooksLikeHloText("BufferAssignment:\nallocation 0: size 4\n"));
  EXPECT_FALSE(LooksLikeHloText("hello world\nthis is text\n"));
  EXPECT_FALSE(LooksLikeHloText(""));
}

TEST(DumpNameTest, OrderKeys) {
  auto key = [](const char* name) {
    return DumpOrderKey(ParseDumpFileName(name));
  };
  std::string before = key("module_0001.f.before_optimizations.txt");
  std::string pass2 = key("module_0001.f.0002.p.after_a.before_b.txt");
  std::string pass10 = key("module_0001.f.0010.p.after_b.before_c.txt");
  std::string after = key("module_0001.f.after_optimizations.txt");
  EXPECT_LT(before, pass2);
  EXPECT_LT(pass2, pass10);
  EXPECT_LT(pass10, after);
}

}  // namespace
}  // namespace hlo::index
