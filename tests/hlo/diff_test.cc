// DiffModules on generated edits whose answer is known: each test edits a
// fixture's text and expects the diff to report exactly that edit.
#include "hlo/diff.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"

namespace hlo {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kDiffModule[] =
    R"(HloModule m, entry_computation_layout={(f32[8]{0}, f32[8]{0})->f32[]}

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(f32[] %x, f32[] %y)
}

%fused (p0: f32[8], p1: f32[8]) -> f32[8] {
  %p0 = f32[8]{0} parameter(0)
  %p1 = f32[8]{0} parameter(1)
  %m = f32[8]{0} multiply(f32[8]{0} %p0, f32[8]{0} %p1)
  ROOT %e = f32[8]{0} exponential(f32[8]{0} %m)
}

%spare (s: f32[]) -> f32[] {
  ROOT %s = f32[] parameter(0)
}

ENTRY %main (a: f32[8], b: f32[8]) -> f32[] {
  %a = f32[8]{0} parameter(0)
  %b = f32[8]{0} parameter(1)
  %neg = f32[8]{0} negate(f32[8]{0} %a), metadata={op_name="jit(f)/neg" source_file="f.py" source_line=3}
  %f = f32[8]{0} fusion(f32[8]{0} %neg, f32[8]{0} %b), kind=kLoop, calls=%fused
  %dead = f32[8]{0} abs(f32[8]{0} %b)
  %t = f32[8,2]{1,0} broadcast(f32[8]{0} %f), dimensions={0}
  %zero = f32[] constant(0)
  ROOT %r = f32[] reduce(f32[8]{0} %f, f32[] %zero), dimensions={0}, to_apply=%add, control-predecessors={%t}
}
)";

// Replaces every `from` in `text` (which must occur).
std::string Replace(std::string text, const std::string& from,
                    const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  while (at != std::string::npos) {
    text.replace(at, from.size(), to);
    at = text.find(from, at + to.size());
  }
  return text;
}

// Renames instruction `from` and its uses: `%from` before one of ` ,)}`.
std::string Rename(std::string text, const std::string& from,
                   const std::string& to) {
  for (const char* end : {" ", ",", ")", "}"}) {
    std::string needle = "%" + from + end;
    for (size_t at = text.find(needle); at != std::string::npos;
         at = text.find(needle, at + to.size())) {
      text.replace(at, needle.size(), "%" + to + end);
    }
  }
  return text;
}

// The diff in the CLI's text lines (`+ computation` first), for exact
// comparison.
std::vector<std::string> Lines(const ModuleDiff& diff) {
  std::vector<std::string> out;
  for (const auto& c : diff.computations_removed) {
    out.push_back("- computation " + c);
  }
  for (const auto& c : diff.computations_added) {
    out.push_back("+ computation " + c);
  }
  for (const auto& i : diff.removed) {
    out.push_back("- " + i.computation + " " + i.name + " " + i.opcode + " " +
                  i.shape + " " + std::to_string(i.line));
  }
  for (const auto& i : diff.added) {
    out.push_back("+ " + i.computation + " " + i.name + " " + i.opcode + " " +
                  i.shape + " " + std::to_string(i.line));
  }
  for (const auto& r : diff.renamed) {
    out.push_back("> " + r.computation + " " + r.from + " " + r.to);
  }
  for (const auto& c : diff.changed) {
    out.push_back("~ " + c.computation + " " + c.name + " " + c.field + ": " +
                  c.old_value + " -> " + c.new_value);
  }
  return out;
}

std::vector<std::string> Diff(const std::string& a, const std::string& b,
                              bool metadata = false) {
  std::unique_ptr<ParsedFile> file_a = Parse(a), file_b = Parse(b);
  EXPECT_FALSE(file_a->HasErrors()) << a;
  EXPECT_FALSE(file_b->HasErrors()) << b;
  DiffOptions options;
  options.metadata = metadata;
  ModuleDiff diff = DiffModules(*file_a, *file_b, options);
  std::vector<std::string> lines = Lines(diff);
  EXPECT_EQ(diff.empty(), lines.empty());
  return lines;
}

