// `hlo-lsp graph FILE [--computation C] [--around NAME] [--depth N]
// [--max-nodes N] [--format svg|dot] [-o OUT]`: the dataflow picture of a
// computation or of one instruction's neighbourhood (hlo/graph.h), laid out
// by Graphviz (server/common/graph_render.h).
#include "hlo/graph.h"

#include <charconv>
#include <cstdio>
#include <memory>
#include <string>

#include "hlo/parser.h"
#include "hlo/query.h"
#include "server/cli/commands.h"
#include "server/cli/hlo_input.h"
#include "server/cli/simple_args.h"
#include "server/common/graph_view.h"

namespace hlo_lsp::cli {
namespace {

constexpr char kGraphUsage[] =
    "usage: hlo-lsp graph FILE [--computation C] [--around NAME] [--depth N]\n"
    "                  [--max-nodes N] [--format svg|dot] [-o OUT]\n\n"
    "Draws the dataflow graph (operand -> user) of computation C (default:\n"
    "the first module's ENTRY), or only the instructions within N edges of\n"
    "NAME either way (default 2), laid out by Graphviz. A node shows name,\n"
    "opcode (a fusion its kind) and shape; a dashed edge comes from each\n"
    "called computation. Over --max-nodes (default 500) instructions the\n"
    "graph is cut to the nearest ones and says so, also on stderr.\n"
    "SVG node ids are node_NAME (computation_NAME for called computations).\n"
    "--format dot prints Graphviz input instead; -o writes OUT, not stdout.\n"
    "exit: 0 drawn, 1 no such computation or instruction (or Graphviz\n"
    "failed), 2 usage or I/O error\n";

bool ParseCount(const std::string& text, int64_t min, int64_t* out) {
  const char* end = text.data() + text.size();
  auto [ptr, error] = std::from_chars(text.data(), end, *out);
  return error == std::errc() && ptr == end && *out >= min;
}

bool WriteAll(const std::string& path, const std::string& data) {
  std::FILE* out = path.empty() ? stdout : std::fopen(path.c_str(), "wb");
  if (out == nullptr) return false;
  bool ok = std::fwrite(data.data(), 1, data.size(), out) == data.size();
  if (out != stdout) ok = std::fclose(out) == 0 && ok;
  return ok;
}

}  // namespace

int RunGraph(int argc, char** argv) {
  if (WantsHelp(argc, argv)) {
    std::fputs(kGraphUsage, stdout);
    return kExitOk;
  }
  auto args = ParseSimpleArgs(
      argc, argv, "graph", kGraphUsage, {},
      {"--computation", "--around", "--depth", "--max-nodes", "--format", "-o"},
      1, 1);
  if (!args) return kExitUsage;
  int64_t depth = 2, max_nodes = 500;
  std::string format =
      args->values.count("--format") ? args->value("--format") : "svg";
  if ((args->values.count("--depth") &&
       !ParseCount(args->value("--depth"), 0, &depth)) ||
      (args->values.count("--max-nodes") &&
       !ParseCount(args->value("--max-nodes"), 1, &max_nodes)) ||
      (format != "svg" && format != "dot")) {
    std::fprintf(stderr,
                 "hlo-lsp graph: --depth takes N >= 0, --max-nodes N >= 1, "
                 "--format svg or dot\n%s",
                 kGraphUsage);
    return kExitUsage;
  }
  const std::string& path = args->operands[0];
  HloInput input;
  switch (ReadHloInput(path, &input)) {
    case HloInputError::kRead:
      return kExitUsage;
    case HloInputError::kDecode:
      return kExitNo;
    case HloInputError::kNone:
      break;
  }
  hlo::ParseOptions parse_options;
  parse_options.validate_attributes = false;  // names and edges are enough
  std::unique_ptr<hlo::ParsedFile> file = hlo::Parse(input.text, parse_options);
  if (file->HasErrors()) {
    std::fprintf(stderr,
                 "hlo-lsp: %s has errors; drawing what parsed ('hlo-lsp "
                 "check %s' lists them)\n",
                 path.c_str(), path.c_str());
  }

  hlo::GraphOptions options;
  std::string computation_name = args->value("--computation");
  if (args->values.count("--computation")) {
    options.computation = hlo::FindComputation(*file, computation_name);
  } else if (!file->modules.empty()) {
    options.computation = file->modules[0].entry;
  }
  if (options.computation == hlo::kNone) {
    std::fprintf(stderr, "hlo-lsp graph: %s: no computation %s\n", path.c_str(),
                 computation_name.empty() ? "ENTRY" : computation_name.c_str());
    return kExitNo;
  }
  const hlo::Computation& computation = file->computations[options.computation];
  std::string title = std::string(computation.is_entry ? "ENTRY " : "") +
                      std::string(file->Name(computation));
  if (args->values.count("--around")) {
    std::string name = args->value("--around");
    if (!name.empty() && name[0] == '%') name.erase(0, 1);
    options.around = hlo::FindInstruction(*file, options.computation, name);
    if (options.around == hlo::kNone) {
      std::fprintf(stderr, "hlo-lsp graph: %s: no instruction %s in %s\n",
                   path.c_str(), name.c_str(),
                   std::string(file->Name(computation)).c_str());
      return kExitNo;
    }
    title += ": within " + std::to_string(depth) + " edges of " + name;
  }
  options.depth = static_cast<int>(std::min<int64_t>(depth, 1 << 20));
  options.max_nodes = static_cast<size_t>(max_nodes);
  hlo::Graph graph = hlo::SelectGraph(*file, options);
  if (graph.cut()) {
    std::fprintf(stderr, "hlo-lsp graph: %s\n", CutNote(graph).c_str());
  }
  GraphView view = ViewGraph(*file, graph, title);
  absl::StatusOr<std::string> drawn = Render(
      view.picture, format == "dot" ? RenderFormat::kDot : RenderFormat::kSvg);
  if (!drawn.ok()) {
    std::fprintf(stderr, "hlo-lsp graph: %s\n",
                 std::string(drawn.status().message()).c_str());
    return kExitNo;
  }
  std::string out_path = args->value("-o");
  if (!WriteAll(out_path, *drawn)) {
    std::fprintf(stderr, "hlo-lsp graph: cannot write %s\n",
                 out_path.empty() ? "stdout" : out_path.c_str());
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace hlo_lsp::cli
