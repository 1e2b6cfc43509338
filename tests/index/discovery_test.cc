// DiscoverFiles lists candidates in fs::path order (component by component),
// which its string comparison must reproduce where a '/' meets another byte.
#include "index/discovery.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test_dir.h"

namespace hlo::index {
namespace {

namespace fs = std::filesystem;
using index_test::TempDir;
using index_test::WriteFile;

TEST(DiscoveryTest, FilesComeInPathOrder) {
  TempDir dir;
  // '-' (0x2d) and '.' (0x2e) sort below '/' (0x2f) as bytes, above it as
  // path components; 'B' below 'a'; a longer name after its prefix.
  const std::vector<std::string> names = {
      "a/b.txt",   "a-b.txt", "a.txt",       "a/c/d.txt", "B.txt",
      "a.b/x.txt", "a.b.txt", "a/b.txt.txt", "z/a.hlo",   "a/\xc3\xa9.txt"};
  for (const std::string& name : names) WriteFile(dir.path() / name, "x\n");
  WriteFile(dir.path() / "a/skip.npz", "x\n");  // not a candidate

  DiscoveryResult found = DiscoverFiles(dir.path());
  std::vector<fs::path> expected;
  for (const std::string& name : names) expected.push_back(dir.path() / name);
  std::sort(expected.begin(), expected.end());  // fs::path's operator<
  ASSERT_EQ(found.files.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(found.files[i], expected[i]) << i;
  }
  // The cases above do reorder: plain string order differs.
  std::vector<std::string> as_strings;
  for (const fs::path& p : expected) as_strings.push_back(p.string());
  EXPECT_FALSE(std::is_sorted(as_strings.begin(), as_strings.end()));
}

TEST(DiscoveryTest, VersionControlAndPackageFoldersAreNotWalked) {
  TempDir dir;
  for (const char* skipped : {".git/a.hlo", "node_modules/pkg/b.hlo",
                              "x/node_modules/c.txt", "__pycache__/d.txt"}) {
    WriteFile(dir.path() / skipped, "x\n");
  }
  WriteFile(dir.path() / "x/kept.hlo", "x\n");
  WriteFile(dir.path() / "node_modules.hlo", "x\n");  // a file, not a folder
  DiscoveryResult found = DiscoverFiles(dir.path());
  ASSERT_EQ(found.files.size(), 2u);
  EXPECT_EQ(found.files[0], dir.path() / "node_modules.hlo");
  EXPECT_EQ(found.files[1], dir.path() / "x/kept.hlo");
}

}  // namespace
}  // namespace hlo::index
