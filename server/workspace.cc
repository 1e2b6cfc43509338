#include "server/workspace.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <system_error>

#include "exec/literal.h"
#include "exec/platform.h"
#include "exec/replay.h"
#include "hlo/parser.h"
#include "hlo/proto/convert.h"
#include "hlo/proto/decode.h"
#include "server/cli/file_reader.h"
#include "server/cli/replay.h"
#include "server/cli/search.h"
#include "server/documents.h"

namespace hlo_lsp {
namespace fs = std::filesystem;
namespace {

constexpr int kError = 1, kInfo = 3;
constexpr size_t kMaxWorkspaceSymbols = 500;
constexpr size_t kMaxSearchHits = 500;
constexpr int kAskTimeoutMs = 5 * 60 * 1000;

RpcError Invalid(std::string message) {
  return RpcError{ErrorCode::kInvalidParams, std::move(message)};
}
RpcError Failed(std::string message) {
  return RpcError{ErrorCode::kRequestFailed, std::move(message)};
}

std::string StringField(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}
bool BoolAt(const Json& j, std::initializer_list<const char*> keys) {
  const Json* cur = &j;
  for (const char* k : keys) {
    if (!cur->is_object()) return false;
    auto it = cur->find(k);
    if (it == cur->end()) return false;
    cur = &*it;
  }
  return cur->is_boolean() && cur->get<bool>();
}
// The first argument object of an executeCommand.
Json FirstArgument(const Json& params) {
  auto it = params.find("arguments");
  if (it != params.end() && it->is_array() && !it->empty() && (*it)[0].is_object()) {
    return (*it)[0];
  }
  return Json::object();
}
bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
// `.pb` and `.pb.gz`; `.pbtxt` too unless it is HLO text (first token
// `HloModule`), which is how the contracts detect HLO in `.pbtxt` files.
bool IsProtoPath(const std::string& path) {
  if (EndsWith(path, ".pb") || EndsWith(path, ".pb.gz")) return true;
  if (!EndsWith(path, ".pbtxt")) return false;
  std::ifstream in(path, std::ios::binary);
  char head[4096];
  in.read(head, sizeof head);
  return !hlo::proto::StartsWithHloModule(
      std::string_view(head, static_cast<size_t>(in.gcount())));
}
std::string StripSuffixes(std::string path, std::initializer_list<std::string_view> suffixes) {
  for (std::string_view s : suffixes) {
    if (EndsWith(path, s)) path.resize(path.size() - s.size());
  }
  return path;
}

int LspSymbolKind(hlo::index::SymbolKind kind) {
  switch (kind) {
    case hlo::index::SymbolKind::kModule: return 2;        // Module
    case hlo::index::SymbolKind::kComputation: return 12;  // Function
    case hlo::index::SymbolKind::kInstruction: return 13;  // Variable
    case hlo::index::SymbolKind::kMetadata: return 15;     // String
  }
  return 13;
}

// UTF-16 code units in UTF-8 `bytes`.
size_t Utf16Length(std::string_view bytes) {
  size_t n = 0;
  for (unsigned char c : bytes) {
    if ((c & 0xC0) != 0x80) n += c >= 0xF0 ? 2 : 1;
  }
  return n;
}

// Line `line` (1-based) of a file; nullopt when it cannot be read.
std::optional<std::string> ReadLine(const std::string& path, uint32_t line) {
  std::ifstream in(path, std::ios::binary);
  std::string text;
  for (uint32_t i = 0; i < line; ++i) {
    if (!std::getline(in, text)) return std::nullopt;
  }
  return text;
}

// The index keeps byte columns; a UTF-16 client gets code units, converted
// from the line's text only when the index saw a non-ASCII byte before the
// symbol.
Json SymbolLocation(const hlo::index::SymbolMatch& m, bool utf16) {
  uint32_t line = m.line > 0 ? m.line - 1 : 0, col = m.column > 0 ? m.column - 1 : 0;
  size_t start = col, end = col + m.name.size();
  if (utf16) {
    if ((m.flags & hlo::index::kFlagNonAsciiPrefix) != 0) {
      std::optional<std::string> text = ReadLine(m.absolute_path, m.line);
      if (text && col <= text->size()) start = Utf16Length(std::string_view(*text).substr(0, col));
    }
    end = start + Utf16Length(m.name);
  }
  return Json{{"uri", PathToUri(m.absolute_path)},
              {"range",
               {{"start", {{"line", line}, {"character", start}}},
                {"end", {{"line", line}, {"character", end}}}}}};
}

// The stage label of a dump file: its name without the module prefix.
Json ModuleFileJson(const hlo::index::ModuleFile& f) {
  const hlo::index::DumpFileName& d = f.dump;
  std::string name = fs::path(f.path).filename().string();
  std::string stage;
  switch (d.kind) {
    case hlo::index::DumpKind::kStage:
      stage = d.stage;
      break;
    case hlo::index::DumpKind::kPassDump:
      stage = d.pipeline + ".after_" + d.after_pass + ".before_" + d.before_pass;
      break;
    case hlo::index::DumpKind::kPassStep:
      stage = d.pipeline + "." + d.before_pass;
      break;
    default:
      stage = name;
  }
  Json j{{"uri", PathToUri(fs::absolute(f.path).lexically_normal().string())},
         {"stage", stage}};
  if (d.step >= 0) j["step"] = d.step;
  return j;
}

absl::StatusOr<hlo::proto::ProtoTextResult> ProtoFileToText(const std::string& path,
                                                            size_t cap) {
  auto contents = cli::FileContents::Read(path);
  if (!contents.ok()) return contents.status();
  std::string_view bytes = contents->text();
  if (hlo::proto::IsGzip(bytes) || hlo::proto::LooksLikeBinaryProto(bytes)) {
    return hlo::proto::ConvertProtoFileToText(bytes, cap);
  }
  return hlo::proto::ConvertTextProtoToText(bytes, cap);
}

absl::Status WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return absl::InternalError("cannot write " + path);
  return absl::OkStatus();
}

}  // namespace

