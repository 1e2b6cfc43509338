// Typed structures of the workspace-level protocol: folders and file
// events, workspace/symbol, code actions and lenses, executeCommand and each
// `hlo.*` command's arguments and answers, the `hlo/*` requests, and the
// requests the server sends to the client. Like protocol.h, the JSON mapping
// lives in the .cc; features build and read these structs only.
#ifndef HLO_LSP_SERVER_PROTOCOL_WORKSPACE_H_
#define HLO_LSP_SERVER_PROTOCOL_WORKSPACE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/common/memory_report.h"
#include "server/json_rpc.h"
#include "server/protocol.h"

namespace hlo_lsp {

// ------------------------------------------------------ from the client --

// Params of methods that take none (or whose params are ignored).
struct NoParams {};

struct SetTraceParams {
  std::string value;  // off | messages | verbose
};

struct CancelParams {
  RequestId id;
};

struct DidCloseParams {
  std::string uri;
};

struct ConfigurationParams {
  std::optional<bool>
      inlay_hints;  // from settings.hlo.inlayHints or settings.inlayHints
  std::optional<size_t> workspace_symbol_limit;  // ...workspaceSymbolLimit
  std::optional<VerifySetting> verify;           // ...verify
};

struct DidChangeWatchedFilesParams {
  std::vector<std::string> uris;
};

struct WorkspaceFoldersChangeParams {
  std::vector<std::string> added;    // folder URIs
  std::vector<std::string> removed;  // folder URIs
};

struct WorkspaceSymbolParams {
  std::string query;
};

struct CodeActionParams {
  std::string uri;
};

// `{uri}`: hlo/protoToText, hlo/moduleFiles, hlo.convertToText,
// hlo.exportProto, hlo.moduleFiles.
struct UriParams {
  std::string uri;
};

struct ReplayResultParams {
  int64_t id = 0;
};

// hlo.replay {uri, platform?, snapshot?, fakeData?, timeout?},
// hlo.compare {uri, platforms, snapshot?, fakeData?, timeout?} and
// hlo.bisect {uri, snapshot?, fakeData?, timeout?} (CPU only).
struct ReplayArgs {
  std::string uri;
  std::string platform;                // hlo.replay; empty means cpu
  std::vector<std::string> platforms;  // hlo.compare
  std::string snapshot;                // a URI or a path; empty when absent
  bool fake_data = false;
  double timeout = 600;  // seconds of wall clock, as the CLI's --timeout
};

// hlo.search {query, root?}.
struct SearchArgs {
  std::string query;
  std::string
      root;  // a folder to index when the client has no workspace folders
};

// ------------------------------------------------------ to the client --

// Where the index holds a symbol whose range is left for
// workspaceSymbol/resolve; it travels in the symbol's `data`.
struct SymbolSite {
  uint32_t line = 0;              // 1-based
  uint32_t column = 0;            // 1-based, bytes
  bool non_ascii_prefix = false;  // non-ASCII bytes before it on its line
};

struct WorkspaceSymbol {
  std::string name;
  int kind = 13;          // LSP SymbolKind
  Location location;      // without its range (`location: {uri}`) while `site`
  std::string container;  // omitted when empty
  std::optional<SymbolSite> site;  // set: the range is left for resolve
};

// The arguments a code action or lens hands back to executeCommand.
struct CommandArgs {
  std::string uri;
  std::optional<std::string> platform;
  std::vector<std::string> platforms;    // omitted when empty
  std::optional<std::string> other_uri;  // hlo.diff's side B
};

struct Command {
  std::string title;
  std::string command;
  CommandArgs argument;
};

struct CodeAction {
  std::string title;
  std::string kind = "source";
  Command command;
};

struct CodeLens {
  Range range;
  Command command;
};

// hlo/protoToText.
struct ProtoTextReply {
  std::string text;
  bool truncated = false;
  std::string kind;
};

// One of a module's files (hlo/moduleFiles, hlo.moduleFiles).
struct ModuleFileEntry {
  std::string uri;
  std::string stage;
  std::optional<int64_t> step;
  std::string kind;  // index::DumpFileKindName: "stage", "pass", "proto", ...
};

// hlo.diff {uri, otherUri}: side A (older) and side B (newer).
struct DiffArgs {
  std::string uri;
  std::string other_uri;
};

// hlo.diff's answer: `hlo-lsp diff A B --json` with both URIs and, for
// renamed and changed instructions, the line on each side (1-based).
struct DiffInstructionEntry {
  std::string computation, name, opcode, shape;
  int64_t line = 0;
};
struct DiffRenameEntry {
  std::string computation, from, to;
  int64_t line = 0, old_line = 0;
};
struct DiffChangeEntry {
  std::string computation, name, field, old_value, new_value;
  int64_t line = 0, old_line = 0;
};
struct DiffReply {
  std::string a, b;
  std::vector<DiffInstructionEntry> added, removed;
  std::vector<DiffRenameEntry> renamed;
  std::vector<DiffChangeEntry> changed;
  std::vector<std::string> computations_added, computations_removed;
  std::vector<std::string> errors;  // what could not be parsed, with where
};

// hlo.graph {uri, name?, depth?}: the dataflow picture of the first
// module's ENTRY, or of instruction `name`'s neighbourhood (`hlo-lsp graph`).
struct GraphArgs {
  std::string uri;
  std::string name;  // empty: the whole ENTRY computation
  int depth = 2;
};
// The SVG (node ids node_NAME / computation_NAME), each node's definition
// line (1-based, as the CLI) and whether the picture was cut.
struct GraphNodeEntry {
  std::string name;
  int64_t line = 0;
  bool computation = false;  // a called computation, not an instruction
};
struct GraphReply {
  std::string svg;
  std::vector<GraphNodeEntry> nodes;
  bool cut = false;
};

// hlo.bundle {uri}'s answer: `hlo-lsp bundle --json` (server/common/
// bundle.h) plus the archive's URI; paths are absolute.
struct BundleFileEntry {
  std::string path;  // the file bundled
  std::string name;  // its name in the archive
  uint64_t size = 0;
};
struct BundleReply {
  std::string path;  // the archive written
  std::string uri;
  std::vector<BundleFileEntry> files;
  std::string manifest;
};

// hlo.bisect's answer: `hlo-lsp replay --bisect` as JSON. `outcome`:
// "changed" (step/pass/label name the pass), "unchanged", "signature" (the
// walk stopped at `afterUri`, whose entry signature differs), "refused",
// "failed" or "cancelled". `beforeUri`/`afterUri`: the dumps either side
// of the pass; `diff`: the hlo.diff command between them.
struct BisectStepEntry {
  std::string uri, label;
  std::string result;  // reference | same | differs
};
struct BisectInstructionEntry {
  std::string name, opcode, detail;
  int64_t line = 0;  // 1-based, in the after dump
};
struct BisectReply {
  std::string outcome, summary, module, arguments;  // arguments: its source
  int64_t dumps = 0;
  std::optional<int64_t> step;
  std::string pass, label;
  std::string reference_uri, before_uri, after_uri;  // empty: absent
  std::vector<std::string> mismatches;
  std::string first_output;  // the first differing output's name
  std::optional<BisectInstructionEntry> instruction;
  std::vector<BisectStepEntry> steps;
  std::optional<Command> diff;
  std::string error;
};

// hlo.memory {uri}: `hlo-lsp memory FILE --json` (same keys, "path" and
// "module" absolute) plus the file's "uri".
struct MemoryReply {
  std::string uri;
  std::shared_ptr<const MemoryReport> report;
};

// One hit of hlo.search: the CLI's `search --json` object with an absolute
// path (module, opcode and shape are null when empty).
struct SearchHit {
  std::string path;
  uint32_t line = 0;
  uint32_t col = 0;
  std::string kind;
  std::string name;
  std::string module;
  std::string opcode;
  std::string shape;
};

// The answer of hlo.convertToText and hlo.exportProto.
struct WrittenFile {
  bool cancelled = false;  // the user declined: only {cancelled: true}
  std::string uri;
  std::optional<std::string> kind;  // convertToText: what was decoded
  std::optional<uint64_t> bytes;    // exportProto
  std::optional<uint64_t> modules;  // exportProto
  std::optional<std::string> note;
};

struct ReplayStarted {
  int64_t id = 0;
  std::string module;
};

// hlo/replayResult.
struct ReplayOutputEntry {
  std::string name;
  std::string shape;
  std::string value;  // the first elements
  int64_t elements = 0;
  int64_t nan = 0;
  int64_t inf = 0;
  std::optional<double> min, max, mean;  // null when no finite element
};
struct ReplayStatEntry {
  std::string name;
  std::string opcode;
  int64_t line = 0;
  int64_t elements = 0;
  int64_t nan = 0;
  int64_t inf = 0;
  std::optional<double> min, max, mean;  // null when no finite element
};
struct ReplayDivergence {
  std::string name;
  std::string opcode;
  int64_t line = 0;
  int64_t run = 0;
  std::string detail;
};
struct ReplayReport {
  std::string summary;
  std::string outcome;  // ok | refused | failed | cancelled
  std::string uri;      // the replayed document: where stats' lines are
  std::vector<ReplayOutputEntry> outputs;
  std::vector<ReplayStatEntry> stats;
  std::vector<std::string> notes;
  double seconds = 0;
  std::string error;                                   // omitted when empty
  std::optional<std::vector<std::string>> mismatches;  // when compared
  std::optional<ReplayDivergence> divergence;
  // The first instruction that produced a NaN or an Inf (its stats entry).
  std::optional<ReplayStatEntry> first_non_finite;
};

// $/progress values (a work-done progress report).
struct WorkDoneProgress {
  std::string kind;  // begin | report | end
  std::optional<std::string> title;
  std::optional<std::string> message;
  std::optional<uint32_t> percentage;
  std::optional<bool> cancellable;
};

struct ProgressParams {
  std::string token;
  WorkDoneProgress value;
};

struct WorkDoneProgressCreateParams {
  std::string token;
};

// client/registerCapability for workspace/didChangeWatchedFiles.
struct FileWatcherRegistration {
  std::string id;
  std::string glob;
};

struct ShowMessageRequestParams {
  int type = 3;
  std::string message;
  std::vector<std::string> actions;  // button titles
};

// The answer to window/showMessageRequest: null when dismissed.
struct MessageActionResult {
  bool dismissed = false;
  std::string title;  // empty when the answer was not an action item
};

struct ShowDocumentParams {
  std::string uri;
  bool take_focus = true;
};

struct LogMessageParams {
  int type = 3;
  std::string message;
};

// A reply whose content does not matter, only that it came.
struct AnyResult {};

// What initialize answers.
struct InitializeResult {
  bool utf8 = false;                  // the negotiated position encoding
  std::vector<std::string> commands;  // executeCommand's
  std::vector<std::string> token_types;
  std::vector<std::string> token_modifiers;
  std::string version;
  std::string gpu;  // experimental.gpu.device: the GPU, empty when none
};

// ------------------------------------------------------------- decoding --
bool FromJson(const Json& j, NoParams* out, std::string* error);
bool FromJson(const Json& j, SetTraceParams* out, std::string* error);
bool FromJson(const Json& j, CancelParams* out, std::string* error);
bool FromJson(const Json& j, DidCloseParams* out, std::string* error);
bool FromJson(const Json& j, ConfigurationParams* out, std::string* error);
bool FromJson(const Json& j, DidChangeWatchedFilesParams* out,
              std::string* error);
bool FromJson(const Json& j, WorkspaceFoldersChangeParams* out,
              std::string* error);
bool FromJson(const Json& j, WorkspaceSymbolParams* out, std::string* error);
// workspaceSymbol/resolve's params: a symbol this server sent.
bool FromJson(const Json& j, WorkspaceSymbol* out, std::string* error);
bool FromJson(const Json& j, CodeActionParams* out, std::string* error);
bool FromJson(const Json& j, UriParams* out, std::string* error);
bool FromJson(const Json& j, DiffArgs* out, std::string* error);
bool FromJson(const Json& j, GraphArgs* out, std::string* error);
bool FromJson(const Json& j, ReplayResultParams* out, std::string* error);
bool FromJson(const Json& j, ReplayArgs* out, std::string* error);
bool FromJson(const Json& j, SearchArgs* out, std::string* error);
bool FromJson(const Json& j, MessageActionResult* out, std::string* error);
bool FromJson(const Json& j, AnyResult* out, std::string* error);

// ------------------------------------------------------------- encoding --
// workspace/symbol's reply and workspaceSymbol/resolve's, written without a
// DOM (hundreds of symbols per keystroke).
RawJson EncodeWorkspaceSymbols(const std::vector<WorkspaceSymbol>& symbols);
RawJson EncodeWorkspaceSymbol(const WorkspaceSymbol& symbol);
Json ToJson(const CommandArgs& a);
Json ToJson(const Command& c);
Json ToJson(const CodeAction& a);
Json ToJson(const CodeLens& l);
Json ToJson(const ProtoTextReply& r);
Json ToJson(const ModuleFileEntry& f);
Json ToJson(const DiffReply& d);
Json ToJson(const GraphReply& g);
Json ToJson(const BundleReply& b);
Json ToJson(const BisectReply& b);
Json ToJson(const MemoryReply& m);
Json ToJson(const SearchHit& h);
Json ToJson(const WrittenFile& f);
Json ToJson(const ReplayStarted& r);
Json ToJson(const ReplayStatEntry& s);
Json ToJson(const ReplayReport& r);
Json ToJson(const WorkDoneProgress& p);
Json ToJson(const ProgressParams& p);
Json ToJson(const WorkDoneProgressCreateParams& p);
Json ToJson(const FileWatcherRegistration& r);
Json ToJson(const ShowMessageRequestParams& p);
Json ToJson(const ShowDocumentParams& p);
Json ToJson(const LogMessageParams& p);
Json ToJson(const InitializeResult& r);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_PROTOCOL_WORKSPACE_H_
