#include "server/transport.h"

#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace hlo_lsp {
namespace {

// Feeds `bytes` through a pipe and reads messages until EOF.
struct Read {
  std::vector<ReadResult> results;
  std::vector<std::string> bodies;
};

Read TransportReadAll(const std::string& bytes) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  std::thread writer([&] {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::write(fds[1], bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fds[1]);
  });
  Transport transport(fds[0], -1);
  Read out;
  std::string body;
  while (true) {
    ReadResult r = transport.Read(&body);
    out.results.push_back(r);
    if (r == ReadResult::kMessage) out.bodies.push_back(body);
    if (r == ReadResult::kEof) break;
  }
  writer.join();
  ::close(fds[0]);
  return out;
}

std::string Frame(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

TEST(TransportTest, ReadsConsecutiveMessages) {
  Read r = TransportReadAll(Frame("{\"a\":1}") + Frame("{}") + Frame(""));
  ASSERT_EQ(r.bodies.size(), 3u);
  EXPECT_EQ(r.bodies[0], "{\"a\":1}");
  EXPECT_EQ(r.bodies[1], "{}");
  EXPECT_EQ(r.bodies[2], "");
  EXPECT_EQ(r.results.back(), ReadResult::kEof);
}

TEST(TransportTest, HeaderNamesAreCaseInsensitiveAndExtraHeadersIgnored) {
  Read r = TransportReadAll(
      "content-length:  5 \r\nContent-Type: application/vscode-jsonrpc; "
      "charset=utf-8\r\n\r\nhello" +
      std::string("Content-Length: 2\n\nhi"));
  ASSERT_EQ(r.bodies.size(), 2u);
  EXPECT_EQ(r.bodies[0], "hello");
  EXPECT_EQ(r.bodies[1], "hi");
}

TEST(TransportTest, BadHeadersAreReportedAndReadingGoesOn) {
  Read r = TransportReadAll("Content-Length: abc\r\n\r\n" +
                            std::string("garbage line\r\n\r\n") +
                            "Content-Length: -4\r\n\r\n" + Frame("ok"));
  ASSERT_EQ(r.bodies.size(), 1u);
  EXPECT_EQ(r.bodies[0], "ok");
  int bad = 0;
  for (ReadResult x : r.results) bad += x == ReadResult::kBadHeader;
  EXPECT_EQ(bad, 3);
}

TEST(TransportTest, TruncatedBodyIsEof) {
  Read r = TransportReadAll(Frame("{}") +
                            "Content-Length: 100\r\n\r\n{\"partial\":");
  ASSERT_EQ(r.bodies.size(), 1u);
  EXPECT_EQ(r.results.back(), ReadResult::kEof);
}

TEST(TransportTest, EofInsideHeaderIsEof) {
  Read r = TransportReadAll("Content-Len");
  EXPECT_TRUE(r.bodies.empty());
  EXPECT_EQ(r.results.back(), ReadResult::kEof);
}

TEST(TransportTest, VeryLongHeaderLineDoesNotGrowWithoutBound) {
  Read r =
      TransportReadAll(std::string(1 << 20, 'x') + "\r\n\r\n" + Frame("after"));
  ASSERT_EQ(r.bodies.size(), 1u);
  EXPECT_EQ(r.bodies[0], "after");
}

TEST(TransportTest, LargeBodyArrivesWhole) {
  std::string big(5 << 20, 'z');
  Read r = TransportReadAll(Frame(big) + Frame("tail"));
  ASSERT_EQ(r.bodies.size(), 2u);
  EXPECT_EQ(r.bodies[0], big);
  EXPECT_EQ(r.bodies[1], "tail");
}

TEST(TransportTest, WriteFrames) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  Transport transport(-1, fds[1]);
  ASSERT_TRUE(transport.Write("{\"x\":\"\xc3\xa9\"}"));
  ::close(fds[1]);
  char buf[256];
  ssize_t n = ::read(fds[0], buf, sizeof(buf));
  ::close(fds[0]);
  EXPECT_EQ(std::string(buf, n),
            "Content-Length: 10\r\n\r\n{\"x\":\"\xc3\xa9\"}");
}

// One write per message: a client woken by the header alone waited for a
// second wakeup for the body (a record socket keeps each write apart).
TEST(TransportTest, WriteSendsHeaderAndBodyInOneWrite) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fds), 0);
  Transport transport(-1, fds[1]);
  ASSERT_TRUE(transport.Write("{}"));
  char buf[256];
  ssize_t n = ::read(fds[0], buf, sizeof(buf));
  ::close(fds[0]);
  ::close(fds[1]);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, n), "Content-Length: 2\r\n\r\n{}");
}

// A body larger than the pipe's buffer goes out in partial writes, each
// resumed where the last stopped.
TEST(TransportTest, WriteLargeBodyInPieces) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::string big(3 << 20, 'q');
  for (size_t i = 0; i < big.size(); i += 4093) big[i] = 'a' + i % 26;
  std::thread writer([&] {
    Transport out(-1, fds[1]);
    EXPECT_TRUE(out.Write(big));
    EXPECT_TRUE(out.Write("tail"));
    ::close(fds[1]);
  });
  Transport in(fds[0], -1);
  std::string body;
  ASSERT_EQ(in.Read(&body), ReadResult::kMessage);
  EXPECT_TRUE(body == big);
  ASSERT_EQ(in.Read(&body), ReadResult::kMessage);
  EXPECT_EQ(body, "tail");
  writer.join();
  ::close(fds[0]);
}

}  // namespace
}  // namespace hlo_lsp