const std::vector<std::string>& WorkspaceCommands() {
  static const std::vector<std::string> kCommands = {
      "hlo.convertToText", "hlo.exportProto", "hlo.replay",
      "hlo.compare",       "hlo.moduleFiles", "hlo.search"};
  return kCommands;
}

// ------------------------------------------------------------ lifecycle --

WorkspaceService::WorkspaceService(Hooks hooks, Options options)
    : hooks_(std::move(hooks)), options_(options) {
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
    Progress(Json{{"kind", "report"},
                  {"message", std::to_string(p.done) + "/" + std::to_string(p.total) + " files"},
                  {"percentage", percent}});
  };
  index_ = std::make_unique<hlo::index::WorkspaceIndex>(std::move(io));
}

WorkspaceService::~WorkspaceService() { Shutdown(); }

void WorkspaceService::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (indexer_.joinable()) indexer_.join();
  std::map<int64_t, std::shared_ptr<ReplayJob>> jobs;
  {
    std::lock_guard<std::mutex> lock(jobs_mutex_);
    jobs.swap(jobs_);
  }
  jobs.clear();  // each job's destructor cancels and joins its run
}

void WorkspaceService::Initialize(const Json& params) {
  std::vector<fs::path> folders;
  if (auto wf = params.find("workspaceFolders"); wf != params.end() && wf->is_array()) {
    for (const Json& f : *wf) {
      std::string path = UriToPath(StringField(f, "uri"));
      if (!path.empty()) folders.emplace_back(path);
    }
  }
  if (folders.empty()) {
    std::string path = UriToPath(StringField(params, "rootUri"));
    if (path.empty()) path = StringField(params, "rootPath");
    if (!path.empty()) folders.emplace_back(path);
  }
  Json caps = params.value("capabilities", Json::object());
  // The position encoding the server picks (lsp_server.cc): utf-8 when the
  // client offers it, else utf-16.
  bool utf8 = false;
  if (auto general = caps.find("general"); general != caps.end() && general->is_object()) {
    if (auto enc = general->find("positionEncodings"); enc != general->end() && enc->is_array()) {
      for (const Json& e : *enc) utf8 |= e.is_string() && e.get<std::string>() == "utf-8";
    }
  }
  utf16_ = !utf8;
  std::lock_guard<std::mutex> lock(mutex_);
  folders_ = std::move(folders);
  progress_support_ = BoolAt(caps, {"window", "workDoneProgress"});
  watch_support_ = BoolAt(caps, {"workspace", "didChangeWatchedFiles", "dynamicRegistration"});
  show_document_support_ = BoolAt(caps, {"window", "showDocument", "support"});
  show_message_support_ = caps.is_object() && caps.contains("window");
}

