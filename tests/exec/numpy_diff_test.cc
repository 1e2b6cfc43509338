// Runs tests/exec/numpy_diff.py: `hlo-lsp replay --args/--out` against
// NumPy references on many small modules. Skips cleanly without the binary,
// /usr/bin/python3 or NumPy (Debian's python3-numpy serves /usr/bin/python3).
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "gtest/gtest.h"

namespace {

TEST(NumpyDiffTest, ReplayMatchesNumpy) {
  if (!std::filesystem::exists(HLO_LSP_BINARY)) GTEST_SKIP() << "no binary";
  if (!std::filesystem::exists("/usr/bin/python3"))
    GTEST_SKIP() << "no python3";
  const std::string workdir = ::testing::TempDir() + "/numpy_diff";
  const std::string cmd = std::string("/usr/bin/python3 ") +
                          HLO_LSP_SOURCE_DIR + "/tests/exec/numpy_diff.py " +
                          HLO_LSP_BINARY + " " + workdir + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  const int code = WEXITSTATUS(status);
  if (code == 77) GTEST_SKIP() << out;  // no numpy
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("numpy_diff: 0 of"), std::string::npos) << out;
}

}  // namespace
