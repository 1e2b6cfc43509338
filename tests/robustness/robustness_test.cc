// Bad input is normal input: truncated files, random bytes, NUL, invalid
// UTF-8, CRLF, a 50 MB line, 200,000 nested brackets, a 10^24-element shape.
// Every case must return (with diagnostics where the input is invalid); a
// watchdog aborts a case that hangs instead of asserting any timing.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/shape_util.h"

namespace hlo {
namespace {

namespace fs = std::filesystem;

// Aborts the process when a test runs for longer than a generous limit
// (sanitizer builds included): a hang must fail, not stall CI.
class Watchdog {
 public:
  explicit Watchdog(std::chrono::seconds limit)
      : thread_([this, limit] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!done_cv_.wait_for(lock, limit, [this] { return done_; })) {
            std::fprintf(stderr, "robustness test hung for over %llds: %s\n",
                         static_cast<long long>(limit.count()),
                         ::testing::UnitTest::GetInstance()
                             ->current_test_info()
                             ->name());
            std::abort();
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    done_cv_.notify_one();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::thread thread_;
};

class RobustnessTest : public ::testing::Test {
 protected:
  Watchdog watchdog_{std::chrono::seconds(300)};
};

// Every file of a source folder, sorted by name (README.md excepted).
std::vector<std::string> ReadFolder(const char* folder) {
  std::vector<fs::path> paths;
  for (const auto& entry :
       fs::directory_iterator(fs::path(HLO_LSP_SOURCE_DIR) / folder)) {
    if (entry.is_regular_file() && entry.path().filename() != "README.md") {
      paths.push_back(entry.path());
    }
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> texts;
  for (const fs::path& path : paths) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    texts.push_back(text.str());
  }
  return texts;
}

std::vector<std::string> ReadExamples() {
  std::vector<std::string> examples = ReadFolder("examples");
  EXPECT_GE(examples.size(), 3u);
  return examples;
}

// Touches every span the way the server would, so that a bad span faults
// under ASan here rather than in an editor.
void TouchEverything(const ParsedFile& file) {
  size_t total = 0;
  for (const Diagnostic& d : file.diagnostics) {
    ASSERT_LE(d.span.begin, d.span.end);
    ASSERT_LE(d.span.end, file.text().size());
    total += file.Text(d.span).size();
    (void)file.lines().ToLineColumn(d.span.begin, ColumnUnit::kUtf16CodeUnits);
  }
  auto check = [&](Span span) {
    ASSERT_LE(span.begin, span.end);
    ASSERT_LE(span.end, file.text().size());
    total += file.Text(span).size();
  };
  for (const Module& m : file.modules) {
    check(m.span);
    check(m.name);
  }
  for (const Computation& c : file.computations) {
    check(c.span);
    check(c.name);
    check(c.body);
  }
  for (const Instruction& i : file.instructions) {
    check(i.span);
    check(i.name);
    check(i.opcode_span);
    check(i.operand_list);
  }
  for (const Operand& o : file.operands) check(o.span);
  for (const Attribute& a : file.attributes) check(a.span);
  for (Id s = 0; s < file.shapes.size(); ++s) {
    (void)ElementCount(file, s);
    (void)ShapeToString(file, s);
  }
  (void)total;
}

TEST_F(RobustnessTest, ExamplesParseClean) {
  for (const std::string& text : ReadExamples()) {
    std::unique_ptr<ParsedFile> file = Parse(text);
    EXPECT_FALSE(file->HasErrors()) << text.substr(0, 200);
  }
}

// Inputs that once crashed the parser (tests/robustness/regressions/).
TEST_F(RobustnessTest, RegressionInputsDoNotCrash) {
  for (const std::string& text : ReadFolder("tests/robustness/regressions")) {
    std::unique_ptr<ParsedFile> file = Parse(text);
    TouchEverything(*file);
  }
}

TEST_F(RobustnessTest, TruncatedExamplesGiveDiagnosticsInsideTheEntry) {
  for (const std::string& text : ReadExamples()) {
    const size_t entry = text.find("ENTRY");
    const size_t last_brace = text.rfind('}');
    ASSERT_NE(entry, std::string::npos);
    // Every cut point in the first and last 64 bytes, then a stride.
    for (size_t cut = 0; cut <= text.size();
         cut += (cut < 64 || cut + 64 > text.size()) ? 1 : 13) {
      std::string truncated = text.substr(0, cut);
      std::unique_ptr<ParsedFile> file = Parse(truncated);
      TouchEverything(*file);
      if (cut > entry && cut <= last_brace) {
        // The entry computation is cut open: its '}' is gone.
        EXPECT_TRUE(file->HasErrors())
            << "cut at " << cut << " of " << text.substr(0, 60);
      }
    }
  }
}

TEST_F(RobustnessTest, RandomBytes) {
  std::mt19937 random(20260101);
  for (int round = 0; round < 2000; ++round) {
    std::string bytes(random() % 2048, '\0');
    for (char& c : bytes) c = static_cast<char>(random());
    std::unique_ptr<ParsedFile> file = Parse(bytes);
    TouchEverything(*file);
  }
}

TEST_F(RobustnessTest, RandomTokenSoup) {
  // Plausible tokens in random order reach deeper into the parser than bytes.
  const std::vector<std::string> tokens = {
      "HloModule",
      "m",
      "ENTRY",
      "ROOT",
      "%a",
      "%b",
      "=",
      "f32[2,3]{1,0}",
      "f32[]",
      "(",
      ")",
      "{",
      "}",
      "[",
      "]",
      ",",
      ":",
      "->",
      "add",
      "parameter",
      "0",
      "1",
      "-1",
      "constant",
      "{...}",
      "to_apply=%a",
      "metadata={",
      "op_name=\"x\"",
      "sharding={devices=[2,1]<=[2]}",
      "\n",
      " ",
      "/*",
      "*/",
      "//",
      "\"",
      "tuple",
      "(f32[], s32[])",
      "T(8,128)",
      "S(1)",
      "<=",
      "?",
      "fusion",
      "calls=%b",
      "kind=kLoop",
      "while",
      "condition=%a",
      "body=%b",
      "window={size=3x3 pad=1_1x1_1}",
      "dim_labels=b01f_01io->b01f",
      "e",
      "backend_config={\"a\":{\"b\":[1,2]}}",
      "0_0x1_1",
      "nan(0x7)",
      "-inf"};
  std::mt19937 random(7);
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    int count = static_cast<int>(random() % 200);
    for (int i = 0; i < count; ++i) {
      text += tokens[random() % tokens.size()];
      if (random() % 3 == 0) text += ' ';
    }
    std::unique_ptr<ParsedFile> file = Parse(text);
    TouchEverything(*file);
  }
}

TEST_F(RobustnessTest, NulBytesAreErrors) {
  for (std::string text : ReadExamples()) {
    text[text.find("ROOT")] = '\0';
    std::unique_ptr<ParsedFile> file = Parse(text);
    TouchEverything(*file);
    EXPECT_TRUE(file->HasErrors());
  }
  std::string nuls(100000, '\0');
  std::unique_ptr<ParsedFile> file = Parse(nuls);
  EXPECT_TRUE(file->HasErrors());
  EXPECT_LE(file->diagnostics.size(), ParseOptions().max_diagnostics);
}

TEST_F(RobustnessTest, InvalidUtf8) {
  const std::string bad = "\xff\xfe\xc3\x28\xe2\x82\xf0\x9f";
  // The text must outlive its ParsedFile: keep it in a named string.
  // In a name: not an identifier character, so an error.
  const std::string name_text =
      "HloModule m\nENTRY e {\n  ROOT %p" + bad + " = f32[] parameter(0)\n}\n";
  std::unique_ptr<ParsedFile> in_name = Parse(name_text);
  TouchEverything(*in_name);
  EXPECT_TRUE(in_name->HasErrors());
  // Inside a string any bytes may appear; it must not crash either way.
  const std::string string_text =
      "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0), "
      "metadata={op_name=\"" +
      bad + "\"}\n}\n";
  std::unique_ptr<ParsedFile> in_string = Parse(string_text);
  TouchEverything(*in_string);
  // Alone.
  std::unique_ptr<ParsedFile> alone = Parse(bad);
  TouchEverything(*alone);
  EXPECT_TRUE(alone->HasErrors());
}

TEST_F(RobustnessTest, CrlfParsesLikeLf) {
  for (const std::string& text : ReadExamples()) {
    std::string crlf;
    for (char c : text) {
      if (c == '\n') crlf += '\r';
      crlf += c;
    }
    std::unique_ptr<ParsedFile> lf_file = Parse(text);
    std::unique_ptr<ParsedFile> crlf_file = Parse(crlf);
    EXPECT_FALSE(crlf_file->HasErrors()) << text.substr(0, 60);
    EXPECT_EQ(crlf_file->modules.size(), lf_file->modules.size());
    EXPECT_EQ(crlf_file->computations.size(), lf_file->computations.size());
    EXPECT_EQ(crlf_file->instructions.size(), lf_file->instructions.size());
    EXPECT_EQ(crlf_file->lines().line_count(), lf_file->lines().line_count());
  }
}

TEST_F(RobustnessTest, FiftyMegabyteLine) {
  // One valid module on one line: a chain of adds.
  std::string text = "HloModule long_line ENTRY e { a0 = f32[] parameter(0)";
  int count = 1;
  while (text.size() < 50'000'000) {
    text += " a" + std::to_string(count) + " = f32[] add(a" +
            std::to_string(count - 1) + ", a0)";
    ++count;
  }
  text += " }";
  std::unique_ptr<ParsedFile> file = Parse(text);
  EXPECT_FALSE(file->HasErrors());
  EXPECT_EQ(file->lines().line_count(), 1u);
  EXPECT_EQ(file->instructions.size(), static_cast<size_t>(count));
  // One 50 MB line of junk: errors, capped.
  std::string junk(50'000'000, 'x');
  for (size_t i = 7; i < junk.size(); i += 7) junk[i] = ' ';
  std::unique_ptr<ParsedFile> junk_file = Parse(junk);
  EXPECT_TRUE(junk_file->HasErrors());
  EXPECT_LE(junk_file->diagnostics.size(), ParseOptions().max_diagnostics);
}

TEST_F(RobustnessTest, DeepNestingIsBounded) {
  constexpr int kDepth = 200'000;
  const std::string head = "HloModule m\nENTRY e {\n  ROOT x = ";
  for (auto [open, close] :
       {std::pair{'(', ')'}, std::pair{'[', ']'}, std::pair{'{', '}'}}) {
    std::string nested(kDepth, open);
    nested += std::string(kDepth, close);
    // As a shape, as an operand list, and as the whole file.
    for (const std::string& text :
         {head + nested + " parameter(0)\n}\n",
          head + "f32[] add" + nested + "\n}\n", nested}) {
      std::unique_ptr<ParsedFile> file = Parse(text);
      TouchEverything(*file);
      EXPECT_TRUE(file->HasErrors()) << open << " in " << text.substr(0, 50);
    }
    // As a literal: the parser does not check literals against the shape
    // yet, so only "returns without crashing" is asserted here.
    const std::string literal_text =
        head + "f32[] constant(" + nested + ")\n}\n";
    std::unique_ptr<ParsedFile> literal = Parse(literal_text);
    TouchEverything(*literal);
  }
  // Nested operand instructions: add(f32[] add(f32[] add(...)))
  std::string ops = head + "f32[] ";
  for (int i = 0; i < kDepth; ++i) ops += "add(f32[] ";
  std::unique_ptr<ParsedFile> file = Parse(ops);
  TouchEverything(*file);
  EXPECT_TRUE(file->HasErrors());
}

TEST_F(RobustnessTest, HugeShapeIsParsedNotAllocated) {
  const std::string text =
      "HloModule m\nENTRY e {\n"
      "  ROOT p = f32[1000000000000,1000000000000]{1,0} parameter(0)\n}\n";
  std::unique_ptr<ParsedFile> file = Parse(text);
  EXPECT_FALSE(file->HasErrors());
  ASSERT_EQ(file->instructions.size(), 1u);
  Id shape = file->instructions[0].shape;
  ASSERT_NE(shape, kNone);
  EXPECT_EQ(Rank(*file, shape), 2);
  EXPECT_EQ(ElementCount(*file, shape), std::nullopt);
  EXPECT_EQ(ByteSize(*file, shape), std::nullopt);
  EXPECT_EQ(ShapeToString(*file, shape, /*with_layout=*/false),
            "f32[1000000000000,1000000000000]");
  EXPECT_LT(file->MemoryUsage(), 64u * 1024);
}

TEST_F(RobustnessTest, ManyErrorsAreCapped) {
  // 100,000 instructions, each with two undefined operands.
  std::string text = "HloModule m\nENTRY e {\n";
  for (int i = 0; i < 100000; ++i) {
    text += "  a" + std::to_string(i) + " = f32[] add(nope, nope)\n";
  }
  text += "}\n";
  ParseOptions options;
  options.max_diagnostics = 50;
  std::unique_ptr<ParsedFile> file = Parse(text, options);
  EXPECT_TRUE(file->HasErrors());
  EXPECT_LE(file->diagnostics.size(), 50u);
  EXPECT_TRUE(file->diagnostics_truncated);
}

}  // namespace
}  // namespace hlo
