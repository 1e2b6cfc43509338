// What workspace features may ask of the editor, typed: progress, file
// watching, questions, opening documents, logging, and the current text of
// a document. LspServer implements it over JSON-RPC; tests can fake it.
#ifndef HLO_LSP_SERVER_CLIENT_H_
#define HLO_LSP_SERVER_CLIENT_H_

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "server/protocol_workspace.h"

namespace hlo_lsp {

enum class LogType : int { kError = 1, kWarning = 2, kInfo = 3, kLog = 4 };

// The client capabilities workspace features act on (from initialize).
struct ClientSupport {
  bool utf16 = true;  // positions in UTF-16 code units (else UTF-8 bytes)
  bool progress = false;
  bool watch_files = false;
  bool show_document = false;
  bool show_message = false;
  // workspace/symbol may leave ranges to workspaceSymbol/resolve.
  bool symbol_resolve = false;
};

class Client {
 public:
  virtual ~Client() = default;

  virtual void Log(LogType type, const std::string& message) = 0;
  virtual void Progress(const ProgressParams& params) = 0;
  // window/workDoneProgress/create; false when the client did not accept.
  virtual bool CreateProgress(const std::string& token) = 0;
  // client/registerCapability for file events; false when refused.
  virtual bool RegisterFileWatchers(
      const FileWatcherRegistration& registration) = 0;
  // window/showMessageRequest; nullopt on no answer (error, timeout,
  // cancellation).
  virtual std::optional<MessageActionResult> AskUser(
      const ShowMessageRequestParams& params, int timeout_ms,
      const std::atomic<bool>* cancelled) = 0;
  // window/showDocument (waits for the answer, up to a few seconds).
  virtual void ShowDocument(const ShowDocumentParams& params) = 0;
  // The current text of a document: the open buffer, else the file; null
  // when there is none.
  virtual std::shared_ptr<const std::string> DocumentText(
      const std::string& uri) = 0;
};

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_CLIENT_H_
