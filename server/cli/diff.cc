// `hlo-lsp diff A B [--json] [--metadata]`: the structural difference of the
// first module of two files (hlo/diff.h), like diff: exit 0 when equal, 1
// when they differ. Proto dumps diff as the text they convert to.
#include "hlo/diff.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hlo/parser.h"
#include "nlohmann/json.hpp"
#include "server/cli/commands.h"
#include "server/cli/hlo_input.h"
#include "server/cli/simple_args.h"

namespace hlo_lsp::cli {
namespace {

constexpr char kDiffUsage[] =
    "usage: hlo-lsp diff A B [--json] [--metadata]\n\n"
    "Compares the first module of A with that of B: computations match by\n"
    "name; instructions by name, then by opcode, shape and operands "
    "(renames).\n"
    "One line each (computations first, then instructions):\n"
    "  - computation NAME             a computation only in A (+: only in B)\n"
    "  - COMP NAME                    an instruction only in A (+: only in B)\n"
    "  > COMP OLD NEW                 an instruction renamed\n"
    "  ~ COMP NAME FIELD: OLD -> NEW  a field changed: shape (layout\n"
    "                                 included), opcode, operands, "
    "attributes,\n"
    "                                 metadata (only with --metadata)\n"
    "--json prints {\"added\":[{\"computation\",\"name\",\"opcode\",\"shape\","
    "\"line\"}],\n  \"removed\":[same, line in "
    "A],\"renamed\":[{\"computation\","
    "\"from\",\"to\"}],\n  \"changed\":[{\"computation\",\"name\",\"field\","
    "\"old\",\"new\"}],\n  \"computations\":{\"added\":[..],\"removed\":[..]}} "
    "(1-based lines).\n"
    "A file's syntax errors go to stderr and what parsed is compared;\n"
    ".pb/.pb.gz dumps compare as their HLO text.\n"
    "exit: 0 equal, 1 they differ, 2 usage or I/O error\n";

constexpr size_t kMaxErrorsShown = 10;

// One input: its text (read, or a proto's text view) and its parse.
struct Input {
  HloInput hlo;
  std::unique_ptr<hlo::ParsedFile> file;
};

bool Load(const std::string& path, Input* input) {
  if (ReadHloInput(path, &input->hlo) != HloInputError::kNone) return false;
  input->file = hlo::Parse(input->hlo.text);
  return true;
}

// The file's errors (not warnings) in text order, at most kMaxErrorsShown.
void PrintErrors(const std::string& path, const hlo::ParsedFile& file) {
  std::vector<const hlo::Diagnostic*> errors;
  for (const hlo::Diagnostic& d : file.diagnostics) {
    if (d.severity == hlo::Severity::kError) errors.push_back(&d);
  }
  std::stable_sort(errors.begin(), errors.end(),
                   [](const hlo::Diagnostic* a, const hlo::Diagnostic* b) {
                     return a->span.begin < b->span.begin;
                   });
  for (size_t i = 0; i < errors.size() && i < kMaxErrorsShown; ++i) {
    hlo::LineColumn at = file.lines().ToLineColumn(errors[i]->span.begin);
    std::string message = errors[i]->message;
    std::replace(message.begin(), message.end(), '\n', ' ');
    std::fprintf(stderr, "%s:%u:%u: error: %s\n", path.c_str(), at.line + 1,
                 at.column + 1, message.c_str());
  }
  if (errors.size() > kMaxErrorsShown || file.diagnostics_truncated) {
    std::fprintf(stderr, "hlo-lsp: %s: %s more errors not shown\n",
                 path.c_str(),
                 file.diagnostics_truncated
                     ? "many"
                     : std::to_string(errors.size() - kMaxErrorsShown).c_str());
  }
}

void PrintText(const hlo::ModuleDiff& diff) {
  for (const std::string& c : diff.computations_removed) {
    std::printf("- computation %s\n", c.c_str());
  }
  for (const std::string& c : diff.computations_added) {
    std::printf("+ computation %s\n", c.c_str());
  }
  for (const hlo::DiffInstruction& i : diff.removed) {
    std::printf("- %s %s\n", i.computation.c_str(), i.name.c_str());
  }
  for (const hlo::DiffInstruction& i : diff.added) {
    std::printf("+ %s %s\n", i.computation.c_str(), i.name.c_str());
  }
  for (const hlo::DiffRename& r : diff.renamed) {
    std::printf("> %s %s %s\n", r.computation.c_str(), r.from.c_str(),
                r.to.c_str());
  }
  for (const hlo::DiffChange& c : diff.changed) {
    std::printf("~ %s %s %s: %s -> %s\n", c.computation.c_str(), c.name.c_str(),
                c.field.c_str(), c.old_value.c_str(), c.new_value.c_str());
  }
}

nlohmann::ordered_json Instructions(
    const std::vector<hlo::DiffInstruction>& list) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const hlo::DiffInstruction& i : list) {
    out.push_back({{"computation", i.computation},
                   {"name", i.name},
                   {"opcode", i.opcode},
                   {"shape", i.shape},
                   {"line", i.line}});
  }
  return out;
}

void PrintJson(const hlo::ModuleDiff& diff) {
  nlohmann::ordered_json renamed = nlohmann::ordered_json::array();
  for (const hlo::DiffRename& r : diff.renamed) {
    renamed.push_back(
        {{"computation", r.computation}, {"from", r.from}, {"to", r.to}});
  }
  nlohmann::ordered_json changed = nlohmann::ordered_json::array();
  for (const hlo::DiffChange& c : diff.changed) {
    changed.push_back({{"computation", c.computation},
                       {"name", c.name},
                       {"field", c.field},
                       {"old", c.old_value},
                       {"new", c.new_value}});
  }
  nlohmann::ordered_json out = {{"added", Instructions(diff.added)},
                                {"removed", Instructions(diff.removed)},
                                {"renamed", std::move(renamed)},
                                {"changed", std::move(changed)},
                                {"computations",
                                 {{"added", diff.computations_added},
                                  {"removed", diff.computations_removed}}}};
  // Names come from the files and may hold invalid UTF-8: replace, not throw.
  std::string text = out.dump(-1, ' ', false,
                              nlohmann::ordered_json::error_handler_t::replace);
  std::printf("%s\n", text.c_str());
}

}  // namespace

int RunDiff(int argc, char** argv) {
  if (WantsHelp(argc, argv)) {
    std::fputs(kDiffUsage, stdout);
    return kExitOk;
  }
  std::optional<SimpleArgs> args = ParseSimpleArgs(
      argc, argv, "diff", kDiffUsage, {"--json", "--metadata"}, {}, 2, 2);
  if (!args) return kExitUsage;
  const std::vector<std::string>& paths = args->operands;
  const bool json = args->has("--json");
  hlo::DiffOptions options;
  options.metadata = args->has("--metadata");
  Input a, b;
  if (!Load(paths[0], &a) || !Load(paths[1], &b)) return kExitUsage;
  PrintErrors(paths[0], *a.file);
  PrintErrors(paths[1], *b.file);
  hlo::ModuleDiff diff = hlo::DiffModules(*a.file, *b.file, options);
  if (json) {
    PrintJson(diff);
  } else {
    PrintText(diff);
  }
  return diff.empty() ? kExitOk : kExitNo;
}

}  // namespace hlo_lsp::cli
