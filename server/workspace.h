// Workspace-wide features: the symbol index of the client's folders
// (workspace/symbol, module files, go-to-definition across a module's
// dumps), file conversion, replay jobs, commands, code actions and lenses.
// Talks to the client only through the hooks it is given, so that it owns
// no transport and can be tested apart.
#ifndef HLO_LSP_SERVER_WORKSPACE_H_
#define HLO_LSP_SERVER_WORKSPACE_H_

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "hlo/index/workspace_index.h"
#include "server/json_rpc.h"

namespace hlo_lsp {

// The contract's command names (contracts.md, "The editor protocol").
const std::vector<std::string>& WorkspaceCommands();

class WorkspaceService {
 public:
  using Reply = std::variant<Json, RawJson, RpcError>;
  struct Hooks {
    std::function<void(const std::string& method, const Json& params)> notify;
    // A request to the client; nullopt on an error reply or timeout.
    std::function<std::optional<Json>(const std::string& method, const Json& params,
                                      int timeout_ms, const std::atomic<bool>* cancelled)>
        call;
    std::function<void(int type, const std::string& message)> log;
    // The current text of a document (the open buffer, else the file);
    // null when there is none.
    std::function<std::shared_ptr<const std::string>(const std::string& uri)> text;
  };
  struct Options {
    bool use_cache = true;           // the persisted shard cache of hlo/index
    int poll_seconds = 10;           // re-stat interval when the client cannot watch
    size_t proto_text_cap = size_t{256} << 20;
  };

  WorkspaceService(Hooks hooks, Options options);
  ~WorkspaceService();

  void Initialize(const Json& params);  // folders and client capabilities
  void Initialized();                   // starts indexing on a worker thread
  void FilesChanged(const Json& params);  // workspace/didChangeWatchedFiles
  void FoldersChanged(const Json& params);  // workspace/didChangeWorkspaceFolders
  void Shutdown();

  Reply Symbols(const Json& params);
  Reply ProtoToText(const Json& params);
  Reply ModuleFilesRequest(const Json& params);
  Reply ReplayResultRequest(const Json& params, const std::atomic<bool>* cancelled);
  Reply ExecuteCommand(const Json& params, const std::atomic<bool>* cancelled);
  Reply CodeActions(const Json& params);
  Reply CodeLenses(const std::string& uri, const std::string& text);
  // Locations of the computation `name` in the other files of the module
  // that `uri` belongs to.
  Json DefinitionElsewhere(const std::string& uri, const std::string& name);

 private:
  struct ReplayJob;

  void IndexLoop();
  Json ModuleFilesJson(const std::string& path);
  std::vector<hlo::index::ModuleFile> ModuleFilesOf(const std::string& path);
  Reply ConvertToText(const Json& args, const std::atomic<bool>* cancelled);
  Reply ExportProto(const Json& args, const std::atomic<bool>* cancelled);
  Reply StartReplay(const Json& args, bool compare);
  Reply Search(const Json& args, const std::atomic<bool>* cancelled);
  // Picks the output path: `wanted` when free or the user says Overwrite,
  // else `<stem>.N<ext>`; nullopt when the user cancels.
  std::optional<std::string> ChooseOutput(const std::string& wanted,
                                          const std::atomic<bool>* cancelled);
  void ShowDocument(const std::string& path);
  void Progress(const Json& value);

  Hooks hooks_;
  Options options_;
  std::unique_ptr<hlo::index::WorkspaceIndex> index_;

  std::mutex mutex_;  // guards the fields below
  std::condition_variable wake_;
  std::vector<std::filesystem::path> folders_;
  std::vector<std::filesystem::path> pending_refresh_;
  std::vector<std::pair<std::filesystem::path, bool>> pending_folders_;  // (folder, added)
  bool utf16_ = true;  // workspace/symbol columns in UTF-16 code units
  bool stopping_ = false;
  bool indexing_done_ = false;
  bool progress_support_ = false;
  bool watch_support_ = false;
  bool show_document_support_ = false;
  bool show_message_support_ = false;
  std::string progress_token_;
  size_t progress_percent_ = 0;
  std::thread indexer_;

  std::mutex jobs_mutex_;
  int64_t next_job_ = 1;
  std::map<int64_t, std::shared_ptr<ReplayJob>> jobs_;
};

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_WORKSPACE_H_
