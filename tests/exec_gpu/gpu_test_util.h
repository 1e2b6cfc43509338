// Helpers for the GPU backend tests: parsing, and the skip without a GPU.
#ifndef HLO_LSP_TESTS_EXEC_GPU_GPU_TEST_UTIL_H_
#define HLO_LSP_TESTS_EXEC_GPU_GPU_TEST_UTIL_H_

#include <memory>
#include <string>

#include "exec/platform.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"

namespace hlo::exec::testing {

struct Parsed {
  std::string text;
  std::unique_ptr<ParsedFile> file;
};

inline Parsed ParseModule(std::string text) {
  Parsed p;
  p.text = std::move(text);
  p.file = Parse(p.text);
  return p;
}

// The device, asked in a child so that a test process which later forks
// replay children has not initialized CUDA itself.
inline const GpuInfo& Gpu() {
  static const GpuInfo info = QueryGpuInChild();
  return info;
}

}  // namespace hlo::exec::testing

// Skips the test (with the reason) when no GPU answers.
#define REQUIRE_GPU()                                         \
  do {                                                        \
    if (!::hlo::exec::testing::Gpu().available())             \
      GTEST_SKIP() << ::hlo::exec::testing::Gpu().Describe(); \
  } while (0)

#endif  // HLO_LSP_TESTS_EXEC_GPU_GPU_TEST_UTIL_H_
