// Content-Length framing of JSON-RPC messages over a pair of file
// descriptors (LSP's base protocol). Knows nothing of JSON: it moves bytes.
#ifndef HLO_LSP_SERVER_TRANSPORT_H_
#define HLO_LSP_SERVER_TRANSPORT_H_

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>

namespace hlo_lsp {

enum class ReadResult {
  kMessage,    // a complete body was read
  kBadHeader,  // a header block without a usable Content-Length; skipped
  kEof,        // the peer closed the stream (possibly mid-message)
};

class Transport {
 public:
  // Bodies larger than this are refused (read and dropped as kBadHeader).
  static constexpr size_t kMaxMessageBytes = size_t{1} << 31;

  Transport(int in_fd, int out_fd) : in_fd_(in_fd), out_fd_(out_fd) {}

  // Reads one framed message into *body. Single reader only.
  ReadResult Read(std::string* body);
  // Frames and writes one message; safe to call from any thread. Returns
  // false when the peer is gone.
  bool Write(std::string_view body);

 private:
  // Buffered byte input; false at EOF.
  bool Fill();
  bool ReadLine(std::string* line);  // without the trailing "\r\n" / "\n"
  bool ReadExact(size_t n, std::string* out);

  int in_fd_;
  int out_fd_;
  std::string buffer_;
  size_t pos_ = 0;
  std::mutex write_mutex_;
};

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_TRANSPORT_H_
