// Round trip over the whole text corpus (INDEX.tsv): every clean-parsing HLO
// file not marked neg_hint goes ParsedFile -> HloModuleProto (EncodeModule)
// -> text (AppendModuleText) -> Parse. The re-parsed text must be clean and
// have the same computations, instruction counts, opcodes, result shapes,
// operand references and called computations as the original's first
// module; inline computation bodies must come back as computations with
// the same outline. Known failures are listed with a reason in
// tests/proto/corpus_roundtrip_known_failures.txt (under 1% of the files).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/proto/encode.h"
#include "hlo/proto/print.h"
#include "hlo/shape_inference.h"
#include "hlo/shape_util.h"
#include "tests/corpus_files.h"

namespace hlo::proto {
namespace {

namespace fs = std::filesystem;

using corpus_files::CorpusDir;
using corpus_files::Entry;
using corpus_files::IsFormatTemplate;
using corpus_files::IsTextProto;
using corpus_files::ReadIndex;
using corpus_files::SplitTabs;

// path -> reason, from tests/proto/corpus_roundtrip_known_failures.txt.
std::map<std::string, std::string> ReadKnownFailures() {
  std::map<std::string, std::string> known;
  std::ifstream file(fs::path(HLO_LSP_SOURCE_DIR) /
                     "tests/proto/corpus_roundtrip_known_failures.txt");
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string_view> fields = SplitTabs(line);
    known[std::string(fields[0])] =
        fields.size() > 1 ? std::string(fields[1]) : "";
  }
  return known;
}

// What must survive the trip, per instruction. Nested (anonymous) operand
// instructions get names in the proto, so they are compared through their
// parent only: the operand reference to them is "(nested)". Inline bodies
// (`to_apply={...}`) become computations of their own with generated
// names: the instruction then calls one more computation per body, whose
// outline must be the body's.
struct ComputationOutline;

struct InstructionOutline {
  std::string opcode;
  std::string shape;  // empty when the original omitted it
  std::vector<std::string> operands;
  std::vector<std::string> called;  // sorted: attribute order may change
  std::vector<ComputationOutline> inline_bodies;
};

struct ComputationOutline {
  bool parsed = true;  // false: an inline body that did not parse
  size_t instruction_count = 0;
  std::map<std::string, InstructionOutline> named;
};

using ModuleOutline = std::map<std::string, ComputationOutline>;

ComputationOutline OutlineComputation(const ParsedFile& file,
                                      const Computation& comp,
                                      size_t* computation_count) {
  ComputationOutline out;
  ++*computation_count;
  for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
    const Instruction& inst = file.instructions[i];
    ++out.instruction_count;
    if (inst.is_nested) continue;
    InstructionOutline& io = out.named[std::string(file.Name(inst))];
    io.opcode = std::string(file.Text(inst.opcode_span));
    // Only a written shape: one the parser inferred has no text, and the
    // encoder writes it with the operands' layouts.
    if (inst.shape != kNone && !IsInferredShape(file, inst.shape)) {
      // Spacing is not part of a shape: "f32[1, 2] {1,0}" = "f32[1,2]{1,0}".
      for (char ch : ShapeToString(file, inst.shape)) {
        if (ch != ' ') io.shape += ch;
      }
    }
    for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
      const Operand& operand = file.operands[o];
      io.operands.push_back(operand.nested != kNone
                                ? "(nested)"
                                : std::string(file.Text(operand.name)));
    }
    for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
      io.called.push_back(
          std::string(file.Text(file.computation_refs[r].name)));
    }
    std::sort(io.called.begin(), io.called.end());
    for (Id a = inst.attributes.begin; a < inst.attributes.end(); ++a) {
      const Attribute& attr = file.attributes[a];
      if (!IsComputationKey(file.Text(attr.key)) ||
          !IsInlineBody(file.Text(attr.value))) {
        continue;
      }
      InlineBody body = ParseInlineBody(file.Text(attr.value));
      if (body.file == nullptr) {
        io.inline_bodies.emplace_back().parsed = false;
        continue;
      }
      io.inline_bodies.push_back(OutlineComputation(
          *body.file, body.file->computations[0], computation_count));
    }
  }
  return out;
}

