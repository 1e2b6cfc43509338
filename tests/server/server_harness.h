// Runs an LspServer in-process over two pipes and plays the client.
#ifndef HLO_LSP_TESTS_SERVER_SERVER_HARNESS_H_
#define HLO_LSP_TESTS_SERVER_SERVER_HARNESS_H_

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/lsp_server.h"
#include "server/transport.h"

namespace hlo_lsp {

class ServerHarness {
 public:
  explicit ServerHarness(LspServer::Options options = {}) {
    if (::pipe(to_server_) != 0 || ::pipe(from_server_) != 0) std::abort();
    server_transport_ =
        std::make_unique<Transport>(to_server_[0], from_server_[1]);
    server_ = std::make_unique<LspServer>(server_transport_.get(), options);
    server_thread_ = std::thread([this] {
      int code = server_->Run();
      server_.reset();  // joins its pools: every reply is written
      ::close(from_server_[1]);
      std::lock_guard<std::mutex> lock(mutex_);
      exit_code_ = code;
      cv_.notify_all();
    });
    reader_ = std::thread([this] {
      Transport in(from_server_[0], -1);
      std::string body;
      while (in.Read(&body) != ReadResult::kEof) {
        Json j = Json::parse(body, nullptr, false);
        std::lock_guard<std::mutex> lock(mutex_);
        received_.push_back(j.is_discarded() ? Json("<bad json>")
                                             : std::move(j));
        cv_.notify_all();
      }
    });
  }

  ~ServerHarness() {
    CloseInput();
    if (server_thread_.joinable()) server_thread_.join();
    if (reader_.joinable()) reader_.join();
    ::close(from_server_[0]);
    ::close(to_server_[0]);
  }

  void SendRaw(const std::string& bytes) {
    std::lock_guard<std::mutex> lock(write_mutex_);
    if (input_closed_) return;
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n =
          ::write(to_server_[1], bytes.data() + done, bytes.size() - done);
      if (n <= 0) return;
      done += static_cast<size_t>(n);
    }
  }
  void Send(const Json& message) {
    std::string body = message.dump();
    SendRaw("Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
            body);
  }
  void Request(int64_t id, const std::string& method,
               Json params = Json::object()) {
    Send(Json{{"jsonrpc", "2.0"},
              {"id", id},
              {"method", method},
              {"params", params}});
  }
  void Notify(const std::string& method, Json params = Json::object()) {
    Send(Json{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}});
  }

  // Waits until `pred` holds for the messages received so far.
  bool WaitUntil(const std::function<bool(const std::vector<Json>&)>& pred,
                 int timeout_ms = 60000) {
    std::unique_lock<std::mutex> lock(mutex_);
    return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                        [&] { return pred(received_); });
  }
  // The response to `id`, or null after the timeout.
  Json Response(int64_t id, int timeout_ms = 60000) {
    Json found;
    WaitUntil(
        [&](const std::vector<Json>& all) {
          for (const Json& m : all) {
            if (m.is_object() && m.contains("id") && m["id"] == id &&
                !m.contains("method")) {
              found = m;
              return true;
            }
          }
          return false;
        },
        timeout_ms);
    return found;
  }
  // A request with an id of the harness's own (from 1,000,000 on, clear of
  // the ids tests pick), and its response: null after the timeout.
  Json Call(const std::string& method, Json params, int timeout_ms = 60000) {
    const int64_t id = next_call_id_++;
    Request(id, method, std::move(params));
    return Response(id, timeout_ms);
  }
  // workspace/executeCommand with one argument.
  Json Command(const std::string& command, Json argument) {
    return Call("workspace/executeCommand",
                {{"command", command},
                 {"arguments", Json::array({std::move(argument)})}});
  }
  std::vector<Json> Received() {
    std::lock_guard<std::mutex> lock(mutex_);
    return received_;
  }

  Json Initialize(Json capabilities = Json::object(), Json options = nullptr) {
    Json params{{"capabilities", capabilities}};
    if (!options.is_null()) params["initializationOptions"] = options;
    Request(0, "initialize", params);
    Json r = Response(0);
    Notify("initialized");
    return r;
  }

  void CloseInput() {
    std::lock_guard<std::mutex> lock(write_mutex_);
    if (!input_closed_) ::close(to_server_[1]);
    input_closed_ = true;
  }
  // Waits for the server to end; its exit code, or -1 on timeout.
  int ExitCode(int timeout_ms = 60000) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                 [&] { return exit_code_ >= 0; });
    return exit_code_;
  }

 private:
  std::atomic<int64_t> next_call_id_{1000000};
  int to_server_[2];
  int from_server_[2];
  std::unique_ptr<Transport> server_transport_;
  std::unique_ptr<LspServer> server_;
  std::thread server_thread_;
  std::thread reader_;
  std::mutex write_mutex_;
  bool input_closed_ = false;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<Json> received_;
  int exit_code_ = -1;
};

}  // namespace hlo_lsp

#endif  // HLO_LSP_TESTS_SERVER_SERVER_HARNESS_H_
