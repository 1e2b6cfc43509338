// The workspace: the symbol index of the client's folders and its
// lifecycle. Indexes the folders on a thread of its own after `initialized`
// (with work-done progress when the client shows it), then keeps the index
// current from file events, folder changes, or a re-stat on a timer when
// the client cannot watch files. Workspace features (features/) read the
// index; this file holds no feature.
#ifndef HLO_LSP_SERVER_WORKSPACE_H_
#define HLO_LSP_SERVER_WORKSPACE_H_

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "index/workspace_index.h"
#include "server/client.h"

namespace hlo_lsp {

class Workspace {
 public:
  struct Options {
    bool use_cache = true;  // the persisted shard cache of index/
    int poll_seconds = 10;  // re-stat interval when the client cannot watch
  };

  Workspace(Client* client, Options options);
  ~Workspace();

  // From initialize: the folders (paths) and what the client supports.
  void Initialize(std::vector<std::filesystem::path> folders,
                  const ClientSupport& support);
  void Initialized();  // starts indexing on a thread of its own
  void FilesChanged(const std::vector<std::string>& paths);
  void FoldersChanged(const std::vector<std::string>& added,
                      const std::vector<std::string>& removed);
  void Shutdown();

  hlo::index::WorkspaceIndex& index() { return *index_; }
  const ClientSupport& support() const { return support_; }

  // Waits for the first indexing of the folders; false when `cancelled`.
  bool WaitForFirstIndex(const std::atomic<bool>* cancelled);
  // A client without workspace folders (Vim) names its dump folder: index
  // it now. Nothing when the workspace has folders.
  void AddFolderIfNone(const std::string& root);

 private:
  void IndexLoop();
  void Progress(WorkDoneProgress value);

  Client* client_;
  Options options_;
  ClientSupport support_;
  std::unique_ptr<hlo::index::WorkspaceIndex> index_;

  std::mutex mutex_;  // guards the fields below
  std::condition_variable wake_;
  std::vector<std::filesystem::path> folders_;
  std::vector<std::filesystem::path> pending_refresh_;
  std::vector<std::pair<std::filesystem::path, bool>>
      pending_folders_;  // (folder, added)
  bool stopping_ = false;
  bool indexing_done_ = false;
  std::string progress_token_;
  size_t progress_percent_ = 0;
  std::thread indexer_;
};

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_WORKSPACE_H_
