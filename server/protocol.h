// Typed LSP structures and their JSON mapping. Features build and read these
// structs; only protocol.cc and lsp_server.cc see JSON.
#ifndef HLO_LSP_SERVER_PROTOCOL_H_
#define HLO_LSP_SERVER_PROTOCOL_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "server/json_rpc.h"

namespace hlo_lsp {

struct Position {
  uint32_t line = 0;
  uint32_t character = 0;
  friend bool operator==(const Position&, const Position&) = default;
};

struct Range {
  Position start;
  Position end;
  friend bool operator==(const Range&, const Range&) = default;
};

struct Location {
  std::string uri;
  Range range;
};

struct TextDocumentParams {
  std::string uri;
};

struct TextDocumentPositionParams {
  std::string uri;
  Position position;
};

struct ReferenceParams {
  std::string uri;
  Position position;
  bool include_declaration = true;
};

struct RangeParams {  // inlay hints, semantic tokens range
  std::string uri;
  Range range;
};

struct DidOpenParams {
  std::string uri;
  std::string language_id;
  int64_t version = 0;
  std::string text;
};

struct ContentChange {
  std::optional<Range> range;  // absent: the whole text is replaced
  std::string text;
};

struct DidChangeParams {
  std::string uri;
  int64_t version = 0;
  std::vector<ContentChange> changes;
};

enum class SymbolKind : int {
  kModule = 2,
  kNamespace = 3,
  kClass = 5,
  kMethod = 6,
  kField = 8,
  kFunction = 12,
  kVariable = 13,
  kConstant = 14,
  kOperator = 25,
};

struct DocumentSymbol {
  std::string name;
  std::string detail;
  SymbolKind kind = SymbolKind::kVariable;
  Range range;
  Range selection_range;
  std::vector<DocumentSymbol> children;
};

struct Hover {
  std::string markdown;
  std::optional<Range> range;
};

struct InlayHint {
  Position position;
  std::string label;
  bool padding_right = true;
};

enum class DiagnosticSeverity : int { kError = 1, kWarning = 2 };

// LSP's DiagnosticRelatedInformation: the other side of a finding.
struct DiagnosticRelatedInformation {
  Location location;
  std::string message;
};

struct Diagnostic {
  Range range;
  DiagnosticSeverity severity = DiagnosticSeverity::kError;
  std::string message;
  std::vector<DiagnosticRelatedInformation> related;  // relatedInformation
};

struct PublishDiagnosticsParams {
  std::string uri;
  std::optional<int64_t> version;
  std::vector<Diagnostic> diagnostics;
};

struct FoldingRange {
  uint32_t start_line = 0;
  uint32_t end_line = 0;
  std::string kind;  // "region", "comment" or empty
};

struct DocumentHighlight {
  Range range;
  int kind = 1;  // 1 text, 2 read, 3 write
};

struct DocumentLink {
  Range range;
  std::string target;
  std::string tooltip;
};

struct CallHierarchyItem {
  std::string name;
  SymbolKind kind = SymbolKind::kFunction;
  std::string detail;
  std::string uri;
  Range range;
  Range selection_range;
};

struct CallHierarchyCall {  // incoming: `item` is the caller; outgoing: callee
  CallHierarchyItem item;
  std::vector<Range> from_ranges;
};

// The answer of callHierarchy/incomingCalls or outgoingCalls.
struct CallHierarchyCalls {
  std::vector<CallHierarchyCall> calls;
  bool incoming = true;
};

struct SemanticTokens {
  std::vector<uint32_t> data;  // LSP's relative 5-tuples
};

// The setting hlo.verify: "auto" (the file's choice, as `check` without
// flags), "off" (as --no-verify), or XLA's HloVerifierOpts names as
// `check --verify=` takes them (a comma list, or an array of names). The
// names are the server's to check.
struct VerifySetting {
  enum class Mode { kAuto, kOff, kList };
  Mode mode = Mode::kAuto;
  std::string list;  // comma-separated, for kList
};

// What the server reads from `initialize`.
struct InitializeParams {
  std::vector<std::string> position_encodings;
  bool hierarchical_symbols = true;
  std::string trace = "off";        // off | messages | verbose
  std::optional<bool> inlay_hints;  // initializationOptions.inlayHints
  // initializationOptions.workspaceSymbolLimit
  std::optional<size_t> workspace_symbol_limit;
  std::optional<VerifySetting> verify;         // initializationOptions.verify
  std::vector<std::string> workspace_folders;  // their URIs
  std::string root_uri;
  std::string root_path;
  // Client capabilities the server acts on.
  bool inlay_refresh_support = false;  // workspace.inlayHint.refreshSupport
  bool progress_support = false;       // window.workDoneProgress
  bool watch_support =
      false;  // workspace.didChangeWatchedFiles.dynamicRegistration
  bool show_document_support = false;  // window.showDocument.support
  bool show_message_support = false;   // any window capabilities
  // workspace.symbol.resolveSupport.properties holds "location.range".
  bool symbol_resolve_support = false;
};

// ------------------------------------------------------------- decoding --
// Each returns false (with *error set, naming the field) when the JSON does
// not fit; never throws.
bool FromJson(const Json& j, Position* out, std::string* error);
bool FromJson(const Json& j, Range* out, std::string* error);
bool FromJson(const Json& j, TextDocumentParams* out, std::string* error);
bool FromJson(const Json& j, TextDocumentPositionParams* out,
              std::string* error);
bool FromJson(const Json& j, ReferenceParams* out, std::string* error);
bool FromJson(const Json& j, RangeParams* out, std::string* error);
bool FromJson(const Json& j, DidOpenParams* out, std::string* error);
// The same, taking the (possibly 100 MB) text out of `j` instead of copying.
bool FromJson(Json& j, DidOpenParams* out, std::string* error);
bool FromJson(const Json& j, DidChangeParams* out, std::string* error);
bool FromJson(const Json& j, CallHierarchyItem* out, std::string* error);
bool FromJson(const Json& j, InitializeParams* out, std::string* error);
// The `uri` of params.textDocument.
bool TextDocumentUri(const Json& params, std::string* uri, std::string* error);
// inlayHints setting from initializationOptions or didChangeConfiguration
// settings ({"hlo": {"inlayHints": bool}} or {"inlayHints": bool}).
std::optional<bool> InlayHintSetting(const Json& settings);
// The workspaceSymbolLimit setting, found the same way: a positive integer,
// at most kMaxWorkspaceSymbolLimit; anything else is no setting.
inline constexpr size_t kMaxWorkspaceSymbolLimit = 100000;
std::optional<size_t> WorkspaceSymbolLimitSetting(const Json& settings);
// The verify setting, found the same way; absent when it is neither a
// string nor an array of strings.
std::optional<VerifySetting> VerifySettingOf(const Json& settings);
// Members of an object, absent when `j` is not an object or lacks `key`.
const Json* Member(const Json& j, const char* key);
// The string at `key`; empty when absent or not a string.
std::string StringMember(const Json& j, const char* key);
// True when the path of keys leads to `true`.
bool BoolPath(const Json& j, std::initializer_list<const char*> keys);

// ------------------------------------------------------------- encoding --
Json ToJson(const Position& p);
Json ToJson(const Range& r);
Json ToJson(const Location& l);
Json ToJson(const DocumentSymbol& s);
Json ToJson(const Hover& h);
Json ToJson(const InlayHint& h);
Json ToJson(const Diagnostic& d);
Json ToJson(const PublishDiagnosticsParams& p);
Json ToJson(const FoldingRange& f);
Json ToJson(const DocumentHighlight& h);
Json ToJson(const DocumentLink& l);
Json ToJson(const CallHierarchyItem& i);
Json ToJson(const SemanticTokens& t);
Json ToJson(const CallHierarchyCall& c, bool incoming);
Json ToJson(const CallHierarchyCalls& c);

// Large replies, serialized without building a JSON DOM.
RawJson EncodeSymbols(const std::vector<DocumentSymbol>& symbols);
RawJson EncodeSemanticTokens(const SemanticTokens& tokens);

template <typename T>
Json ToJsonArray(const std::vector<T>& items) {
  Json out = Json::array();
  for (const T& item : items) out.push_back(ToJson(item));
  return out;
}

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_PROTOCOL_H_
