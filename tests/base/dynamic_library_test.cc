#include "base/dynamic_library.h"

#include <zlib.h>

#include <string>

#include "gtest/gtest.h"

namespace hlo::base {
namespace {

TEST(DynamicLibraryTest, LoadsTheFirstLibraryThatOpensAndItsFunctions) {
  absl::StatusOr<DynamicLibrary> zlib =
      DynamicLibrary::Open({"libhlo-lsp-no-such-library.so", "", "libz.so.1"});
  ASSERT_TRUE(zlib.ok()) << zlib.status();
  EXPECT_EQ(zlib->name(), "libz.so.1");
  const char* (*version)() = nullptr;
  ASSERT_TRUE(zlib->Load("zlibVersion", &version).ok());
  ASSERT_NE(version, nullptr);
  EXPECT_EQ(std::string(version()), std::string(zlibVersion()));
}

TEST(DynamicLibraryTest, MissingLibrariesAndSymbolsAreErrorsThatNameThem) {
  absl::StatusOr<DynamicLibrary> none =
      DynamicLibrary::Open({"libhlo-lsp-no-such-library.so"});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(none.status().message().find("libhlo-lsp-no-such-library.so"),
            std::string::npos)
      << none.status();
  EXPECT_FALSE(DynamicLibrary::Open({}).ok());

  absl::StatusOr<DynamicLibrary> zlib = DynamicLibrary::Open({"libz.so.1"});
  ASSERT_TRUE(zlib.ok()) << zlib.status();
  int (*missing)() = nullptr;
  absl::Status status = zlib->Load("hlo_lsp_no_such_function", &missing);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(status.message().find("hlo_lsp_no_such_function"),
            std::string::npos)
      << status;
  EXPECT_EQ(missing, nullptr);
}

}  // namespace
}  // namespace hlo::base
