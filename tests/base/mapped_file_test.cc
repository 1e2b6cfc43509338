#include "base/mapped_file.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace hlo::base {
namespace {

namespace fs = std::filesystem;

class MappedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hlo_base_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& bytes) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  fs::path dir_;
};

TEST_F(MappedFileTest, MapsARegularFile) {
  std::string path = Write("a.txt", "HloModule m\n");
  for (auto access :
       {MappedFile::Access::kSequential, MappedFile::Access::kPopulate}) {
    absl::StatusOr<MappedFile> file = MappedFile::Read(path, access);
    ASSERT_TRUE(file.ok()) << file.status();
    EXPECT_TRUE(file->mapped());
    EXPECT_EQ(file->bytes(), "HloModule m\n");
  }
}

TEST_F(MappedFileTest, EmptyFileIsReadNotMapped) {
  absl::StatusOr<MappedFile> file = MappedFile::Read(Write("empty", ""));
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_FALSE(file->mapped());
  EXPECT_TRUE(file->bytes().empty());
}

// Reads what a pipe holds (written and closed first: a pipe buffers 64 KiB).
MappedFile ReadPipe(const std::string& text) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  EXPECT_EQ(::write(fds[1], text.data(), text.size()),
            static_cast<ssize_t>(text.size()));
  ::close(fds[1]);
  absl::StatusOr<MappedFile> file =
      MappedFile::Read("/proc/self/fd/" + std::to_string(fds[0]));
  ::close(fds[0]);
  EXPECT_TRUE(file.ok()) << file.status();
  return file.ok() ? std::move(*file) : MappedFile();
}

TEST_F(MappedFileTest, PipeIsReadIntoACopy) {
  const std::string text(60000, 'x');  // more than one read's chunk
  MappedFile file = ReadPipe(text);
  EXPECT_FALSE(file.mapped());
  EXPECT_EQ(file.bytes(), text);
}

TEST_F(MappedFileTest, ErrorsNameThePath) {
  std::string missing = (dir_ / "missing").string();
  absl::StatusOr<MappedFile> file = MappedFile::Read(missing);
  EXPECT_EQ(file.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(file.status().message(),
            "cannot read " + missing + ": No such file or directory");

  absl::StatusOr<MappedFile> folder = MappedFile::Read(dir_.string());
  EXPECT_EQ(folder.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(folder.status().message(),
            "cannot read " + dir_.string() + ": Is a directory");
}

TEST_F(MappedFileTest, MoveKeepsTheBytes) {
  std::string path = Write("b.txt", "abc");
  absl::StatusOr<MappedFile> mapped = MappedFile::Read(path);
  ASSERT_TRUE(mapped.ok());
  MappedFile moved = std::move(*mapped);
  EXPECT_EQ(moved.bytes(), "abc");
  EXPECT_TRUE(mapped->bytes().empty());

  // A short copy lives inside the string itself: the view must follow it.
  MappedFile copied = ReadPipe("xyz");
  MappedFile target;
  target = std::move(copied);
  EXPECT_EQ(target.bytes(), "xyz");
  EXPECT_FALSE(target.mapped());
  target = std::move(moved);
  EXPECT_EQ(target.bytes(), "abc");
  EXPECT_TRUE(target.mapped());
}

}  // namespace
}  // namespace hlo::base