void WorkspaceService::Initialized() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (indexer_.joinable()) return;
  indexer_ = std::thread([this] { IndexLoop(); });
}

void WorkspaceService::Progress(const Json& value) {
  std::string token;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    token = progress_token_;
  }
  if (!token.empty()) hooks_.notify("$/progress", Json{{"token", token}, {"value", value}});
}

void WorkspaceService::IndexLoop() {
  std::vector<fs::path> folders;
  bool progress, watch;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    folders = folders_;
    progress = progress_support_;
    watch = watch_support_;
  }
  if (watch) {
    Json watchers = Json::array({Json{{"globPattern", "**/*.{txt,hlo,pbtxt}"}}});
    Json reg{{"registrations",
              Json::array({Json{{"id", "hlo-lsp-watch"},
                                {"method", "workspace/didChangeWatchedFiles"},
                                {"registerOptions", {{"watchers", watchers}}}}})}};
    if (!hooks_.call("client/registerCapability", reg, 10000, nullptr)) {
      hooks_.log(kInfo, "file watching not registered; re-checking the folders on a timer");
      watch = false;
    }
  }
  if (progress && !folders.empty()) {
    std::string token = "hlo-lsp/index";
    if (hooks_.call("window/workDoneProgress/create", Json{{"token", token}}, 10000, nullptr)) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        progress_token_ = token;
      }
      Progress(Json{{"kind", "begin"}, {"title", "Indexing HLO files"},
                    {"cancellable", false}, {"percentage", 0}});
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
  for (const std::string& w : index_->TakeWarnings()) hooks_.log(kInfo, "index: " + w);
  hlo::index::IndexStats stats = index_->stats();
  Progress(Json{{"kind", "end"},
                {"message", std::to_string(stats.hlo_files) + " HLO files, " +
                                std::to_string(stats.symbols) + " symbols"}});
  {
    std::lock_guard<std::mutex> lock(mutex_);
    progress_token_.clear();
    indexing_done_ = true;
  }
  wake_.notify_all();
  hooks_.log(kInfo, "indexed " + std::to_string(stats.hlo_files) + " HLO files");

  // Then: refresh on file events, and re-stat on a timer when nobody tells us.
  auto next_poll = std::chrono::steady_clock::now() + std::chrono::seconds(options_.poll_seconds);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait_until(lock, next_poll, [&] {
      return stopping_ || !pending_refresh_.empty() || !pending_folders_.empty();
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
      for (const std::string& w : index_->TakeWarnings()) hooks_.log(kInfo, "index: " + w);
      lock.lock();
      continue;
    }
    std::vector<fs::path> paths;
    paths.swap(pending_refresh_);
    bool poll = false;
    if (!watch && std::chrono::steady_clock::now() >= next_poll) {
      poll = true;
      next_poll = std::chrono::steady_clock::now() + std::chrono::seconds(options_.poll_seconds);
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

void WorkspaceService::FilesChanged(const Json& params) {
  auto changes = params.find("changes");
  if (changes == params.end() || !changes->is_array()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Json& c : *changes) {
    std::string path = UriToPath(StringField(c, "uri"));
    if (!path.empty()) pending_refresh_.emplace_back(path);
  }
  wake_.notify_all();
}

void WorkspaceService::FoldersChanged(const Json& params) {
  auto event = params.find("event");
  if (event == params.end() || !event->is_object()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto each = [&](const char* key, bool added) {
    auto list = event->find(key);
    if (list == event->end() || !list->is_array()) return;
    for (const Json& f : *list) {
      std::string path = UriToPath(StringField(f, "uri"));
      if (path.empty()) continue;
      std::error_code ec;
      fs::path folder = fs::absolute(path, ec).lexically_normal();
      folders_.erase(std::remove(folders_.begin(), folders_.end(), folder), folders_.end());
      if (added) folders_.push_back(folder);
      pending_folders_.emplace_back(folder, added);
    }
  };
  each("removed", false);
  each("added", true);
  wake_.notify_all();
}

// -------------------------------------------------------------- symbols --

WorkspaceService::Reply WorkspaceService::Symbols(const Json& params) {
  std::string query = StringField(params, "query");
  auto matches = index_->Query(query, kMaxWorkspaceSymbols);
  if (!matches.ok()) return Invalid(std::string(matches.status().message()));
  Json out = Json::array();
  for (const hlo::index::SymbolMatch& m : *matches) {
    Json s{{"name", m.name}, {"kind", LspSymbolKind(m.kind)}, {"location", SymbolLocation(m, utf16_)}};
    if (!m.module.empty()) s["containerName"] = m.module;
    out.push_back(std::move(s));
  }
  return out;
}

WorkspaceService::Reply WorkspaceService::Search(const Json& args,
                                                 const std::atomic<bool>* cancelled) {
  std::string query = StringField(args, "query");
  if (query.empty()) return Invalid("hlo.search needs {query}");
  bool no_folders;
  {
    // An explicit search is complete, unlike workspace/symbol as you type:
    // wait for the first indexing of the folders.
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_ && !indexing_done_ && indexer_.joinable()) {
      if (cancelled && cancelled->load()) return RpcError{ErrorCode::kRequestCancelled, "cancelled"};
      wake_.wait_for(lock, std::chrono::milliseconds(100));
    }
    no_folders = folders_.empty();
  }
  // A client without workspace folders (Vim) names its dump folder.
  std::string root = StringField(args, "root");
  if (no_folders && !root.empty()) {
    index_->AddFolder(fs::absolute(root));
    std::lock_guard<std::mutex> lock(mutex_);
    folders_.emplace_back(fs::absolute(root));
  }
  auto matches = index_->Query(query, kMaxSearchHits);
  if (!matches.ok()) return Invalid(std::string(matches.status().message()));
  Json out = Json::array();
  for (hlo::index::SymbolMatch m : *matches) {
    m.path = m.absolute_path;  // the editor opens it from anywhere
    Json j = Json::parse(cli::FormatSearchJson(m), nullptr, false);
    if (!j.is_discarded()) out.push_back(std::move(j));
  }
  return out;
}

std::vector<hlo::index::ModuleFile> WorkspaceService::ModuleFilesOf(const std::string& path) {
  std::vector<hlo::index::ModuleFile> files = index_->ModuleFiles(path);
  if (files.empty()) {
    // Not indexed yet (outside the folders, or indexing still runs): look
    // at its own folder now.
    index_->Refresh({fs::path(path).parent_path()});
    files = index_->ModuleFiles(path);
  }
  return files;
}

Json WorkspaceService::ModuleFilesJson(const std::string& path) {
  Json out = Json::array();
  bool self_listed = false;
  std::string self = fs::absolute(path).lexically_normal().string();
  for (const hlo::index::ModuleFile& f : ModuleFilesOf(path)) {
    Json j = ModuleFileJson(f);
    if (fs::absolute(f.path).lexically_normal().string() == self) self_listed = true;
    out.push_back(std::move(j));
  }
  if (!self_listed) {
    // A .pb or a file the index does not hold: still list the file itself.
    out.push_back(Json{{"uri", PathToUri(self)}, {"stage", fs::path(self).filename().string()}});
  }
  return out;
}

WorkspaceService::Reply WorkspaceService::ModuleFilesRequest(const Json& params) {
  std::string path = UriToPath(StringField(params, "uri"));
  if (path.empty()) return Invalid("expected {uri} with a file URI");
  return ModuleFilesJson(path);
}

Json WorkspaceService::DefinitionElsewhere(const std::string& uri, const std::string& name) {
  Json out = Json::array();
  std::string path = UriToPath(uri);
  if (path.empty() || name.empty()) return out;
  std::string self = fs::absolute(path).lexically_normal().string();
  std::vector<std::string> others;
  for (const hlo::index::ModuleFile& f : ModuleFilesOf(path)) {
    std::string p = fs::absolute(f.path).lexically_normal().string();
    if (p != self) others.push_back(p);
  }
  if (others.empty()) return out;
  auto matches = index_->Query("kind:computation " + name, 0);
  if (!matches.ok()) return out;
  for (const hlo::index::SymbolMatch& m : *matches) {
    if (m.name != name) continue;
    if (std::find(others.begin(), others.end(), m.absolute_path) == others.end()) continue;
    out.push_back(SymbolLocation(m, utf16_));
  }
  return out;
}

// ----------------------------------------------------------- conversion --

WorkspaceService::Reply WorkspaceService::ProtoToText(const Json& params) {
  std::string path = UriToPath(StringField(params, "uri"));
  if (path.empty()) return Invalid("expected {uri} with a file URI");
  auto r = ProtoFileToText(path, options_.proto_text_cap);
  if (!r.ok()) return Failed(std::string(r.status().message()));
  return Json{{"text", std::move(r->text)}, {"truncated", r->truncated}, {"kind", r->kind}};
}

std::optional<std::string> WorkspaceService::ChooseOutput(
    const std::string& wanted, const std::atomic<bool>* cancelled) {
  std::error_code ec;
  if (!fs::exists(wanted, ec)) return wanted;
  bool ask;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ask = show_message_support_;
  }
  if (ask) {
    Json params{{"type", 3},
                {"message", fs::path(wanted).filename().string() + " exists. Overwrite it?"},
                {"actions", Json::array({Json{{"title", "Overwrite"}}, Json{{"title", "Cancel"}}})}};
    std::optional<Json> answer =
        hooks_.call("window/showMessageRequest", params, kAskTimeoutMs, cancelled);
    if (cancelled && cancelled->load()) return std::nullopt;  // the request was cancelled
    if (answer && answer->is_object()) {
      std::string title = StringField(*answer, "title");
      if (title == "Overwrite") return wanted;
      if (title == "Cancel") return std::nullopt;
    } else if (answer && answer->is_null()) {
      return std::nullopt;  // dismissed
    }
  }
  // No answer: keep the existing file, write beside it.
  fs::path p(wanted);
  std::string stem = (p.parent_path() / p.stem()).string(), ext = p.extension().string();
  for (int n = 1; n < 1000; ++n) {
    std::string candidate = stem + "." + std::to_string(n) + ext;
    if (!fs::exists(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

void WorkspaceService::ShowDocument(const std::string& path) {
  bool show;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    show = show_document_support_;
  }
  if (show) {
    hooks_.call("window/showDocument", Json{{"uri", PathToUri(path)}, {"takeFocus", true}},
                10000, nullptr);
  }
}

WorkspaceService::Reply WorkspaceService::ConvertToText(const Json& args,
                                                        const std::atomic<bool>* cancelled) {
  std::string path = UriToPath(StringField(args, "uri"));
  if (path.empty()) return Invalid("hlo.convertToText needs {uri} with a file URI");
  auto r = ProtoFileToText(path, std::numeric_limits<size_t>::max());
  if (!r.ok()) return Failed(std::string(r.status().message()));
  std::string wanted = StripSuffixes(path, {".gz", ".pb", ".pbtxt"}) + ".txt";
  std::optional<std::string> out = ChooseOutput(wanted, cancelled);
  if (!out) return Json{{"cancelled", true}};
  if (absl::Status st = WriteFile(*out, r->text); !st.ok()) return Failed(std::string(st.message()));
  ShowDocument(*out);
  return Json{{"uri", PathToUri(*out)}, {"kind", r->kind}};
}

WorkspaceService::Reply WorkspaceService::ExportProto(const Json& args,
                                                      const std::atomic<bool>* cancelled) {
  std::string uri = StringField(args, "uri");
  std::string path = UriToPath(uri);
  if (path.empty()) return Invalid("hlo.exportProto needs {uri} with a file URI");
  std::shared_ptr<const std::string> text = hooks_.text(uri);
  if (!text) return Failed("cannot read " + path);
  size_t modules = 0;
  auto bytes = hlo::proto::ConvertTextToHloProtoBytes(*text, &modules);
  if (!bytes.ok()) return Failed(std::string(bytes.status().message()));
  std::string wanted = StripSuffixes(path, {".txt", ".hlo"}) + ".pb";
  std::optional<std::string> out = ChooseOutput(wanted, cancelled);
  if (!out) return Json{{"cancelled", true}};
  if (absl::Status st = WriteFile(*out, *bytes); !st.ok()) return Failed(std::string(st.message()));
  Json result{{"uri", PathToUri(*out)}, {"bytes", bytes->size()}, {"modules", modules}};
  if (modules > 1) result["note"] = "an HloProto holds one module: exported the first";
  return result;
}

// --------------------------------------------------------------- replay --

struct WorkspaceService::ReplayJob {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  Json result;
  std::atomic<bool> cancel{false};
  std::thread thread;
  ~ReplayJob() {
    cancel = true;
    if (thread.joinable()) thread.join();
  }
};

namespace {

Json ReplayJson(const std::string& module_name, const std::string& platform,
                const hlo::exec::ReplayResult& r, const std::string& arg_source,
                const std::vector<std::string>* mismatches) {
  Json outputs = Json::array(), stats = Json::array();
  for (const auto& [name, v] : r.outputs) {
    std::string s = v->ToString(8);
    outputs.push_back({{"name", name}, {"shape", hlo::exec::ShapeString(v->shape())},
                       {"value", s}});
  }
  for (const auto& s : r.stats) {
    const bool any = s.stats.elements > s.stats.nan_count + s.stats.inf_count;
    stats.push_back({{"name", s.name}, {"opcode", s.opcode}, {"line", s.line},
                     {"elements", s.stats.elements}, {"nan", s.stats.nan_count},
                     {"inf", s.stats.inf_count},
                     {"min", any ? Json(s.stats.min) : Json()},
                     {"max", any ? Json(s.stats.max) : Json()},
                     {"mean", any ? Json(s.stats.mean()) : Json()}});
  }
  std::string summary;
  if (r.outcome != hlo::exec::ReplayOutcome::kOk) {
    summary = "replay of " + module_name + " failed: " + r.error;
  } else {
    char buf[256];
    std::snprintf(buf, sizeof buf, "replayed %s on %s in %.3f s (%lld participant%s), arguments: %s",
                  module_name.c_str(), platform.c_str(), r.seconds, static_cast<long long>(r.participants),
                  r.participants == 1 ? "" : "s", arg_source.c_str());
    summary = buf;
    if (r.first_nonfinite) {
      summary += "; first NaN/Inf at line " + std::to_string(r.first_nonfinite->line) + ": %" +
                 r.first_nonfinite->name;
    } else {
      summary += "; no NaN or Inf produced";
    }
    const std::string reference = platform == "gpu" ? "the CPU run's" : "the snapshot's";
    if (mismatches) {
      summary += mismatches->empty() ? "; matches " + reference + " result"
                                     : "; differs from " + reference + " result";
    }
    if (r.divergence) {
      summary += "; first divergence at line " + std::to_string(r.divergence->gpu.line) + ": %" +
                 r.divergence->gpu.name + " (" + r.divergence->detail + ")";
    }
  }
  Json j{{"summary", summary},
         {"outcome", r.outcome == hlo::exec::ReplayOutcome::kOk       ? "ok"
                     : r.outcome == hlo::exec::ReplayOutcome::kRefused ? "refused"
                                                                       : "failed"},
         {"outputs", outputs},
         {"stats", stats},
         {"notes", r.notes},
         {"seconds", r.seconds}};
  if (!r.error.empty()) j["error"] = r.error;
  if (mismatches) j["mismatches"] = *mismatches;
  if (r.divergence) {
    j["divergence"] = {{"name", r.divergence->gpu.name},
                       {"opcode", r.divergence->gpu.opcode},
                       {"line", r.divergence->gpu.line},
                       {"run", r.divergence->run},
                       {"detail", r.divergence->detail}};
  }
  return j;
}

}  // namespace

WorkspaceService::Reply WorkspaceService::StartReplay(const Json& args, bool compare) {
  std::string uri = StringField(args, "uri");
  std::string path = UriToPath(uri);
  if (path.empty()) return Invalid("expected {uri} with a file URI");
  std::vector<std::string> platforms;
  if (compare) {
    if (auto p = args.find("platforms"); p != args.end() && p->is_array()) {
      for (const Json& x : *p) {
        if (x.is_string()) platforms.push_back(x.get<std::string>());
      }
    }
  } else {
    std::string platform = StringField(args, "platform");
    platforms.push_back(platform.empty() ? "cpu" : platform);
  }
  bool gpu = false;
  for (const std::string& p : platforms) {
    if (p != "cpu" && p != "gpu") return Invalid("unknown platform: " + p);
    gpu = gpu || p == "gpu";
  }
  std::string no_gpu;
  if (gpu) {
    const hlo::exec::GpuInfo info = hlo::exec::QueryGpuInChild();
    if (!info.available()) {
      if (!compare) return Failed(info.Describe());
      no_gpu = info.Describe();
      gpu = false;  // compare the CPU run with a snapshot's result instead
    }
  }

  // The module: the document's text, or the module inside a proto.
  std::shared_ptr<const std::string> text;
  std::optional<cli::SnapshotContents> snapshot;
  if (IsProtoPath(path)) {
    auto bytes = cli::FileContents::Read(path);
    if (!bytes.ok()) return Failed(std::string(bytes.status().message()));
    auto s = cli::LoadSnapshot(bytes->text());
    if (!s.ok()) return Failed(path + ": " + std::string(s.status().message()));
    if (s->module_text.empty()) return Failed(path + " holds no module");
    text = std::make_shared<const std::string>(s->module_text);
    snapshot = *std::move(s);
  } else {
    text = hooks_.text(uri);
    if (!text) return Failed("cannot read " + path);
  }
  std::string snapshot_uri = StringField(args, "snapshot");
  if (!snapshot_uri.empty()) {
    std::string sp = UriToPath(snapshot_uri);
    if (sp.empty()) sp = snapshot_uri;
    auto bytes = cli::FileContents::Read(sp);
    if (!bytes.ok()) return Failed(std::string(bytes.status().message()));
    auto s = cli::LoadSnapshot(bytes->text());
    if (!s.ok()) return Failed(sp + ": " + std::string(s.status().message()));
    snapshot = *std::move(s);
  }
  if (compare && !gpu) {
    // CPU only: the reference must be a recorded result.
    if (!snapshot || snapshot->results.empty()) {
      return Failed("hlo.compare: " + (no_gpu.empty() ? std::string() : no_gpu + ", so ") +
                    "it compares the CPU run with a snapshot's recorded result; pass {snapshot} "
                    "naming an HloSnapshot with a result (none found for " + path + ")");
    }
  }
  bool fake = args.value("fakeData", false);

  auto file = std::shared_ptr<const hlo::ParsedFile>(hlo::Parse(*text));
  if (file->HasErrors() || file->modules.empty()) {
    return Failed(file->modules.empty() ? "no HloModule in " + path
                                        : "the module has syntax errors; fix them to replay");
  }
  auto job = std::make_shared<ReplayJob>();
  int64_t id;
  std::vector<std::shared_ptr<ReplayJob>> dropped;  // destroyed outside the lock
  {
    std::lock_guard<std::mutex> lock(jobs_mutex_);
    id = next_job_++;
    jobs_[id] = job;
    // Keep the latest results only: a result holds per-instruction stats.
    constexpr size_t kKeptJobs = 16;
    for (auto it = jobs_.begin(); jobs_.size() > kKeptJobs && it != jobs_.end();) {
      std::lock_guard<std::mutex> job_lock(it->second->mutex);
      if (it->second->done) {
        dropped.push_back(it->second);
        it = jobs_.erase(it);
      } else {
        ++it;
      }
    }
  }
  std::string module_name = file->modules[0].name.empty()
                                ? "module"
                                : std::string(file->Text(file->modules[0].name));
  ReplayJob* raw = job.get();
  job->thread = std::thread([raw, file, text, snapshot, fake, compare, gpu, module_name, path] {
    hlo::exec::ReplayOptions options;
    options.collect_stats = true;
    if (gpu) options.platform = hlo::exec::Platform::kGpu;
    options.compare_with_cpu = gpu && compare;
    options.cancel = &raw->cancel;
    std::string arg_source = "fake data";
    hlo::exec::ReplayResult r;
    bool have_arguments = true;
    if (snapshot && snapshot->has_arguments && !fake) {
      auto arguments = cli::SnapshotArguments(*snapshot, *file, 0);
      if (arguments.ok()) {
        options.arguments = *std::move(arguments);
        options.arguments_given = true;
        arg_source = "snapshot";
      } else {
        have_arguments = false;
        r.outcome = hlo::exec::ReplayOutcome::kRefused;
        r.error = "snapshot arguments: " + std::string(arguments.status().message());
      }
    }
    if (have_arguments) r = hlo::exec::Replay(*file, 0, options);
    std::vector<std::string> mismatches;
    bool compared = compare && r.outcome == hlo::exec::ReplayOutcome::kOk;
    if (compared)
      mismatches = gpu ? hlo::exec::CompareOutputs(r.reference_outputs, r.outputs)
                       : hlo::exec::CompareOutputs(snapshot->results, r.outputs);
    Json result = ReplayJson(module_name, gpu ? "gpu" : "cpu", r, arg_source,
                             compared ? &mismatches : nullptr);
    std::lock_guard<std::mutex> lock(raw->mutex);
    raw->result = std::move(result);
    raw->done = true;
    raw->done_cv.notify_all();
  });
  return Json{{"id", id}, {"status", "running"}, {"module", module_name}};
}

WorkspaceService::Reply WorkspaceService::ReplayResultRequest(
    const Json& params, const std::atomic<bool>* cancelled) {
  if (!params.is_object() || !params.contains("id") || !params["id"].is_number_integer()) {
    return Invalid("expected {id} from hlo.replay");
  }
  int64_t id = params["id"].get<int64_t>();
  std::shared_ptr<ReplayJob> job;
  {
    std::lock_guard<std::mutex> lock(jobs_mutex_);
    auto it = jobs_.find(id);
    if (it != jobs_.end()) job = it->second;
  }
  if (!job) return Invalid("no replay with id " + std::to_string(id));
  std::unique_lock<std::mutex> lock(job->mutex);
  while (!job->done) {
    job->done_cv.wait_for(lock, std::chrono::milliseconds(100));
    if (cancelled && cancelled->load()) {
      return RpcError{ErrorCode::kRequestCancelled, "cancelled"};
    }
  }
  return job->result;
}

// ------------------------------------------------------------- commands --

WorkspaceService::Reply WorkspaceService::ExecuteCommand(const Json& params,
                                                         const std::atomic<bool>* cancelled) {
  std::string command = StringField(params, "command");
  Json args = FirstArgument(params);
  if (command == "hlo.convertToText") return ConvertToText(args, cancelled);
  if (command == "hlo.exportProto") return ExportProto(args, cancelled);
  if (command == "hlo.replay") return StartReplay(args, false);
  if (command == "hlo.compare") return StartReplay(args, true);
  if (command == "hlo.moduleFiles") return ModuleFilesRequest(args);
  if (command == "hlo.search") return Search(args, cancelled);
  return Invalid("unknown command: " + command);
}

WorkspaceService::Reply WorkspaceService::CodeActions(const Json& params) {
  std::string uri;
  if (auto td = params.find("textDocument"); td != params.end()) uri = StringField(*td, "uri");
  if (uri.empty()) return Invalid("missing textDocument.uri");
  Json arg{{"uri", uri}};
  auto action = [&](const std::string& title, const std::string& command, Json a) {
    return Json{{"title", title},
                {"kind", "source"},
                {"command", {{"title", title}, {"command", command}, {"arguments", {a}}}}};
  };
  Json out = Json::array();
  if (IsProtoPath(UriToPath(uri))) {
    out.push_back(action("Convert to HLO text", "hlo.convertToText", arg));
    return out;
  }
  out.push_back(action("Export as HloProto", "hlo.exportProto", arg));
  out.push_back(action("Replay on CPU", "hlo.replay", Json{{"uri", uri}, {"platform", "cpu"}}));
  // GPU actions only where a device answers (asked once, in a child process).
  if (hlo::exec::GpuBackendBuilt() && hlo::exec::QueryGpuInChild().available()) {
    out.push_back(action("Replay on GPU", "hlo.replay", Json{{"uri", uri}, {"platform", "gpu"}}));
    out.push_back(action("Compare GPU with CPU", "hlo.compare",
                         Json{{"uri", uri}, {"platforms", Json::array({"gpu", "cpu"})}}));
  }
  return out;
}

WorkspaceService::Reply WorkspaceService::CodeLenses(const std::string& uri,
                                                     const std::string& text) {
  Json out = Json::array();
  std::string path = UriToPath(uri);
  if (path.empty()) return out;
  // The HloModule line (the first line that starts with it).
  size_t line = 0, pos = 0;
  bool found = false;
  while (pos < text.size()) {
    if (text.compare(pos, 9, "HloModule") == 0) {
      found = true;
      break;
    }
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) break;
    pos = nl + 1;
    ++line;
  }
  if (!found) return out;
  Json files = ModuleFilesJson(path);
  if (files.size() <= 1) return out;
  std::string title = std::to_string(files.size() - 1) + " other stage" +
                      (files.size() == 2 ? "" : "s") + ":";
  std::string self = PathToUri(fs::absolute(path).lexically_normal().string());
  size_t listed = 0;
  for (const Json& f : files) {
    if (f["uri"] == self) continue;
    if (listed++ == 4) {
      title += " ...";
      break;
    }
    title += " " + f["stage"].get<std::string>();
  }
  Json range{{"start", {{"line", line}, {"character", 0}}},
             {"end", {{"line", line}, {"character", 9}}}};
  out.push_back(Json{{"range", range},
                     {"command", {{"title", title},
                                  {"command", "hlo.moduleFiles"},
                                  {"arguments", {Json{{"uri", uri}}}}}}});
  return out;
}

}  // namespace hlo_lsp
