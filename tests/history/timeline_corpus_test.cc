// The pass timeline on sequences generated from the corpus's largest real
// models, each pass making one known kind of edit: a pass that changes
// nothing, renames (with their uses), an added instruction, an opcode, an
// attribute and a shape change, a whole computation added and removed, a
// delete. `passes` must report exactly those counts, no more.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "history/timeline.h"
#include "hlo/parser.h"
#include "index/module_files.h"
#include "tests/corpus_files.h"
#include "tests/history/pass_sequence.h"
#include "tests/index/test_dir.h"

namespace hlo::history {
namespace {

namespace fs = std::filesystem;
using history_test::ReplaceAll;

struct Expected {
  int added = 0, removed = 0, changed = 0, renamed = 0;
  int computations_added = 0, computations_removed = 0;
};

// Every 100th top-level instruction renamed, with its operand uses.
std::string RenameSome(const ParsedFile& file, int* renamed) {
  struct Edit {
    Offset begin, end;
    std::string text;
  };
  std::vector<Edit> edits;
  std::vector<bool> control_used(file.instructions.size(), false);
  for (const NameRef& r : file.name_refs) {
    if (r.definition != kNone) control_used[r.definition] = true;
  }
  int count = 0;
  for (Id i = 0; i < file.instructions.size(); ++i) {
    const Instruction& inst = file.instructions[i];
    if (inst.is_nested || inst.name.empty() || control_used[i]) continue;
    if (count++ % 100 != 0) continue;
    std::string to = std::string(file.Text(inst.name)) + ".hist";
    edits.push_back({inst.name.begin, inst.name.end, to});
    for (Id e = file.use_offsets[i]; e < file.use_offsets[i + 1]; ++e) {
      Span use = file.operands[file.use_edges[e].operand].name;
      edits.push_back({use.begin, use.end, to});
    }
    ++*renamed;
  }
  std::sort(edits.begin(), edits.end(),
            [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
  std::string out(file.text());
  for (const Edit& e : edits) out.replace(e.begin, e.end - e.begin, e.text);
  return out;
}

// The first add/multiply/maximum/minimum turned into another of them.
std::string SwapABinaryOpcode(const ParsedFile& file, bool* done) {
  for (const Instruction& inst : file.instructions) {
    std::string_view op = file.Text(inst.opcode_span);
    if (op != "add" && op != "multiply" && op != "maximum" && op != "minimum") {
      continue;
    }
    std::string out(file.text());
    out.replace(inst.opcode_span.begin, op.size(),
                op == "add" ? "multiply" : "add");
    *done = true;
    return out;
  }
  return std::string(file.text());
}

std::vector<std::string> LargestCleanModels(const fs::path& corpus,
                                            size_t count) {
  std::vector<std::pair<uintmax_t, std::string>> by_size;
  for (const corpus_files::Entry& e :
       corpus_files::ReadIndex(corpus / "INDEX.tsv")) {
    if (!e.path.ends_with(".hlo") && !e.path.ends_with(".txt")) continue;
    std::error_code error;
    uintmax_t size = fs::file_size(corpus / e.path, error);
    if (!error) by_size.emplace_back(size, e.path);
  }
  std::sort(by_size.rbegin(), by_size.rend());
  std::vector<std::string> out;
  for (const auto& [size, path] : by_size) {
    std::ifstream in(corpus / path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    if (corpus_files::IsTextProto(text) || corpus_files::IsFormatTemplate(text))
      continue;
    std::unique_ptr<ParsedFile> parsed = Parse(text);
    if (parsed->HasErrors() || parsed->modules.size() != 1 ||
        parsed->modules[0].entry == kNone) {
      continue;
    }
    out.push_back(std::move(text));
    if (out.size() == count) break;
  }
  return out;
}

TEST(TimelineCorpusTest, GeneratedPassesOfRealModelsAreReportedExactly) {
  fs::path corpus = corpus_files::CorpusDir();
  if (!fs::exists(corpus / "INDEX.tsv")) {
    GTEST_SKIP() << "no corpus at " << corpus;
  }
  std::vector<std::string> models = LargestCleanModels(corpus, 2);
  ASSERT_EQ(models.size(), 2u);
  for (const std::string& model : models) {
    index::index_test::TempDir dir;
    std::vector<std::pair<std::string, Expected>> passes;
    std::string text = model;
    passes.push_back({text, {}});  // before_optimizations
    passes.push_back({text, {}});  // a pass that changed nothing
    Expected renames;
    text = RenameSome(*Parse(text), &renames.renamed);
    ASSERT_GT(renames.renamed, 0);
    passes.push_back({text, renames});
    bool swapped = false;
    text = SwapABinaryOpcode(*Parse(text), &swapped);
    if (swapped) passes.push_back({text, {.changed = 1}});
    // An instruction added at the top of the entry computation's body.
    std::unique_ptr<ParsedFile> parsed = Parse(text);
    const Computation& entry = parsed->computations[parsed->modules[0].entry];
    size_t body_line = text.find('\n', entry.body.begin) + 1;
    const size_t entry_begin = entry.span.begin;
    parsed.reset();
    text.insert(body_line, "  %hist.added = f32[] constant(0)\n");
    passes.push_back({text, {.added = 1}});
    text = ReplaceAll(text, "%hist.added = f32[] constant(0)",
                      "%hist.added = f32[] constant(0), "
                      "frontend_attributes={hist=\"1\"}");
    passes.push_back({text, {.changed = 1}});  // an attribute
    text = ReplaceAll(text, "%hist.added = f32[] constant(0)",
                      "%hist.added = s32[] constant(0)");
    passes.push_back({text, {.changed = 1}});  // a shape
    text.insert(entry_begin,
                "%hist_computation (p: f32[]) -> f32[] {\n"
                "  ROOT %hist_p = f32[] parameter(0)\n}\n\n");
    passes.push_back({text, {.computations_added = 1}});
    text = ReplaceAll(text,
                      "  %hist.added = s32[] constant(0), "
                      "frontend_attributes={hist=\"1\"}\n",
                      "");
    passes.push_back({text, {.removed = 1}});
    text = ReplaceAll(text,
                      "%hist_computation (p: f32[]) -> f32[] {\n"
                      "  ROOT %hist_p = f32[] parameter(0)\n}\n\n",
                      "");
    passes.push_back({text, {.computations_removed = 1}});
    passes.push_back({text, {}});  // after_optimizations
    for (size_t i = 0; i < passes.size(); ++i) {
      char name[96];
      if (i == 0) {
        std::snprintf(name, sizeof(name),
                      "module_0001.m.before_optimizations.txt");
      } else if (i + 1 == passes.size()) {
        std::snprintf(name, sizeof(name),
                      "module_0001.m.after_optimizations.txt");
      } else {
        std::snprintf(name, sizeof(name),
                      "module_0001.m.%04zu.p.after_pass%zu.before_next.txt",
                      i - 1, i);
      }
      std::ofstream(dir.path() / name, std::ios::binary) << passes[i].first;
    }
    std::vector<TimelineStep> steps =
        BuildTimeline(index::HloTextHistory(index::ModuleFilesOfPath(
            (dir.path() / "module_0001.m.after_optimizations.txt").string())));
    ASSERT_EQ(steps.size(), passes.size());
    for (size_t i = 0; i < steps.size(); ++i) {
      SCOPED_TRACE(steps[i].file.path);
      const Expected& want = passes[i].second;
      EXPECT_EQ(steps[i].error, "");
      EXPECT_EQ(steps[i].added, want.added);
      EXPECT_EQ(steps[i].removed, want.removed);
      EXPECT_EQ(steps[i].changed, want.changed);
      EXPECT_EQ(steps[i].renamed, want.renamed);
      EXPECT_EQ(steps[i].computations_added, want.computations_added);
      EXPECT_EQ(steps[i].computations_removed, want.computations_removed);
    }
    EXPECT_TRUE(steps[1].same_as_before);
    EXPECT_TRUE(steps.back().same_as_before);
  }
}

}  // namespace
}  // namespace hlo::history
