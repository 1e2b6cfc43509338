#include "base/whole_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace hlo::base {
namespace {

namespace fs = std::filesystem;

class WholeFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hlo_whole_file_test_" + std::to_string(::getpid()));
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

TEST_F(WholeFileTest, ReadsARegularFile) {
  absl::StatusOr<WholeFile> file = WholeFile::Read(Write("a", "HloModule m\n"));
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->bytes(), "HloModule m\n");
  EXPECT_EQ(reinterpret_cast<uintptr_t>(file->bytes().data()) % 8, 0u);
  absl::StatusOr<WholeFile> empty = WholeFile::Read(Write("empty", ""));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(empty->bytes().empty());
}

TEST_F(WholeFileTest, ErrorsNameThePath) {
  std::string missing = (dir_ / "missing").string();
  absl::StatusOr<WholeFile> file = WholeFile::Read(missing);
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(absl::IsNotFound(file.status()));
  EXPECT_NE(file.status().message().find("cannot read " + missing),
            std::string_view::npos);
  absl::StatusOr<WholeFile> folder = WholeFile::Read(dir_.string());
  ASSERT_FALSE(folder.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(folder.status())) << folder.status();
}

// /dev/zero never ends and a FIFO without a writer never answers: both are
// refused at once instead of read without bound or waited on.
TEST_F(WholeFileTest, DevicesAndFifosAreRefused) {
  absl::StatusOr<WholeFile> zero = WholeFile::Read("/dev/zero");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("not a regular file"),
            std::string_view::npos);
  std::string fifo = (dir_ / "fifo.hlo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  absl::StatusOr<WholeFile> from_fifo = WholeFile::Read(fifo);
  ASSERT_FALSE(from_fifo.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(from_fifo.status()));
  EXPECT_FALSE(WholeFile::ReadHead(fifo, 16).ok());
}

int OpenPipeWith(const std::string& text) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  EXPECT_EQ(::write(fds[1], text.data(), text.size()),
            static_cast<ssize_t>(text.size()));
  ::close(fds[1]);
  return fds[0];
}

TEST_F(WholeFileTest, StreamsAreReadOnlyWhenAskedAndUpToTheLimit) {
  int fd = OpenPipeWith("HloModule piped\n");
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  EXPECT_FALSE(WholeFile::Read(path).ok());
  ::close(fd);

  WholeFile::Options stream;
  stream.allow_stream = true;
  fd = OpenPipeWith("HloModule piped\n");
  path = "/proc/self/fd/" + std::to_string(fd);
  absl::StatusOr<WholeFile> file = WholeFile::Read(path, stream);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->bytes(), "HloModule piped\n");
  ::close(fd);

  stream.max_bytes = 8;
  fd = OpenPipeWith("HloModule piped\n");
  path = "/proc/self/fd/" + std::to_string(fd);
  absl::StatusOr<WholeFile> capped = WholeFile::Read(path, stream);
  ASSERT_FALSE(capped.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(capped.status())) << capped.status();
  ::close(fd);

  fd = OpenPipeWith("12345678");  // exactly the limit is fine
  path = "/proc/self/fd/" + std::to_string(fd);
  absl::StatusOr<WholeFile> exact = WholeFile::Read(path, stream);
  ASSERT_TRUE(exact.ok()) << exact.status();
  EXPECT_EQ(exact->bytes(), "12345678");
  ::close(fd);
}

TEST_F(WholeFileTest, RegularFilesOverTheLimitAreRefused) {
  WholeFile::Options options;
  options.max_bytes = 4;
  absl::StatusOr<WholeFile> file =
      WholeFile::Read(Write("big", "12345"), options);
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(file.status()));
}

// A header that does not verify ends the read after the head: a 2 GB
// sparse garbage file costs one small read, not 2 GB of memory.
TEST_F(WholeFileTest, HeadIsCheckedBeforeTheRest) {
  std::string path = (dir_ / "sparse").string();
  { std::ofstream(path, std::ios::binary) << "garbage!"; }
  fs::resize_file(path, uint64_t{2} << 30);
  WholeFile::Options options;
  options.head_bytes = 8;
  std::string seen;
  uint64_t seen_size = 0;
  options.accept_head = [&](std::string_view head, uint64_t size) {
    seen.assign(head);
    seen_size = size;
    return false;
  };
  absl::StatusOr<WholeFile> file = WholeFile::Read(path, options);
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(absl::IsDataLoss(file.status())) << file.status();
  EXPECT_EQ(seen, "garbage!");
  EXPECT_EQ(seen_size, uint64_t{2} << 30);

  absl::StatusOr<WholeFile> head = WholeFile::ReadHead(path, 4);
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_EQ(head->bytes(), "garb");
}

// The file is truncated and rewritten while it is read: a mapping would
// take SIGBUS past the new end; a read sees a shorter file, never a signal.
TEST_F(WholeFileTest, AFileThatShrinksWhileReadIsNoSignal) {
  const std::string big(24 << 20, 'x');
  std::string path = Write("shrinking.hlo", big);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    while (!stop) {
      [[maybe_unused]] int rc = ::truncate(path.c_str(), 0);
      std::ofstream(path, std::ios::binary | std::ios::trunc) << big;
    }
  });
  for (int i = 0; i < 40; ++i) {
    absl::StatusOr<WholeFile> file = WholeFile::Read(path);
    ASSERT_TRUE(file.ok()) << file.status();
    EXPECT_LE(file->bytes().size(), big.size());
    EXPECT_EQ(file->bytes().find_first_not_of('x'), std::string_view::npos);
  }
  stop = true;
  writer.join();
}

TEST_F(WholeFileTest, MoveKeepsTheBytes) {
  absl::StatusOr<WholeFile> file = WholeFile::Read(Write("m", "abc"));
  ASSERT_TRUE(file.ok());
  WholeFile moved = std::move(*file);
  EXPECT_EQ(moved.bytes(), "abc");
  WholeFile target;
  target = std::move(moved);
  EXPECT_EQ(target.bytes(), "abc");
}

}  // namespace
}  // namespace hlo::base