// The module's computations by name; `computation_count` counts inline
// bodies too.
ModuleOutline Outline(const ParsedFile& file, size_t* computation_count) {
  ModuleOutline outline;
  *computation_count = 0;
  if (file.modules.empty()) return outline;
  const Module& module = file.modules[0];
  for (Id c = module.computations.begin; c < module.computations.end(); ++c) {
    const Computation& comp = file.computations[c];
    outline[std::string(file.Name(comp))] =
        OutlineComputation(file, comp, computation_count);
  }
  return outline;
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ",") + p;
  return "{" + out + "}";
}

// The first difference between computation `name` before and after, or
// empty when they agree. A nested operand in the original matches any
// reference (the printed text names it).
std::string CompareComputation(const std::string& name,
                               const ComputationOutline& comp,
                               const ComputationOutline& back,
                               const ModuleOutline& after, int depth) {
  if (!comp.parsed) return "computation " + name + ": inline body unparsed";
  if (depth > 64) return "computation " + name + ": nested too deeply";
  if (comp.instruction_count != back.instruction_count) {
    return "computation " + name + ": " +
           std::to_string(comp.instruction_count) + " instructions became " +
           std::to_string(back.instruction_count);
  }
  for (const auto& [inst_name, inst] : comp.named) {
    auto found = back.named.find(inst_name);
    std::string where = name + "/" + inst_name + ": ";
    if (found == back.named.end()) return where + "instruction is missing";
    const InstructionOutline& b = found->second;
    if (inst.opcode != b.opcode) {
      return where + "opcode " + inst.opcode + " became " + b.opcode;
    }
    if (b.shape.empty()) return where + "shape is missing";
    if (!inst.shape.empty() && inst.shape != b.shape) {
      return where + "shape " + inst.shape + " became " + b.shape;
    }
    bool operands_match = inst.operands.size() == b.operands.size();
    for (size_t k = 0; operands_match && k < inst.operands.size(); ++k) {
      operands_match =
          inst.operands[k] == "(nested)" || inst.operands[k] == b.operands[k];
    }
    if (!operands_match) {
      return where + "operands " + Join(inst.operands) + " became " +
             Join(b.operands);
    }
    // Named callees stay; each inline body adds one callee, whose outline
    // must be the body's.
    std::vector<std::string> extra;
    std::set_difference(b.called.begin(), b.called.end(), inst.called.begin(),
                        inst.called.end(), std::back_inserter(extra));
    const bool named_kept =
        std::includes(b.called.begin(), b.called.end(), inst.called.begin(),
                      inst.called.end());
    if (!named_kept || extra.size() != inst.inline_bodies.size()) {
      return where + "calls " + Join(inst.called) + " and " +
             std::to_string(inst.inline_bodies.size()) +
             " inline bodies became " + Join(b.called);
    }
    std::vector<bool> used(extra.size(), false);
    for (size_t k = 0; k < inst.inline_bodies.size(); ++k) {
      std::string first_difference = "no computation for it";
      for (size_t e = 0; e < extra.size(); ++e) {
        auto callee = after.find(extra[e]);
        if (used[e] || callee == after.end()) continue;
        std::string difference = CompareComputation(
            extra[e], inst.inline_bodies[k], callee->second, after, depth + 1);
        if (difference.empty()) {
          used[e] = true;
          first_difference.clear();
          break;
        }
        first_difference = difference;
      }
      if (!first_difference.empty()) {
        return where + "inline body " + std::to_string(k) + ": " +
               first_difference;
      }
    }
  }
  return "";
}

std::string FirstDifference(const ModuleOutline& before, size_t before_count,
                            const ModuleOutline& after) {
  for (const auto& [name, comp] : before) {
    auto it = after.find(name);
    if (it == after.end()) return "computation " + name + " is missing";
    std::string difference =
        CompareComputation(name, comp, it->second, after, 0);
    if (!difference.empty()) return difference;
  }
  if (after.size() != before_count) {
    return std::to_string(before_count) +
           " computations (inline bodies included) became " +
           std::to_string(after.size());
  }
  return "";
}

std::string FirstError(const ParsedFile& file) {
  for (const Diagnostic& d : file.diagnostics) {
    if (d.severity != Severity::kError) continue;
    LineColumn at = file.lines().ToLineColumn(d.span.begin);
    return "line " + std::to_string(at.line + 1) + ": " + d.message;
  }
  return "";
}

