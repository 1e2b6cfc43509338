// cuBLAS is opened with dlopen at the first GPU dot (exec/gpu/cublas.h):
// hlo-lsp does not link it, and a missing library is a clear error. Needs
// no GPU (loading cuBLAS does not touch the device).
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "gtest/gtest.h"

#ifdef HLO_LSP_WITH_CUDA
#include "exec/gpu/cublas.h"
#endif

namespace {

#ifdef HLO_LSP_WITH_CUDA
TEST(CublasTest, MissingLibraryIsAClearError) {
  // Cublas() loads once per process: check in a freshly started child.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("HLO_LSP_CUBLAS", "/nonexistent/libcublas.so.0", 1);
        auto api = hlo::exec::gpu::Cublas();
        bool clear = !api.ok() &&
                     api.status().message().find("cuBLAS not found: ") == 0 &&
                     api.status().message().find(
                         "/nonexistent/libcublas.so.0") != std::string::npos;
        std::exit(clear ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(CublasTest, ToolkitLibraryResolvesEveryFunction) {
  auto api = hlo::exec::gpu::Cublas();
  if (!api.ok()) GTEST_SKIP() << api.status().message();
  EXPECT_NE((*api)->create, nullptr);
  EXPECT_NE((*api)->gemm_strided_batched_ex, nullptr);
  EXPECT_STREQ((*api)->status_name(CUBLAS_STATUS_SUCCESS),
               "CUBLAS_STATUS_SUCCESS");
}
#endif

// The process maps no cuBLAS at start (it would cost every process of
// hlo_exec's users ~0.1 s); checked in a freshly started child.
TEST(CublasTest, NotMappedAtStart) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::ifstream maps("/proc/self/maps");
        std::string text((std::istreambuf_iterator<char>(maps)),
                         std::istreambuf_iterator<char>());
        std::exit(text.find("libcublas") == std::string::npos ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