TEST(DiffTest, SameModuleIsEmpty) {
  EXPECT_THAT(Diff(kDiffModule, kDiffModule), IsEmpty());
  EXPECT_THAT(Diff(kDiffModule, kDiffModule, /*metadata=*/true), IsEmpty());
}

// A pass that changed nothing: the dump moves lines and blanks about.
TEST(DiffTest, LayoutOfTheTextIsNoChange) {
  std::string b = Replace(kDiffModule, "HloModule m,", "\n\nHloModule m,");
  b = Replace(b, "add(f32[] %x, f32[] %y)", "add(f32[]   %x,f32[] %y)");
  b = Replace(b, "%t = f32[8,2]{1,0}", "%t = f32[8, 2]{1, 0}");
  EXPECT_THAT(Diff(kDiffModule, b), IsEmpty());
}

TEST(DiffTest, RenameIsOneRenameAndItsUsersAreUnchanged) {
  EXPECT_THAT(Diff(kDiffModule, Rename(kDiffModule, "neg", "neg.1")),
              ElementsAre("> main neg neg.1"));
}

TEST(DiffTest, ChainOfRenamesPairsThroughTheMatch) {
  std::string b = kDiffModule;
  for (const char* name : {"a", "neg", "f", "t", "r"}) {
    b = Rename(b, name, std::string(name) + ".7");
  }
  EXPECT_THAT(Diff(kDiffModule, b),
              ElementsAre("> main a a.7", "> main neg neg.7", "> main f f.7",
                          "> main t t.7", "> main r r.7"));
}

// The B file lists the users before their operands: pairing still finds
// the chain (users are retried once an operand pairs).
TEST(DiffTest, RenamesPairInAnyTextOrder) {
  std::string b =
      Rename(Rename(Rename(kDiffModule, "neg", "n2"), "f", "f2"), "t", "t2");
  std::string neg_line =
      "  %n2 = f32[8]{0} negate(f32[8]{0} %a), "
      "metadata={op_name=\"jit(f)/neg\" "
      "source_file=\"f.py\" source_line=3}\n";
  std::string f_line =
      "  %f2 = f32[8]{0} fusion(f32[8]{0} %n2, f32[8]{0} %b), kind=kLoop, "
      "calls=%fused\n";
  std::string t_line =
      "  %t2 = f32[8,2]{1,0} broadcast(f32[8]{0} %f2), dimensions={0}\n";
  // B lists the chain a -> n2 -> f2 -> t2 backwards: t2, f2, n2.
  b = Replace(Replace(Replace(b, neg_line, ""), f_line, ""), t_line, "");
  b = Replace(b, "  %dead =", t_line + f_line + neg_line + "  %dead =");
  std::unique_ptr<ParsedFile> file_a = Parse(kDiffModule), file_b = Parse(b);
  std::vector<std::string> lines = Lines(DiffModules(*file_a, *file_b));
  EXPECT_THAT(lines,
              ElementsAre("> main t t2", "> main f f2", "> main neg n2"));
}

TEST(DiffTest, DeletedInstructionIsRemovedWithItsLineInA) {
  std::string b =
      Replace(kDiffModule, "  %dead = f32[8]{0} abs(f32[8]{0} %b)\n", "");
  EXPECT_THAT(Diff(kDiffModule, b),
              ElementsAre("- main dead abs f32[8]{0} 25"));
}

TEST(DiffTest, AddedInstructionIsAddedWithItsLineInB) {
  std::string b = Replace(kDiffModule, "  %zero =",
                          "  %extra = f32[8]{0} sqrt(f32[8]{0} %b)\n  %zero =");
  EXPECT_THAT(Diff(kDiffModule, b),
              ElementsAre("+ main extra sqrt f32[8]{0} 27"));
}

