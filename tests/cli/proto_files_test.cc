// Protos as first-class files on the command line: check, outline and search
// read a proto's text view (the text `hlo-lsp convert` prints) and give
// positions in it; replay takes XLA's text-format snapshots named `.txt`.
#include <string>

#include "cli_runner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace hlo_lsp::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kProtoFilesModule[] =
    R"(HloModule clean, entry_computation_layout={(f32[4]{0})->f32[]}

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = f32[] add(f32[] %a, f32[] %b)
}

ENTRY %main (p: f32[4]) -> f32[] {
  %p = f32[4]{0} parameter(0)
  %zero = f32[] constant(0)
  ROOT %r = f32[] reduce(f32[4]{0} %p, f32[] %zero), dimensions={0}, to_apply=%sum
}
)";

// `PATH:LINE:COL` of the first line of `text` holding `needle` (1-based;
// COL is where `needle` starts).
std::string PositionOf(const std::string& path, const std::string& text,
                       const std::string& needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos) return "not found: " + needle;
  int line = 1;
  for (size_t i = 0; i < at; ++i) line += text[i] == '\n';
  const size_t start = text.rfind('\n', at);
  const size_t column = at - (start == std::string::npos ? 0 : start + 1) + 1;
  return path + ":" + std::to_string(line) + ":" + std::to_string(column);
}

// Runs a shell command (not hlo-lsp) in the runner's folder.
std::string Shell(CliRunner& cli, const std::string& command) {
  return cli.Run("--version >/dev/null && " + command).out;
}

// m.txt (HLO text), m.hlo.pb (its HloProto) and m.pb.gz (gzip'ed).
void WriteProtos(CliRunner& cli) {
  cli.Write("m.txt", kProtoFilesModule);
  ASSERT_EQ(cli.Run("convert m.txt -o m.hlo.pb").exit_code, 0);
  ASSERT_EQ(Shell(cli, "gzip -c m.hlo.pb > m.pb.gz && echo ok"), "ok\n");
}

TEST(CliProtoTest, CheckReadsBinaryAndGzipProtosAsText) {
  CliRunner cli;
  WriteProtos(cli);
  RunResult r = cli.Run("check m.hlo.pb m.pb.gz");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(cli.Run("check --help").out, HasSubstr("text view"));
}

TEST(CliProtoTest, OutlineOfAProtoIsThatOfItsTextView) {
  CliRunner cli;
  WriteProtos(cli);
  const std::string expected =
      "module clean\n"
      "  computation sum: 3 instructions\n"
      "  ENTRY computation main: 3 instructions\n";
  for (const char* file : {"m.hlo.pb", "m.pb.gz"}) {
    RunResult r = cli.Run(std::string("outline ") + file);
    EXPECT_EQ(r.exit_code, 0) << file << ": " << r.err;
    EXPECT_EQ(r.out, expected) << file;
  }
  // --json lines are lines of the text view.
  const std::string view = cli.Run("convert m.hlo.pb").out;
  RunResult json = cli.Run("outline --json m.hlo.pb");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  nlohmann::json j = nlohmann::json::parse(json.out);
  const std::string at = PositionOf("", view, "ENTRY %main");
  EXPECT_EQ(":" +
                std::to_string(
                    j["modules"][0]["computations"][1]["line"].get<int>()) +
                ":1",
            at);
}

TEST(CliProtoTest, AGarbageProtoIsAnErrorNotACrash) {
  CliRunner cli;
  cli.Write("g.pb", std::string("\x8c\x01\xff\x07junk\x00\x12", 10));
  cli.Write("t.pb", "hello, not a proto\n");
  for (const char* file : {"g.pb", "t.pb"}) {
    for (const char* command : {"check ", "outline "}) {
      RunResult r = cli.Run(command + std::string(file));
      EXPECT_EQ(r.exit_code, 1) << command << file << ": " << r.err;
      EXPECT_EQ(r.out, "") << command << file;
      EXPECT_THAT(r.err, HasSubstr(std::string(file) + ": not a"));
    }
  }
}

TEST(CliProtoTest, SearchFindsSymbolsOfAProtoAtTextViewPositions) {
  CliRunner cli;
  WriteProtos(cli);
  ASSERT_EQ(Shell(cli, "mkdir d && mv m.hlo.pb d/ && echo ok"), "ok\n");
  const std::string view = cli.Run("convert d/m.hlo.pb").out;
  RunResult r = cli.Run("search --no-cache --dir d --limit 0 zero");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // The instruction's name starts after `%` in the view.
  EXPECT_THAT(r.out, HasSubstr(PositionOf("d/m.hlo.pb", view, "zero =") +
                               ": instruction zero\n"));
  RunResult module = cli.Run("search --no-cache --dir d kind:module clean");
  EXPECT_THAT(module.out, HasSubstr(PositionOf("d/m.hlo.pb", view, "clean") +
                                    ": module clean\n"));
  // The same positions from the cache.
  const std::string search =
      "env XDG_CACHE_HOME=\"$PWD/cache\" '" HLO_LSP_BINARY
      "' search --dir d --limit 0 zero";
  EXPECT_EQ(Shell(cli, search + " >/dev/null && " + search), r.out);
}

// XLA writes a text-format HloUnoptimizedSnapshot as `.txt` when text dumps
// are on: replay reads it as a snapshot, module and arguments.
constexpr char kTextSnapshot[] = R"(hlo_module {
  name: "sq"
  entry_computation_name: "e"
  computations {
    name: "e"
    instructions {
      name: "x"
      opcode: "parameter"
      shape { element_type: F32 dimensions: 3 layout { minor_to_major: 0 } }
      id: 1
    }
    instructions {
      name: "y"
      opcode: "multiply"
      shape { element_type: F32 dimensions: 3 layout { minor_to_major: 0 } }
      id: 2
      operand_ids: 1
      operand_ids: 1
    }
    id: 3
    root_id: 2
  }
  id: 1
  entry_computation_id: 3
}
partitions {
  arguments {
    shape { element_type: F32 dimensions: 3 layout { minor_to_major: 0 } }
    f32s: 1
    f32s: 2
    f32s: 3
  }
}
)";

TEST(CliProtoTest, ReplayReadsATextSnapshotNamedTxt) {
  CliRunner cli;
  const std::string name =
      "module_0001.sq.execution_0000.hlo_unoptimized_snapshot.txt";
  cli.Write(name, kTextSnapshot);
  RunResult r = cli.Run("replay " + name);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("arguments (snapshot " + name + ")"));
  EXPECT_THAT(r.out, HasSubstr("out0 f32[3] {1, 4, 9}"));
  // The same text as a .pbtxt, and as the --snapshot of the module's text.
  cli.Write("sq.pbtxt", kTextSnapshot);
  EXPECT_THAT(cli.Run("replay sq.pbtxt").out, HasSubstr("{1, 4, 9}"));
  cli.Write("sq.hlo", cli.Run("convert " + name).out);
  RunResult with = cli.Run("replay sq.hlo --snapshot " + name);
  EXPECT_EQ(with.exit_code, 0) << with.out << with.err;
  EXPECT_THAT(with.out, HasSubstr("out0 f32[3] {1, 4, 9}"));
  // check and outline read it as a proto too.
  EXPECT_EQ(cli.Run("check " + name).exit_code, 0);
  EXPECT_EQ(cli.Run("outline " + name).out,
            "module sq\n  ENTRY computation e: 2 instructions\n");
}

}  // namespace
}  // namespace hlo_lsp::testing
