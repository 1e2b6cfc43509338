#include "server/transport.h"

#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace hlo_lsp {
namespace {

// Header lines longer than this are garbage; stop accumulating them.
constexpr size_t kMaxHeaderLine = 8192;

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x += 'a' - 'A';
    if (y >= 'A' && y <= 'Z') y += 'a' - 'A';
    if (x != y) return false;
  }
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

bool Transport::Fill() {
  if (pos_ > 0 && pos_ == buffer_.size()) {
    buffer_.clear();
    pos_ = 0;
  }
  char chunk[65536];
  while (true) {
    ssize_t n = ::read(in_fd_, chunk, sizeof(chunk));
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

bool Transport::ReadLine(std::string* line) {
  line->clear();
  while (true) {
    size_t nl = buffer_.find('\n', pos_);
    if (nl != std::string::npos) {
      if (line->size() < kMaxHeaderLine) {
        line->append(buffer_, pos_, std::min(nl - pos_, kMaxHeaderLine));
      }
      pos_ = nl + 1;
      if (!line->empty() && line->back() == '\r') line->pop_back();
      return true;
    }
    if (line->size() < kMaxHeaderLine) {
      line->append(buffer_, pos_,
                   std::min(buffer_.size() - pos_, kMaxHeaderLine));
    }
    pos_ = buffer_.size();
    if (!Fill()) return false;
  }
}

bool Transport::ReadExact(size_t n, std::string* out) {
  out->clear();
  out->reserve(std::min(n, size_t{1} << 26));
  while (out->size() < n) {
    if (pos_ == buffer_.size() && !Fill()) return false;
    size_t take = std::min(n - out->size(), buffer_.size() - pos_);
    out->append(buffer_, pos_, take);
    pos_ += take;
  }
  // Drop consumed bytes so the buffer does not grow without bound.
  if (pos_ > (size_t{1} << 20)) {
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
  return true;
}

ReadResult Transport::Read(std::string* body) {
  std::string line;
  long long length = -1;
  bool any_header = false;
  bool bad = false;
  while (true) {
    if (!ReadLine(&line)) return ReadResult::kEof;
    if (line.empty()) {
      if (!any_header) continue;  // stray blank lines between messages
      break;
    }
    any_header = true;
    size_t colon = line.find(':');
    if (colon == std::string::npos) {
      bad = true;
      continue;
    }
    std::string_view key = Trim(std::string_view(line).substr(0, colon));
    std::string_view value = Trim(std::string_view(line).substr(colon + 1));
    if (EqualsIgnoreCase(key, "Content-Length")) {
      long long v = -1;
      auto [ptr, ec] =
          std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || ptr != value.data() + value.size() || v < 0) {
        bad = true;
      } else {
        length = v;
      }
    }
  }
  if (length < 0) return ReadResult::kBadHeader;
  if (static_cast<unsigned long long>(length) > kMaxMessageBytes) {
    // Skip the body in pieces without holding it.
    std::string sink;
    long long left = length;
    while (left > 0) {
      size_t piece = static_cast<size_t>(std::min<long long>(left, 1 << 20));
      if (!ReadExact(piece, &sink)) return ReadResult::kEof;
      left -= static_cast<long long>(piece);
    }
    return ReadResult::kBadHeader;
  }
  if (!ReadExact(static_cast<size_t>(length), body)) return ReadResult::kEof;
  (void)bad;  // a bad extra header line is tolerated when the length is good
  return ReadResult::kMessage;
}

bool Transport::Write(std::string_view body) {
  std::string header =
      "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  // Header and body in one writev: two writes woke the client for the
  // header alone, a second wakeup per message on a loaded machine.
  iovec parts[2] = {{header.data(), header.size()},
                    {const_cast<char*>(body.data()), body.size()}};
  iovec* part = parts;
  int count = 2;
  std::lock_guard<std::mutex> lock(write_mutex_);
  while (count > 0) {
    ssize_t n = ::writev(out_fd_, part, count);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    size_t left = static_cast<size_t>(n);
    while (count > 0 && left >= part->iov_len) {
      left -= part->iov_len;
      ++part;
      --count;
    }
    if (count > 0) {
      part->iov_base = static_cast<char*>(part->iov_base) + left;
      part->iov_len -= left;
    }
  }
  return true;
}

}  // namespace hlo_lsp
