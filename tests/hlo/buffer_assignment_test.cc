// The buffer-assignment, memory-report and OOM-log readers against
// fixtures in XLA's exact format: small hand-checked ones, and one written
// by scripts/gen-buffer-assignment.py for a real corpus module whose sizes
// are recomputed here from the module's own shapes.
#include "hlo/buffer_assignment.h"

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/oom_log.h"
#include "hlo/parser.h"
#include "hlo/shape_util.h"

namespace hlo {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A dump holds views into its text: each fixture's text is kept for the
// whole test program.
const std::string& Fixture(const std::string& name) {
  static auto* texts = new std::map<std::string, std::string>();
  auto [it, added] = texts->try_emplace(name);
  if (added) {
    std::ifstream in(std::string(HLO_LSP_SOURCE_DIR) +
                     "/tests/hlo/fixtures/memory/" + name);
    std::stringstream s;
    s << in.rdbuf();
    it->second = s.str();
  }
  EXPECT_FALSE(it->second.empty()) << name;
  return it->second;
}

constexpr char kSmall[] = "module_0001.jit_f.sm_9.0_gpu_after_optimizations";

TEST(BufferAssignmentTest, ReadsHandCheckedDump) {
  BufferAssignmentDump d = ReadBufferAssignment(
      Fixture(std::string(kSmall) + "-buffer-assignment.txt"));
  EXPECT_THAT(d.problems, IsEmpty());
  ASSERT_EQ(d.allocations.size(), 5u);
  const Allocation& p1 = d.allocations[1];
  EXPECT_EQ(p1.index, 1);
  EXPECT_EQ(p1.size, 16);
  EXPECT_EQ(p1.parameter, 1);
  EXPECT_EQ(p1.parameter_shape, "f32[4]");
  EXPECT_EQ(p1.parameter_index, "{}");
  EXPECT_EQ(p1.Kinds(), "parameter 1");
  EXPECT_EQ(p1.line, 4u);
  const Allocation& out = d.allocations[4];
  EXPECT_EQ(out.output_shape, "(f32[4], f32[8])");
  EXPECT_TRUE(out.maybe_live_out);
  ASSERT_EQ(out.values.size(), 1u);
  EXPECT_EQ(out.values[0].instruction, "tuple");
  EXPECT_EQ(out.values[0].shape_index, "{}");
  EXPECT_EQ(out.values[0].shape, "(f32[4]{0}, f32[8]{0})");
  EXPECT_EQ(d.total_bytes, 96);
  AllocationTotals t = d.Totals();
  EXPECT_EQ(t.total, 96);
  EXPECT_EQ(t.parameter, 32);
  EXPECT_EQ(t.maybe_live_out, 64);
  EXPECT_EQ(t.preallocated_temp, 0);
  EXPECT_EQ(d.Largest()->index, 3);
  // The peak section as HloLiveRange prints it.
  EXPECT_EQ(d.peak_time, 3);
  EXPECT_FALSE(d.peak_computed);
  ASSERT_EQ(d.peak.size(), 3u);
  EXPECT_EQ(d.peak[0].instruction, "fusion");
  EXPECT_EQ(d.peak[0].bytes, 32);
  EXPECT_TRUE(LiveAtPeak(d, "add.1"));
  EXPECT_FALSE(LiveAtPeak(d, "x"));
  EXPECT_EQ(d.live_ranges.size(), 5u);
  std::vector<ValuePlace> places = PlacesOf(d, "fusion");
  ASSERT_EQ(places.size(), 1u);
  EXPECT_EQ(places[0].allocation->index, 3);
  EXPECT_EQ(places[0].value->size, 32);
  // The tuple holds its own index table and aliases its elements ("Used
  // values" positions `tuple {0}`, `tuple {1}`).
  places = PlacesOf(d, "tuple");
  ASSERT_EQ(places.size(), 3u);
  EXPECT_FALSE(places[0].alias);
  EXPECT_EQ(places[0].allocation->index, 4);
  EXPECT_TRUE(places[1].alias);
  EXPECT_EQ(places[1].value->instruction, "add.1");
  EXPECT_EQ(places[1].alias_index, "{0}");
  EXPECT_EQ(places[2].value->instruction, "fusion");
  EXPECT_EQ(places[2].alias_index, "{1}");
  EXPECT_TRUE(LiveAtPeak(d, "tuple"));  // through add.1 and fusion
  EXPECT_EQ(d.aliases.size(), 2u);      // tuple {} defines its value: no alias
}

TEST(BufferAssignmentTest, ComputesThePeakOlderXlaDidNotPrint) {
  std::string text = Fixture(std::string(kSmall) + "-buffer-assignment.txt");
  text = text.substr(0, text.find("  Live ranges at"));
  BufferAssignmentDump d = ReadBufferAssignment(text);
  EXPECT_TRUE(d.peak_computed);
  EXPECT_EQ(d.peak_time, 3);
  std::vector<std::string_view> names;
  for (const PeakValue& p : d.peak) names.push_back(p.instruction);
  // The order XLA prints: size descending, then name.
  EXPECT_THAT(names, ElementsAre("fusion", "add.1", "y"));
}

TEST(BufferAssignmentTest, SkipsBadLinesWithTheirLineNumbers) {
  BufferAssignmentDump d = ReadBufferAssignment(
      "BufferAssignment:\n"
      "allocation 0: size 16, parameter 0, shape |f32[4]| at ShapeIndex {}:\n"
      " value: <1 x @0> (size=16,offset=0): f32[4]{0}\n"
      "allocation x: size\n"
      " value: <garbage\n"
      "allocation 1: size 99999999999999999999999:\n"
      "allocation 2: size 8, color 5, thread-local, mystery:\n"
      "allocation 3: size 8, preallocated-temp:\n"
      " value: <2 t (phi) @0> (size=8,offset=0): f32[2]{0}\n"
      "HloLiveRange (max 2):\n  BufferLiveRange:\n    x{}:0-oops\n");
  ASSERT_EQ(d.allocations.size(), 2u);
  EXPECT_EQ(d.allocations[1].index, 3);
  EXPECT_TRUE(d.allocations[1].values[0].phi);
  std::vector<uint32_t> lines;
  for (const ReadProblem& p : d.problems) lines.push_back(p.line);
  EXPECT_THAT(lines, ElementsAre(4, 5, 6, 7, 12));
  // Truncated and empty inputs read as nothing, never a crash.
  std::string whole = Fixture(std::string(kSmall) + "-buffer-assignment.txt");
  for (size_t cut = 0; cut < whole.size(); cut += 7) {
    ReadBufferAssignment(whole.substr(0, cut));
    ReadMemoryUsageReport(whole.substr(0, cut));
    ReadOomLog(whole.substr(0, cut));
  }
}

TEST(BufferAssignmentTest, ReadsTheMemoryReport) {
  BufferAssignmentDump d = ReadMemoryUsageReport(
      Fixture(std::string(kSmall) + "-memory-usage-report.txt"));
  EXPECT_THAT(d.problems, IsEmpty());
  EXPECT_TRUE(d.from_memory_report);
  EXPECT_EQ(d.total_bytes, 96);
  ASSERT_EQ(d.allocations.size(), 5u);
  EXPECT_EQ(d.allocations[0].index, 0);  // sorted back by index
  EXPECT_EQ(d.allocations[3].size, 32);
  EXPECT_EQ(d.Totals().total, 96);
}

TEST(BufferAssignmentTest, HumanBytesAsTslSpellsThem) {
  EXPECT_EQ(HumanBytes(0), "0B");
  EXPECT_EQ(HumanBytes(1023), "1023B");
  EXPECT_EQ(HumanBytes(384 * 1024), "384.0KiB");
  EXPECT_EQ(HumanBytes(6291456), "6.00MiB");
  EXPECT_EQ(HumanBytes(int64_t{27} << 30), "27.00GiB");
  EXPECT_EQ(ParseHumanBytes("6.00MiB"), 6291456);
  EXPECT_EQ(ParseHumanBytes(" 384.0KiB"), 384 * 1024);
  EXPECT_EQ(ParseHumanBytes("96B"), 96);
  EXPECT_EQ(ParseHumanBytes("6291456"), 6291456);
  EXPECT_EQ(ParseHumanBytes("lots"), std::nullopt);
  EXPECT_EQ(ParseHumanBytes("3XiB"), std::nullopt);
}

// A real module: every value the generator placed has the byte size of its
// instruction's shape as our own shape code computes it, and the totals per
// kind add up the same way.
TEST(BufferAssignmentTest, GeneratedDumpOfARealModuleAddsUp) {
  const std::string module_text =
      Fixture("module_0007.gptj.after_optimizations.txt");
  std::unique_ptr<ParsedFile> file = Parse(module_text);
  BufferAssignmentDump d = ReadBufferAssignment(
      Fixture("module_0007.gptj.after_optimizations-buffer-assignment.txt"));
  EXPECT_THAT(d.problems, IsEmpty());
  const Computation& entry = file->computations[file->modules[0].entry];
  int64_t parameters = 0, constants = 0, root = 0, temps = 0, values = 0;
  for (Id i = entry.instructions.begin; i < entry.instructions.end(); ++i) {
    const Instruction& inst = file->instructions[i];
    if (inst.is_nested) continue;
    if (inst.opcode == Opcode::kGetTupleElement ||
        inst.opcode == Opcode::kBitcast ||
        (inst.opcode == Opcode::kTuple && !inst.is_root)) {
      EXPECT_THAT(PlacesOf(d, file->Name(inst)), IsEmpty());
      continue;
    }
    const Shape& shape = file->shapes[inst.shape];
    const int64_t bytes = shape.is_tuple()
                              ? 8 * static_cast<int64_t>(shape.tuple.count)
                              : ByteSize(*file, inst.shape).value_or(-1);
    std::vector<ValuePlace> places = PlacesOf(d, file->Name(inst));
    ASSERT_EQ(places.size(), 1u) << file->Name(inst);
    EXPECT_EQ(places[0].value->size, bytes) << file->Name(inst);
    ++values;
    if (inst.opcode == Opcode::kParameter) {
      parameters += bytes;
    } else if (inst.is_root) {
      root += bytes;
    } else if (inst.opcode == Opcode::kConstant) {
      constants += bytes;
    } else {
      temps += bytes;
    }
  }
  EXPECT_GT(values, 100);
  AllocationTotals t = d.Totals();
  EXPECT_EQ(t.parameter, parameters);
  EXPECT_EQ(t.constant, constants);
  EXPECT_EQ(t.maybe_live_out, root);
  EXPECT_EQ(t.preallocated_temp, temps);
  EXPECT_EQ(t.total, parameters + constants + root + temps);
  EXPECT_EQ(d.total_bytes, t.total);
  // The same module without the peak section: the computed peak is the
  // printed one.
  BufferAssignmentDump old =
      ReadBufferAssignment(Fixture("gptj-nopeak-buffer-assignment.txt"));
  EXPECT_TRUE(old.peak_computed);
  EXPECT_EQ(old.peak_time, d.peak_time);
  ASSERT_EQ(old.peak.size(), d.peak.size());
  for (size_t i = 0; i < d.peak.size(); ++i) {
    EXPECT_EQ(old.peak[i].instruction, d.peak[i].instruction);
    EXPECT_EQ(old.peak[i].bytes, d.peak[i].bytes);
  }
  // The memory report of the same dump: same allocations, sizes rounded.
  BufferAssignmentDump report = ReadMemoryUsageReport(
      Fixture("module_0007.gptj.after_optimizations-memory-usage-report.txt"));
  EXPECT_EQ(report.total_bytes, d.total_bytes);
  ASSERT_EQ(report.allocations.size(), d.allocations.size());
  for (size_t i = 0; i < d.allocations.size(); ++i) {
    EXPECT_EQ(report.allocations[i].Kinds(), d.allocations[i].Kinds());
    EXPECT_NEAR(report.allocations[i].size, d.allocations[i].size,
                d.allocations[i].size / 100 + 1);
  }
}

TEST(OomLogTest, ReadsAPastedReportAndMatchesItsBuffers) {
  OomLog log = ReadOomLog(Fixture("oom.log"));
  EXPECT_EQ(log.requested, 96);
  ASSERT_EQ(log.buffers.size(), 3u);
  EXPECT_EQ(log.buffers[0].number, 1);
  EXPECT_EQ(log.buffers[0].size, 32);
  EXPECT_EQ(log.buffers[0].label, "fusion");
  EXPECT_EQ(log.buffers[0].op_name,
            "jit(f)/jit(main)/concatenate[dimension=0]");
  EXPECT_EQ(log.buffers[0].line, 14u);
  EXPECT_TRUE(log.buffers[2].entry_parameter);
  EXPECT_EQ(log.stats.size(), 5u);
  // The module's text outlives its parse (the parse holds views into it).
  const std::string module_text = Fixture(std::string(kSmall) + ".txt");
  std::unique_ptr<ParsedFile> file = Parse(module_text);
  auto names = [&](const OomBuffer& b) {
    std::vector<std::string> out;
    for (Id id : MatchOomBuffer(*file, b)) {
      out.emplace_back(file->Name(file->instructions[id]));
    }
    return out;
  };
  EXPECT_THAT(names(log.buffers[0]), ElementsAre("fusion"));
  EXPECT_THAT(names(log.buffers[1]), ElementsAre("add.1"));
  EXPECT_THAT(names(log.buffers[2]), ElementsAre("x", "y"));
  // A buffer whose op_name no instruction carries still matches by label
  // and shape; one nothing fits matches nothing.
  OomBuffer renamed = log.buffers[1];
  renamed.op_name = "jit(g)/other";
  EXPECT_THAT(names(renamed), ElementsAre("add.1"));
  OomBuffer none = log.buffers[1];
  none.shape = "s8[3]";
  none.op_name.clear();
  EXPECT_THAT(names(none), IsEmpty());
}

TEST(OomLogTest, ReadsAReportFoldedOntoOneLine) {
  OomLog log = ReadOomLog(
      "E0101 XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying "
      "to allocate 2.00GiB.\\nBufferAssignment OOM Debugging.\\nPeak "
      "buffers:\\n\\tBuffer 1:\\n\\t\\tSize: 1.00GiB\\n\\t\\tXLA Label: "
      "custom-call\\n\\t\\tShape: bf16[128,6,256,256]\\n\\t\\t===\\n");
  EXPECT_EQ(log.requested, int64_t{2} << 30);
  ASSERT_EQ(log.buffers.size(), 1u);
  EXPECT_EQ(log.buffers[0].size, int64_t{1} << 30);
  EXPECT_EQ(log.buffers[0].label, "custom-call");
  EXPECT_EQ(log.buffers[0].shape, "bf16[128,6,256,256]");
  EXPECT_TRUE(LooksLikeOomLog("x\nBufferAssignment OOM Debugging.\n"));
  EXPECT_FALSE(LooksLikeOomLog("HloModule m\n"));
}

}  // namespace
}  // namespace hlo
