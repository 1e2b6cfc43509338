#include "server/cli/commands.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <new>
#include <system_error>

#include "base/large_buffer.h"

namespace hlo_lsp::cli {
namespace {

#ifndef HLO_LSP_VERSION
#define HLO_LSP_VERSION "unknown"
#endif

// One line per subcommand.
constexpr Subcommand kSubcommands[] = {
    {"check", "report syntax errors and undefined names", RunCheck},
    {"outline", "list modules and computations", RunOutline},
    {"convert", "convert XLA HLO protos to text and back", RunConvert},
    {"search", "find symbols in HLO files under folders", RunSearch},
    {"replay", "run a module (CPU or GPU) with fake or given arguments",
     RunReplay, /*one_shot_heap=*/false},
    {"files", "list the files XLA wrote for a module", RunFiles},
    {"diff", "compare two modules: added, removed, renamed, changed", RunDiff},
    {"passes", "the pass timeline of a module: what each pass changed",
     RunPasses},
    {"graph", "draw a computation's dataflow graph (Graphviz SVG)", RunGraph},
    {"bundle", "one .tar.gz of a module's files for a bug report", RunBundle,
     /*one_shot_heap=*/false},  // streams: its memory never grows
    {"memory", "a module's buffer assignment, peak and OOM-log buffers",
     RunMemory},
};

void PrintHelp(std::FILE* out) {
  std::fprintf(out,
               "hlo-lsp %s: language server and tools for XLA HLO text\n\n"
               "usage:\n"
               "  hlo-lsp [--stdio]             serve LSP on stdin/stdout\n"
               "  hlo-lsp SUBCOMMAND [ARGS...]  run a tool "
               "(hlo-lsp SUBCOMMAND --help)\n"
               "  hlo-lsp --version | --help\n\nsubcommands:\n",
               HLO_LSP_VERSION);
  for (const Subcommand& command : kSubcommands) {
    std::fprintf(out, "  %-10.*s %.*s\n", static_cast<int>(command.name.size()),
                 command.name.data(), static_cast<int>(command.summary.size()),
                 command.summary.data());
  }
  std::fprintf(out,
               "\nexit codes: 0 success, 1 bad input or no answer, "
               "2 usage or I/O error, 3 run failure\n");
}

// Flushes stdout and turns a failed write (a full disk, a closed pipe) into
// the contract's I/O error: a command whose output was lost did not succeed.
int FinishStdout(int exit_code) {
  bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (!failed) return exit_code;
  int error = errno;  // the failed write's, or at worst a recent call's
  std::fprintf(stderr, "hlo-lsp: cannot write the output: %s\n",
               error != 0 ? std::strerror(error) : "write error");
  return kExitUsage;
}

}  // namespace

std::span<const Subcommand> Subcommands() { return kSubcommands; }

const Subcommand* FindSubcommand(std::string_view name) {
  for (const Subcommand& command : kSubcommands) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

bool WantsHelp(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0)
      return true;
  }
  return false;
}

int RunCommandLine(int argc, char** argv) {
  std::string_view first = argc > 1 ? argv[1] : "";
  if (first == "--help" || first == "-h" || first == "help") {
    PrintHelp(stdout);
    return FinishStdout(kExitOk);
  }
  if (first == "--version") {
    std::printf("hlo-lsp %s\n", HLO_LSP_VERSION);
    return FinishStdout(kExitOk);
  }
  if (const Subcommand* command = FindSubcommand(first)) {
    if (command->one_shot_heap) hlo::base::ConfigureOneShotHeap();
    // The one place an exception is caught: memory or a thread the system
    // refuses (under a tight ulimit -v, say) ends the command with a clear
    // error instead of an abort.
    try {
      return FinishStdout(command->run(argc - 1, argv + 1));
    } catch (const std::bad_alloc&) {
      std::fprintf(stderr, "hlo-lsp %.*s: %s\n", static_cast<int>(first.size()),
                   first.data(), kOutOfMemory);
    } catch (const std::system_error& e) {
      std::fprintf(stderr,
                   "hlo-lsp %.*s: the system refused a thread or lock (%s; "
                   "is ulimit -u or -v too small?)\n",
                   static_cast<int>(first.size()), first.data(), e.what());
    }
    return kExitUsage;
  }
  std::fprintf(stderr, "hlo-lsp: unknown command '%.*s'\n\n",
               static_cast<int>(first.size()), first.data());
  PrintHelp(stderr);
  return kExitUsage;
}

}  // namespace hlo_lsp::cli
