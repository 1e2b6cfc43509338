// Runs build/hlo-lsp (HLO_LSP_BINARY) in a scratch directory holding fixture
// files, so that paths in its output are the short names the tests wrote.
// Header-only: every *_test.cc of this folder is one binary.
#ifndef HLO_LSP_TESTS_CLI_CLI_RUNNER_H_
#define HLO_LSP_TESTS_CLI_CLI_RUNNER_H_

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "tests/sanitizers.h"

namespace hlo_lsp::testing {

struct RunResult {
  int exit_code = -1;  // -1 when killed by a signal
  std::string out;
  std::string err;
};

class CliRunner {
 public:
  CliRunner() {
    std::string pattern = ::testing::TempDir() + "hlo_cli_XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp failed";
    }
    dir_ = pattern;
  }
  ~CliRunner() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  // Writes `text` to DIR/name, byte for byte.
  void Write(const std::string& name, const std::string& text) {
    std::ofstream file(dir_ + "/" + name, std::ios::binary);
    file << text;
  }

  // Runs `hlo-lsp ARGS` (ARGS is shell syntax) with DIR as working directory.
  RunResult Run(const std::string& args) {
    const std::string err_path = dir_ + "/.stderr";
    const std::string command = "cd '" + dir_ + "' && '" HLO_LSP_BINARY "' " +
                                args + " 2>'" + err_path + "'";
    RunResult result;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) {
      ADD_FAILURE() << "popen failed: " << command;
      return result;
    }
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
      result.out.append(buffer, n);
    }
    int status = ::pclose(pipe);
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    std::ifstream err(err_path, std::ios::binary);
    std::stringstream err_text;
    err_text << err.rdbuf();
    result.err = err_text.str();
    return result;
  }

  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace hlo_lsp::testing

#endif  // HLO_LSP_TESTS_CLI_CLI_RUNNER_H_