// Empty on success, else what went wrong first. Adds the printed bytes and
// the print time to the totals.
std::string RoundTrip(const ParsedFile& original, double* printed_bytes,
                      double* print_seconds) {
  absl::StatusOr<xla::HloModuleProto> module = EncodeModule(original);
  if (!module.ok()) return "encode: " + std::string(module.status().message());
  std::string text;
  auto start = std::chrono::steady_clock::now();
  AppendModuleText(*module, PrintOptions(), &text);
  *print_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  *printed_bytes += text.size();
  std::unique_ptr<ParsedFile> back = Parse(text);
  if (back->HasErrors()) return "printed text has errors: " + FirstError(*back);
  size_t before_count = 0, after_count = 0;
  ModuleOutline before = Outline(original, &before_count);
  return FirstDifference(before, before_count, Outline(*back, &after_count));
}

TEST(ProtoCorpus, TextProtoTextRoundTripKeepsTheOutline) {
  const fs::path corpus = CorpusDir();
  const char* ci = std::getenv("CI");
  const bool in_ci = ci != nullptr && std::string_view(ci) == "true";
  if (!fs::exists(corpus / "INDEX.tsv")) {
    if (in_ci) FAIL() << "CI=true but the corpus is missing: " << corpus;
    GTEST_SKIP() << "no corpus at " << corpus << " (set HLO_LSP_CORPUS)";
  }
  std::vector<Entry> entries = ReadIndex(corpus / "INDEX.tsv");
  std::map<std::string, std::string> known = ReadKnownFailures();
  ASSERT_GT(entries.size(), 0u);

  size_t files = 0, passed = 0, known_failing = 0;
  double printed_bytes = 0, print_seconds = 0;
  std::set<std::string> known_seen;
  std::vector<std::string> unexpected;
  for (const Entry& entry : entries) {
    if (entry.neg_hint || entry.path.ends_with(".pb") ||
        entry.path.ends_with(".pb.gz")) {
      continue;
    }
    std::ifstream in(corpus / entry.path, std::ios::binary);
    if (!in) continue;  // the corpus test reports unreadable entries
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    if (IsTextProto(text) || IsFormatTemplate(text)) continue;
    std::unique_ptr<ParsedFile> original = Parse(text);
    if (original->HasErrors() || original->modules.empty()) continue;
    ++files;
    std::string difference =
        RoundTrip(*original, &printed_bytes, &print_seconds);
    bool listed = known.count(entry.path) > 0;
    if (listed) known_seen.insert(entry.path);
    if (difference.empty()) {
      ++passed;
      if (listed) {
        std::printf("known round-trip failure now passes, remove it: %s\n",
                    entry.path.c_str());
      }
    } else if (listed) {
      ++known_failing;
    } else {
      unexpected.push_back(entry.path + ": " + difference);
    }
  }
  for (const auto& [path, reason] : known) {
    if (!known_seen.count(path)) {
      std::printf("known round-trip failure not seen (gone or not clean): %s\n",
                  path.c_str());
    }
  }
  // HLO_LSP_ROUNDTRIP_ALL=1 lists every failure, not just the first ones.
  const bool list_all = std::getenv("HLO_LSP_ROUNDTRIP_ALL") != nullptr;
  for (size_t k = 0; k < unexpected.size() && (list_all || k < 30); ++k) {
    std::printf("round trip failed: %s\n", unexpected[k].c_str());
  }
  std::printf(
      "round trip: %zu files, %zu passed, %zu failed (%zu allow-listed, %zu "
      "unexpected); proto -> text %.1f MB at %.1f MB/s\n",
      files, passed, files - passed, known_failing, unexpected.size(),
      printed_bytes / 1e6,
      print_seconds > 0 ? printed_bytes / 1e6 / print_seconds : 0.0);
  EXPECT_LT(known.size() * 100, files)
      << "the allow-list must stay under 1% of the files";
  EXPECT_TRUE(unexpected.empty())
      << unexpected.size()
      << " files fail the round trip (first ones above); fix the encoder or "
         "printer, or list them with a reason in "
         "tests/proto/corpus_roundtrip_known_failures.txt";
}

}  // namespace
}  // namespace hlo::proto