TEST(DiffTest, OpcodeChange) {
  std::string b = Replace(kDiffModule, "negate(", "abs(");
  EXPECT_THAT(Diff(kDiffModule, b),
              ElementsAre("~ main neg opcode: negate -> abs"));
}

TEST(DiffTest, ShapeChangeLeavesUsersAlone) {
  std::string b =
      Replace(kDiffModule, "%t = f32[8,2]{1,0}", "%t = f32[8,3]{1,0}");
  EXPECT_THAT(Diff(kDiffModule, b),
              ElementsAre("~ main t shape: f32[8,2]{1,0} -> f32[8,3]{1,0}"));
}

TEST(DiffTest, LayoutOnlyChangeIsAShapeChange) {
  std::string b =
      Replace(kDiffModule, "%t = f32[8,2]{1,0}", "%t = f32[8,2]{0,1}");
  EXPECT_THAT(Diff(kDiffModule, b),
              ElementsAre("~ main t shape: f32[8,2]{1,0} -> f32[8,2]{0,1}"));
}

TEST(DiffTest, AttributeChange) {
  std::string b = Replace(kDiffModule, "kind=kLoop", "kind=kInput");
  EXPECT_THAT(Diff(kDiffModule, b),
              ElementsAre("~ main f attributes: kind=kLoop, calls=fused -> "
                          "kind=kInput, calls=fused"));
}

TEST(DiffTest, OperandChange) {
  std::string b =
      Replace(kDiffModule, "abs(f32[8]{0} %b)", "abs(f32[8]{0} %a)");
  EXPECT_THAT(Diff(kDiffModule, b),
              ElementsAre("~ main dead operands: b -> a"));
}

TEST(DiffTest, ConstantValueIsAnOperandChange) {
  std::string b = Replace(kDiffModule, "constant(0)", "constant(1)");
  EXPECT_THAT(Diff(kDiffModule, b),
              ElementsAre("~ main zero operands: 0 -> 1"));
}

TEST(DiffTest, ControlPredecessorsCompareThroughTheMatch) {
  EXPECT_THAT(Diff(kDiffModule, Rename(kDiffModule, "t", "t.1")),
              ElementsAre("> main t t.1"));
  std::string b = Replace(kDiffModule, "control-predecessors={%t}",
                          "control-predecessors={%dead}");
  EXPECT_THAT(Diff(kDiffModule, b),
              ElementsAre("~ main r attributes: dimensions={0}, to_apply=add, "
                          "control-predecessors={t} -> dimensions={0}, "
                          "to_apply=add, control-predecessors={dead}"));
}

TEST(DiffTest, WholeComputationsAddedAndRemoved) {
  std::string b = Replace(kDiffModule, "%spare (s: f32[]) -> f32[] {\n",
                          "%other (s: f32[]) -> f32[] {\n");
  b = Replace(b, "ENTRY %main",
              "%more () -> f32[] {\n"
              "  ROOT %k = f32[] constant(2)\n}\n\nENTRY %main");
  EXPECT_THAT(Diff(kDiffModule, b),
              ElementsAre("- computation spare", "+ computation other",
                          "+ computation more"));
}

TEST(DiffTest, RemovedInstructionOfAnotherComputation) {
  std::string b = Replace(
      kDiffModule, "%m = f32[8]{0} multiply(f32[8]{0} %p0, f32[8]{0} %p1)",
      "%m = f32[8]{0} multiply(f32[8]{0} %p0, f32[8]{0} %p0)");
  b = Replace(b, "  %p1 = f32[8]{0} parameter(1)\n", "");
  EXPECT_THAT(Diff(kDiffModule, b),
              ElementsAre("- fused p1 parameter f32[8]{0} 11",
                          "~ fused m operands: p0, p1 -> p0, p0"));
}

