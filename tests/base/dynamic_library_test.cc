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

struct ZlibApi {
  const char* (*zlibVersion)() = nullptr;
};

absl::Status LoadZlib(const DynamicLibrary& library, ZlibApi* api) {
  return library.Load("zlibVersion", &api->zlibVersion);
}

TEST(DynamicLibraryTest, AnApiLoadsOnceAndKeepsItsFirstAnswer) {
  absl::StatusOr<const ZlibApi*> first =
      LoadApiOnce<ZlibApi>({"libz.so.1"}, LoadZlib, "zlib for the test");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(std::string((*first)->zlibVersion()), std::string(zlibVersion()));
  // The same struct on every later call, whatever they pass.
  absl::StatusOr<const ZlibApi*> again = LoadApiOnce<ZlibApi>(
      {"libhlo-lsp-no-such-library.so"}, LoadZlib, "unused");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *first);
}

struct MissingApi {
  int (*function)() = nullptr;
};

absl::Status LoadMissing(const DynamicLibrary& library, MissingApi* api) {
  return library.Load("hlo_lsp_no_such_function", &api->function);
}

TEST(DynamicLibraryTest, AFailedApiLoadSaysWhatItWasFor) {
  absl::StatusOr<const MissingApi*> api = LoadApiOnce<MissingApi>(
      {"libz.so.1"}, LoadMissing, "needed for the test (apt install it)");
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(api.status().message().find("needed for the test"),
            std::string::npos);
  EXPECT_NE(api.status().message().find("hlo_lsp_no_such_function"),
            std::string::npos)
      << api.status();
}

}  // namespace
}  // namespace hlo::base
