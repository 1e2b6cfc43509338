// The command-line face of hlo-lsp: one table of subcommands. Adding one is
// one line in commands.cc plus its Run function (declared here).
#ifndef HLO_LSP_SERVER_CLI_COMMANDS_H_
#define HLO_LSP_SERVER_CLI_COMMANDS_H_

#include <span>
#include <string_view>

namespace hlo_lsp::cli {

// Exit codes shared by every subcommand (contracts.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitNo = 1;      // bad input / the answer is no
inline constexpr int kExitUsage = 2;   // usage or I/O error
inline constexpr int kExitFailed = 3;  // replay failed while running

// What a command, or check of one file, that ran out of memory says
// (after `hlo-lsp COMMAND: ` or the file's name); the exit is kExitUsage.
inline constexpr char kOutOfMemory[] =
    "out of memory (is an address-space limit, ulimit -v, too small for "
    "the input?)";

// `run` gets argv with argv[0] = the subcommand name, so argv[1..] are its
// own arguments. It handles `--help` itself (see WantsHelp).
struct Subcommand {
  std::string_view name, summary;
  int (*run)(int argc, char** argv);
  // Reads its inputs, answers and exits: its malloc heaps keep freed memory
  // and take huge pages (base::ConfigureOneShotHeap), set up before it
  // runs. Faults were a quarter of `check`'s CPU time on a dump folder and
  // a third of `convert`'s; in small steps each of `search`'s index threads
  // made ~2,000 mprotect calls on a 1 GiB folder. Not replay, whose child
  // runs a module under memory limits, nor bundle, which streams.
  bool one_shot_heap = true;
};

// Every subcommand, in the order `hlo-lsp --help` lists them.
std::span<const Subcommand> Subcommands();
const Subcommand* FindSubcommand(std::string_view name);

// Dispatches `hlo-lsp ARGS...` (argv[0] = the program) when ARGS is not the
// language server's: --help, --version or a subcommand.
int RunCommandLine(int argc, char** argv);

// True when any argument is --help or -h.
bool WantsHelp(int argc, char** argv);

// Subcommand entry points, one file each under server/cli/.
int RunCheck(int argc, char** argv);    // check.cc
int RunOutline(int argc, char** argv);  // outline.cc
int RunConvert(int argc, char** argv);  // convert.cc
int RunSearch(int argc, char** argv);   // search.cc
int RunReplay(int argc, char** argv);   // replay.cc
int RunDiff(int argc, char** argv);     // diff.cc
int RunFiles(int argc, char** argv);    // files.cc
int RunPasses(int argc, char** argv);   // passes.cc
int RunGraph(int argc, char** argv);    // graph.cc
int RunBundle(int argc, char** argv);   // bundle.cc
int RunMemory(int argc, char** argv);   // memory.cc

}  // namespace hlo_lsp::cli

#endif  // HLO_LSP_SERVER_CLI_COMMANDS_H_
