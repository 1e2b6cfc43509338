#include "server/workspace.h"

#include <algorithm>
#include <chrono>
#include <string_view>
#include <system_error>

namespace hlo_lsp {
namespace fs = std::filesystem;
namespace {

// `path` absolute and lexically normal, without a trailing '/'.
std::string Normal(const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  std::string s = (ec ? path : absolute).lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// Whether `path` is `folder` or lies under it (both Normal).
bool IsUnder(std::string_view path, std::string_view folder) {
  if (!path.starts_with(folder)) return false;
  return path.size() == folder.size() || folder.back() == '/' ||
         path[folder.size()] == '/';
}

}  // namespace

Workspace::Workspace(Client* client, Options options)
    : client_(client), options_(options) {
  hlo::index::IndexOptions io;
  io.use_cache = options_.use_cache;
  io.name_table = true;
  io.progress = [this](const hlo::index::IndexProgress& p) {
    if (p.total == 0) return;
    size_t percent = p.done * 100 / p.total;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (progress_token_.empty() || percent == progress_percent_) return;
      progress_percent_ = percent;
    }
    WorkDoneProgress report{.kind = "report"};
    report.message =
        std::to_string(p.done) + "/" + std::to_string(p.total) + " files";
    report.percentage = static_cast<uint32_t>(percent);
    Progress(std::move(report));
  };
  index_ = std::make_unique<hlo::index::WorkspaceIndex>(std::move(io));
}

Workspace::~Workspace() { Shutdown(); }

void Workspace::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (indexer_.joinable()) indexer_.join();
}

void Workspace::Initialize(std::vector<fs::path> folders,
                           const ClientSupport& support) {
  std::lock_guard<std::mutex> lock(mutex_);
  folders_ = std::move(folders);
  support_ = support;
}

void Workspace::Initialized() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (indexer_.joinable()) return;
  indexer_ = std::thread([this] { IndexLoop(); });
}

void Workspace::Progress(WorkDoneProgress value) {
  std::string token;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    token = progress_token_;
  }
  if (!token.empty())
    client_->Progress(ProgressParams{token, std::move(value)});
}

void Workspace::IndexLoop() {
  std::vector<fs::path> folders;
  bool watch;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    folders = folders_;
    watch = support_.watch_files;
  }
  if (watch && !client_->RegisterFileWatchers(
                   {"hlo-lsp-watch", "**/*.{txt,hlo,pbtxt,pb,pb.gz}"})) {
    client_->Log(
        LogType::kInfo,
        "file watching not registered; re-checking the folders on a timer");
    watch = false;
  }
  if (support_.progress && !folders.empty()) {
    std::string token = "hlo-lsp/index";
    if (client_->CreateProgress(token)) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        progress_token_ = token;
      }
      WorkDoneProgress begin{.kind = "begin"};
      begin.title = "Indexing HLO files";
      begin.cancellable = false;
      begin.percentage = 0;
      Progress(std::move(begin));
    }
  }
  for (const fs::path& folder : folders) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) break;
    }
    std::error_code ec;
    index_->AddFolder(fs::absolute(folder, ec));
  }
  for (const std::string& w : index_->TakeWarnings())
    client_->Log(LogType::kInfo, "index: " + w);
  hlo::index::IndexStats stats = index_->stats();
  WorkDoneProgress end{.kind = "end"};
  end.message = std::to_string(stats.hlo_files) + " HLO files, " +
                std::to_string(stats.symbols) + " symbols";
  Progress(std::move(end));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    progress_token_.clear();
    indexing_done_ = true;
  }
  wake_.notify_all();
  client_->Log(LogType::kInfo,
               "indexed " + std::to_string(stats.hlo_files) + " HLO files");

  // Then: refresh on file events, and re-stat on a timer when nobody tells us.
  auto next_poll = std::chrono::steady_clock::now() +
                   std::chrono::seconds(options_.poll_seconds);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait_until(lock, next_poll, [&] {
      return stopping_ || !pending_refresh_.empty() ||
             !pending_folders_.empty();
    });
    if (stopping_) break;
    if (!pending_folders_.empty()) {
      // workspace/didChangeWorkspaceFolders, in the order they came.
      std::vector<std::pair<fs::path, bool>> changes;
      changes.swap(pending_folders_);
      lock.unlock();
      for (const auto& [folder, added] : changes) {
        if (added) {
          index_->AddFolder(folder);
        } else {
          index_->RemoveFolder(folder);
        }
      }
      for (const std::string& w : index_->TakeWarnings()) {
        client_->Log(LogType::kInfo, "index: " + w);
      }
      lock.lock();
      continue;
    }
    std::vector<fs::path> paths;
    paths.swap(pending_refresh_);
    bool poll = false;
    if (!watch && std::chrono::steady_clock::now() >= next_poll) {
      poll = true;
      next_poll = std::chrono::steady_clock::now() +
                  std::chrono::seconds(options_.poll_seconds);
    } else if (watch) {
      next_poll = std::chrono::steady_clock::now() + std::chrono::hours(24);
    }
    if (poll) paths.insert(paths.end(), folders_.begin(), folders_.end());
    if (paths.empty()) continue;
    lock.unlock();
    index_->Refresh(paths);
    lock.lock();
  }
}

void Workspace::FilesChanged(const std::vector<std::string>& paths) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const std::string& path : paths) {
    // An event outside the folders (a client watching more than asked)
    // would put a file of elsewhere in the index and workspace/symbol.
    if (path.empty()) continue;
    const std::string normal = Normal(path);
    bool inside = false;
    for (const fs::path& folder : folders_)
      inside |= IsUnder(normal, Normal(folder));
    if (inside) pending_refresh_.emplace_back(path);
  }
  wake_.notify_all();
}

void Workspace::FoldersChanged(const std::vector<std::string>& added,
                               const std::vector<std::string>& removed) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto each = [&](const std::vector<std::string>& paths, bool add) {
    for (const std::string& path : paths) {
      if (path.empty()) continue;
      std::error_code ec;
      fs::path folder = fs::absolute(path, ec).lexically_normal();
      folders_.erase(std::remove(folders_.begin(), folders_.end(), folder),
                     folders_.end());
      if (add) folders_.push_back(folder);
      pending_folders_.emplace_back(folder, add);
    }
  };
  each(removed, false);
  each(added, true);
  wake_.notify_all();
}

bool Workspace::WaitForFirstIndex(const std::atomic<bool>* cancelled) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_ && !indexing_done_ && indexer_.joinable()) {
    if (cancelled && cancelled->load()) return false;
    wake_.wait_for(lock, std::chrono::milliseconds(100));
  }
  return true;
}

void Workspace::AddFolderIfNone(const std::string& root) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!folders_.empty() || root.empty()) return;
  }
  index_->AddFolder(fs::absolute(root));
  std::lock_guard<std::mutex> lock(mutex_);
  folders_.emplace_back(fs::absolute(root));
}

}  // namespace hlo_lsp
