#include "exec/wire.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "exec/npz.h"

namespace hlo::exec {

std::string NpzBytesOf(const Value& value) {
  auto bytes = EncodeNpz(FlattenResult(value));
  if (!bytes.ok()) return "";
  return *std::move(bytes);
}

bool WriteAll(int fd, std::string_view bytes) {
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t w = write(fd, p, left);
    if (w <= 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    left -= static_cast<size_t>(w);
  }
  return true;
}

PipeRead ReadUntilEnd(int fd, double timeout_seconds,
                      const std::atomic<bool>* cancel, std::string* bytes) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  char buf[1 << 16];
  while (true) {
    const double elapsed =
        std::chrono::duration<double>(Clock::now() - start).count();
    if (timeout_seconds > 0 && elapsed > timeout_seconds)
      return PipeRead::kTimedOut;
    if (cancel && cancel->load()) return PipeRead::kCancelled;
    pollfd pfd{fd, POLLIN, 0};
    int pr = poll(&pfd, 1, 100);
    if (pr < 0 && errno != EINTR) return PipeRead::kEnd;
    if (pr <= 0) continue;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return PipeRead::kEnd;  // EOF: the child is done (or died)
    bytes->append(buf, static_cast<size_t>(n));
  }
}

}  // namespace hlo::exec
