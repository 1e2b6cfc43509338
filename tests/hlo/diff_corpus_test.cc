// DiffModules on the corpus's two largest HLO text models against copies
// with generated edits (every 50th instruction renamed with its uses, an
// unused one dropped, a shape changed): the diff must be exactly those.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "gtest/gtest.h"
#include "hlo/diff.h"
#include "hlo/parser.h"
#include "tests/corpus_files.h"

namespace hlo {
namespace {

namespace fs = std::filesystem;

struct Model {
  std::string path;
  std::string text;
};

// The two largest files of the corpus that are HLO text and parse cleanly.
std::vector<Model> LargestModels(const fs::path& corpus) {
  std::vector<std::pair<uintmax_t, std::string>> by_size;
  for (const corpus_files::Entry& entry :
       corpus_files::ReadIndex(corpus / "INDEX.tsv")) {
    if (entry.path.ends_with(".pb") || entry.path.ends_with(".pb.gz")) continue;
    std::error_code error;
    uintmax_t size = fs::file_size(corpus / entry.path, error);
    if (!error) by_size.emplace_back(size, entry.path);
  }
  std::sort(by_size.rbegin(), by_size.rend());
  std::vector<Model> models;
  for (const auto& [size, path] : by_size) {
    std::ifstream in(corpus / path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    if (corpus_files::IsTextProto(text) || corpus_files::IsFormatTemplate(text))
      continue;
    if (Parse(text)->HasErrors()) continue;
    models.push_back(Model{path, std::move(text)});
    if (models.size() == 2) break;
  }
  return models;
}

struct Edit {
  Offset begin, end;
  std::string text;
};

// A's text with the edits applied, and the diff they must give.
struct Edited {
  std::string text;
  ModuleDiff expected;
  bool dropped = false;
};

bool Blank(std::string_view text) {
  return text.find_first_not_of(" \t\r") == std::string_view::npos;
}

Edited MakeEdits(const ParsedFile& file) {
  Edited out;
  std::vector<Edit> edits;
  std::vector<std::vector<Id>> control_refs(file.instructions.size());
  for (Id r = 0; r < file.name_refs.size(); ++r) {
    if (file.name_refs[r].definition != kNone) {
      control_refs[file.name_refs[r].definition].push_back(r);
    }
  }
  auto used = [&](Id i) {
    return file.use_offsets[i + 1] > file.use_offsets[i] ||
           !control_refs[i].empty();
  };
  std::vector<bool> renamed(file.instructions.size(), false);
  bool& dropped = out.dropped;
  bool reshaped = false;
  int count = 0;
  const Module& module = file.modules[0];
  for (Id c = module.computations.begin; c < module.computations.end(); ++c) {
    const Computation& comp = file.computations[c];
    std::string comp_name(file.Name(comp));
    absl::flat_hash_set<std::string_view> names;
    for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
      names.insert(file.Name(file.instructions[i]));
    }
    for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
      const Instruction& inst = file.instructions[i];
      if (inst.is_nested) continue;
      std::string name(file.Name(inst));
      if (count++ % 50 == 0 && !name.starts_with("diff.") &&
          !names.contains(name + ".d50")) {
        std::string to = name + ".d50";
        renamed[i] = true;
        edits.push_back(Edit{inst.name.begin, inst.name.end, to});
        for (Id e = file.use_offsets[i]; e < file.use_offsets[i + 1]; ++e) {
          Span use = file.operands[file.use_edges[e].operand].name;
          edits.push_back(Edit{use.begin, use.end, to});
        }
        for (Id r : control_refs[i]) {
          Span use = file.name_refs[r].name;
          edits.push_back(Edit{use.begin, use.end, to});
        }
        out.expected.renamed.push_back(DiffRename{comp_name, name, to});
        continue;
      }
      bool operands_renamed = false;
      for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
        Id d = file.operands[o].definition;
        operands_renamed |= d == kNone || renamed[d];
      }
      const uint32_t line = file.lines().LineOf(inst.span.begin);
      const Offset line_begin = file.lines().LineStart(line);
      const Offset line_end = file.lines().LineEnd(line);
      if (!dropped && !inst.is_root && inst.opcode != Opcode::kParameter &&
          !used(i) && !operands_renamed && inst.called.empty() &&
          file.lines().LineOf(inst.span.end) == line &&
          Blank(file.text().substr(line_begin, inst.span.begin - line_begin)) &&
          Blank(file.text().substr(inst.span.end, line_end - inst.span.end))) {
        dropped = true;
        Offset next = line + 1 < file.lines().line_count()
                          ? file.lines().LineStart(line + 1)
                          : line_end;
        edits.push_back(Edit{line_begin, next, ""});
        out.expected.removed.push_back(DiffInstruction{
            comp_name, name, std::string(file.Text(inst.opcode_span)),
            std::string(file.Text(file.shapes[inst.shape].span)),
            static_cast<int64_t>(line) + 1});
        continue;
      }
      if (!reshaped && !inst.is_root && inst.shape != kNone &&
          inst.opcode != Opcode::kConstant &&
          inst.opcode != Opcode::kParameter && !inst.operands.empty()) {
        // Shapes are interned: the span is the first of that text, so the
        // instruction's own is found between its name and its opcode.
        std::string_view old_shape = file.Text(file.shapes[inst.shape].span);
        if (!old_shape.starts_with("f32[")) continue;
        Offset at =
            static_cast<Offset>(file.text().find(old_shape, inst.name.end));
        if (at >= inst.opcode_span.begin) continue;
        reshaped = true;
        std::string new_shape = "s32[" + std::string(old_shape.substr(4));
        edits.push_back(Edit{at, at + 4, "s32["});
        out.expected.changed.push_back(DiffChange{
            comp_name, name, "shape", std::string(old_shape), new_shape});
      }
    }
  }
  EXPECT_TRUE(reshaped) << "no instruction fit the shape edit";
  std::sort(edits.begin(), edits.end(),
            [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
  out.text = std::string(file.text());
  for (const Edit& edit : edits) {
    out.text.replace(edit.begin, edit.end - edit.begin, edit.text);
  }
  return out;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

TEST(DiffCorpusTest, GeneratedEditsOfTheLargestModelsAreExact) {
  fs::path corpus = corpus_files::CorpusDir();
  if (!fs::exists(corpus / "INDEX.tsv")) {
    GTEST_SKIP() << "no corpus at " << corpus << " (set HLO_LSP_CORPUS)";
  }
  std::vector<Model> models = LargestModels(corpus);
  ASSERT_EQ(models.size(), 2u);
  for (const Model& model : models) {
    SCOPED_TRACE(model.path);
    std::unique_ptr<ParsedFile> a = Parse(model.text);
    ASSERT_FALSE(a->modules.empty());
    EXPECT_TRUE(DiffModules(*a, *a).empty());
    Edited edited = MakeEdits(*a);
    std::string with_dead;
    if (!edited.dropped) {
      // Optimized models hold no dead code: give A one to drop, after the
      // first line of the entry computation's body.
      const Computation& entry = a->computations[a->modules[0].entry];
      size_t at = model.text.find('\n', entry.body.begin) + 1;
      with_dead = model.text;
      with_dead.insert(at, "  %diff.dead = f32[] constant(0)\n");
      a = Parse(with_dead);
      ASSERT_FALSE(a->HasErrors());
      edited = MakeEdits(*a);
      ASSERT_TRUE(edited.dropped);
    }
    auto start = std::chrono::steady_clock::now();
    std::unique_ptr<ParsedFile> b = Parse(edited.text);
    double parse = Seconds(start);
    start = std::chrono::steady_clock::now();
    ModuleDiff diff = DiffModules(*a, *b);
    double seconds = Seconds(start);
    std::printf(
        "%s: %zu instructions, %zu renamed, parse %.3f s, diff %.3f s\n",
        model.path.c_str(), a->instructions.size(),
        edited.expected.renamed.size(), parse, seconds);
    EXPECT_TRUE(diff.added.empty());
    EXPECT_TRUE(diff.computations_added.empty());
    EXPECT_TRUE(diff.computations_removed.empty());
    ASSERT_EQ(diff.renamed.size(), edited.expected.renamed.size());
    for (size_t i = 0; i < diff.renamed.size(); ++i) {
      EXPECT_EQ(diff.renamed[i].computation,
                edited.expected.renamed[i].computation);
      EXPECT_EQ(diff.renamed[i].from, edited.expected.renamed[i].from);
      EXPECT_EQ(diff.renamed[i].to, edited.expected.renamed[i].to);
    }
    ASSERT_EQ(diff.removed.size(), 1u);
    const DiffInstruction& removed = edited.expected.removed[0];
    EXPECT_EQ(diff.removed[0].computation, removed.computation);
    EXPECT_EQ(diff.removed[0].name, removed.name);
    EXPECT_EQ(diff.removed[0].opcode, removed.opcode);
    EXPECT_EQ(diff.removed[0].shape, removed.shape);
    EXPECT_EQ(diff.removed[0].line, removed.line);
    ASSERT_EQ(diff.changed.size(), 1u);
    const DiffChange& changed = edited.expected.changed[0];
    EXPECT_EQ(diff.changed[0].computation, changed.computation);
    EXPECT_EQ(diff.changed[0].name, changed.name);
    EXPECT_EQ(diff.changed[0].field, "shape");
    EXPECT_EQ(diff.changed[0].old_value, changed.old_value);
    EXPECT_EQ(diff.changed[0].new_value, changed.new_value);
  }
}

}  // namespace
}  // namespace hlo