TEST(DiffTest, RenameAndChangeTogether) {
  std::string b = Replace(Rename(kDiffModule, "f", "f.5"), "kLoop", "kInput");
  EXPECT_THAT(Diff(kDiffModule, b),
              ElementsAre("> main f f.5",
                          "~ main f.5 attributes: kind=kLoop, calls=fused -> "
                          "kind=kInput, calls=fused"));
}

// A renamed instruction whose opcode changed too is no rename: it is
// removed and added, and its users' operands change.
TEST(DiffTest, RenameWithNewOpcodeIsRemoveAndAdd) {
  std::string b = Replace(Rename(kDiffModule, "dead", "live"), "abs(", "sqrt(");
  EXPECT_THAT(Diff(kDiffModule, b),
              ElementsAre("- main dead abs f32[8]{0} 25",
                          "+ main live sqrt f32[8]{0} 25"));
}

TEST(DiffTest, MetadataOnlyWhenAsked) {
  std::string b = Replace(kDiffModule, "jit(f)/neg", "jit(g)/neg");
  EXPECT_THAT(Diff(kDiffModule, b), IsEmpty());
  EXPECT_THAT(
      Diff(kDiffModule, b, /*metadata=*/true),
      ElementsAre("~ main neg metadata: {op_name=\"jit(f)/neg\" "
                  "source_file=\"f.py\" source_line=3} -> {op_name=\"jit(g)/"
                  "neg\" source_file=\"f.py\" source_line=3}"));
}

TEST(DiffTest, IdenticalConstantsPairByValue) {
  std::string a = Replace(kDiffModule, "  %zero = f32[] constant(0)\n",
                          "  %zero = f32[] constant(0)\n"
                          "  %one = f32[] constant(1)\n");
  std::string b = Rename(Rename(a, "zero", "c.0"), "one", "c.1");
  // B lists c.1 (the old `one`) first: the literal decides, not the order.
  b = Replace(b, "  %c.0 = f32[] constant(0)\n  %c.1 = f32[] constant(1)\n",
              "  %c.1 = f32[] constant(1)\n  %c.0 = f32[] constant(0)\n");
  EXPECT_THAT(Diff(a, b), ElementsAre("> main one c.1", "> main zero c.0"));
}

TEST(DiffTest, NoModuleDiffsAsEmpty) {
  std::unique_ptr<ParsedFile> empty = Parse(""), module = Parse(kDiffModule);
  ModuleDiff diff = DiffModules(*empty, *module);
  EXPECT_THAT(diff.computations_added,
              ElementsAre("add", "fused", "spare", "main"));
  EXPECT_THAT(diff.added, IsEmpty());
  EXPECT_TRUE(DiffModules(*empty, *empty).empty());
}

// Broken and unrelated input never crashes; what parsed is diffed.
TEST(DiffTest, TruncatedAndUnrelatedInput) {
  std::string truncated(kDiffModule, std::string(kDiffModule).find("%t = "));
  std::unique_ptr<ParsedFile> a = Parse(kDiffModule), b = Parse(truncated);
  ModuleDiff diff = DiffModules(*a, *b);
  EXPECT_FALSE(diff.empty());
  std::unique_ptr<ParsedFile> other =
      Parse("HloModule x\nENTRY %main { ROOT %neg = s32[] constant(4) }\n");
  diff = DiffModules(*a, *other);
  EXPECT_THAT(
      Lines(diff),
      ElementsAre(
          "- computation add", "- computation fused", "- computation spare",
          "- main a parameter f32[8]{0} 21", "- main b parameter f32[8]{0} 22",
          "- main f fusion f32[8]{0} 24", "- main dead abs f32[8]{0} 25",
          "- main t broadcast f32[8,2]{1,0} 26",
          "- main zero constant f32[] 27", "- main r reduce f32[] 28",
          "~ main neg shape: f32[8]{0} -> s32[]",
          "~ main neg opcode: negate -> constant",
          "~ main neg operands: a -> 4"));
}

}  // namespace
}  // namespace hlo
