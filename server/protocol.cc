#include "server/protocol.h"

#include <limits>

namespace hlo_lsp {

const Json* Member(const Json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::string StringMember(const Json& j, const char* key) {
  const Json* m = Member(j, key);
  return m != nullptr && m->is_string() ? m->get<std::string>() : std::string();
}

bool BoolPath(const Json& j, std::initializer_list<const char*> keys) {
  const Json* cur = &j;
  for (const char* k : keys) {
    cur = Member(*cur, k);
    if (cur == nullptr) return false;
  }
  return cur->is_boolean() && cur->get<bool>();
}

namespace {

bool GetString(const Json& j, const char* key, std::string* out,
               std::string* error) {
  const Json* m = Member(j, key);
  if (m == nullptr || !m->is_string()) {
    *error = std::string("expected string '") + key + "'";
    return false;
  }
  *out = m->get<std::string>();
  return true;
}

bool GetUint32(const Json& j, const char* key, uint32_t* out,
               std::string* error) {
  const Json* m = Member(j, key);
  if (m == nullptr || !m->is_number_integer()) {
    *error = std::string("expected integer '") + key + "'";
    return false;
  }
  if (m->is_number_unsigned()) {
    uint64_t v = m->get<uint64_t>();
    *out = v > std::numeric_limits<uint32_t>::max()
               ? std::numeric_limits<uint32_t>::max()
               : static_cast<uint32_t>(v);
    return true;
  }
  int64_t v = m->get<int64_t>();
  if (v < 0) {
    *error = std::string("negative '") + key + "'";
    return false;
  }
  *out = v > std::numeric_limits<uint32_t>::max()
             ? std::numeric_limits<uint32_t>::max()
             : static_cast<uint32_t>(v);
  return true;
}

bool GetInt64(const Json& j, const char* key, int64_t* out) {
  const Json* m = Member(j, key);
  if (m == nullptr || !m->is_number_integer()) return false;
  *out = m->is_number_unsigned()
             ? static_cast<int64_t>(std::min<uint64_t>(
                   m->get<uint64_t>(), std::numeric_limits<int64_t>::max()))
             : m->get<int64_t>();
  return true;
}

}  // namespace

bool FromJson(const Json& j, Position* out, std::string* error) {
  if (!j.is_object()) {
    *error = "position must be an object";
    return false;
  }
  return GetUint32(j, "line", &out->line, error) &&
         GetUint32(j, "character", &out->character, error);
}

bool FromJson(const Json& j, Range* out, std::string* error) {
  const Json* start = Member(j, "start");
  const Json* end = Member(j, "end");
  if (start == nullptr || end == nullptr) {
    *error = "range needs start and end";
    return false;
  }
  return FromJson(*start, &out->start, error) &&
         FromJson(*end, &out->end, error);
}

bool TextDocumentUri(const Json& params, std::string* uri, std::string* error) {
  const Json* td = Member(params, "textDocument");
  if (td == nullptr) {
    *error = "missing textDocument";
    return false;
  }
  return GetString(*td, "uri", uri, error);
}

bool FromJson(const Json& j, TextDocumentParams* out, std::string* error) {
  return TextDocumentUri(j, &out->uri, error);
}

bool FromJson(const Json& j, TextDocumentPositionParams* out,
              std::string* error) {
  const Json* pos = Member(j, "position");
  if (pos == nullptr) {
    *error = "missing position";
    return false;
  }
  return TextDocumentUri(j, &out->uri, error) &&
         FromJson(*pos, &out->position, error);
}

bool FromJson(const Json& j, ReferenceParams* out, std::string* error) {
  TextDocumentPositionParams base;
  if (!FromJson(j, &base, error)) return false;
  out->uri = std::move(base.uri);
  out->position = base.position;
  out->include_declaration = true;
  if (const Json* ctx = Member(j, "context")) {
    if (const Json* inc = Member(*ctx, "includeDeclaration");
        inc != nullptr && inc->is_boolean()) {
      out->include_declaration = inc->get<bool>();
    }
  }
  return true;
}

bool FromJson(const Json& j, RangeParams* out, std::string* error) {
  const Json* range = Member(j, "range");
  if (range == nullptr) {
    *error = "missing range";
    return false;
  }
  return TextDocumentUri(j, &out->uri, error) &&
         FromJson(*range, &out->range, error);
}

bool FromJson(const Json& j, DidOpenParams* out, std::string* error) {
  const Json* td = Member(j, "textDocument");
  if (td == nullptr) {
    *error = "missing textDocument";
    return false;
  }
  if (!GetString(*td, "uri", &out->uri, error) ||
      !GetString(*td, "text", &out->text, error)) {
    return false;
  }
  GetString(*td, "languageId", &out->language_id, error);
  GetInt64(*td, "version", &out->version);
  error->clear();
  return true;
}

bool FromJson(Json& j, DidOpenParams* out, std::string* error) {
  std::string text;
  if (j.is_object() && j.contains("textDocument") &&
      j["textDocument"].is_object()) {
    Json& td = j["textDocument"];
    if (td.contains("text") && td["text"].is_string()) {
      text = std::move(td["text"].get_ref<std::string&>());
      td["text"] = "";
    }
  }
  if (!FromJson(static_cast<const Json&>(j), out, error)) return false;
  out->text = std::move(text);
  return true;
}

bool FromJson(const Json& j, DidChangeParams* out, std::string* error) {
  const Json* td = Member(j, "textDocument");
  if (td == nullptr || !GetString(*td, "uri", &out->uri, error)) {
    if (error->empty()) *error = "missing textDocument";
    return false;
  }
  GetInt64(*td, "version", &out->version);
  const Json* changes = Member(j, "contentChanges");
  if (changes == nullptr || !changes->is_array()) {
    *error = "contentChanges must be an array";
    return false;
  }
  out->changes.clear();
  for (const Json& c : *changes) {
    ContentChange change;
    if (!GetString(c, "text", &change.text, error)) return false;
    if (const Json* r = Member(c, "range")) {
      Range range;
      if (!FromJson(*r, &range, error)) return false;
      change.range = range;
    }
    out->changes.push_back(std::move(change));
  }
  return true;
}

bool FromJson(const Json& j, CallHierarchyItem* out, std::string* error) {
  const Json* item = Member(j, "item");
  if (item == nullptr) {
    *error = "missing item";
    return false;
  }
  if (!GetString(*item, "name", &out->name, error) ||
      !GetString(*item, "uri", &out->uri, error)) {
    return false;
  }
  const Json* range = Member(*item, "range");
  const Json* sel = Member(*item, "selectionRange");
  if (range == nullptr || sel == nullptr) {
    *error = "item needs range and selectionRange";
    return false;
  }
  return FromJson(*range, &out->range, error) &&
         FromJson(*sel, &out->selection_range, error);
}

std::optional<bool> InlayHintSetting(const Json& settings) {
  if (!settings.is_object()) return std::nullopt;
  if (const Json* hlo = Member(settings, "hlo")) {
    if (auto v = InlayHintSetting(*hlo)) return v;
  }
  const Json* v = Member(settings, "inlayHints");
  if (v == nullptr) return std::nullopt;
  if (v->is_boolean()) return v->get<bool>();
  if (const Json* enabled = Member(*v, "enabled");
      enabled != nullptr && enabled->is_boolean()) {
    return enabled->get<bool>();
  }
  return std::nullopt;
}

std::optional<size_t> WorkspaceSymbolLimitSetting(const Json& settings) {
  if (!settings.is_object()) return std::nullopt;
  if (const Json* hlo = Member(settings, "hlo")) {
    if (auto v = WorkspaceSymbolLimitSetting(*hlo)) return v;
  }
  const Json* v = Member(settings, "workspaceSymbolLimit");
  if (v == nullptr || !v->is_number_integer()) return std::nullopt;
  const int64_t limit = v->get<int64_t>();
  if (limit < 1 || limit > static_cast<int64_t>(kMaxWorkspaceSymbolLimit)) {
    return std::nullopt;
  }
  return static_cast<size_t>(limit);
}

std::optional<VerifySetting> VerifySettingOf(const Json& settings) {
  if (!settings.is_object()) return std::nullopt;
  if (const Json* hlo = Member(settings, "hlo")) {
    if (auto v = VerifySettingOf(*hlo)) return v;
  }
  const Json* v = Member(settings, "verify");
  if (v == nullptr) return std::nullopt;
  VerifySetting out{.mode = VerifySetting::Mode::kList};
  if (v->is_string()) {
    out.list = v->get<std::string>();
    if (out.list == "auto") out.mode = VerifySetting::Mode::kAuto;
    if (out.list == "off") out.mode = VerifySetting::Mode::kOff;
    return out;
  }
  if (!v->is_array()) return std::nullopt;
  for (const Json& name : *v) {
    if (!name.is_string()) return std::nullopt;
    if (!out.list.empty()) out.list += ',';
    out.list += name.get<std::string>();
  }
  if (out.list.empty()) out.list = "default";  // [] names no option
  return out;
}

bool FromJson(const Json& j, InitializeParams* out, std::string* error) {
  if (!j.is_object()) {
    *error = "initialize params must be an object";
    return false;
  }
  if (const Json* caps = Member(j, "capabilities")) {
    if (const Json* general = Member(*caps, "general")) {
      if (const Json* enc = Member(*general, "positionEncodings");
          enc != nullptr && enc->is_array()) {
        for (const Json& e : *enc) {
          if (e.is_string())
            out->position_encodings.push_back(e.get<std::string>());
        }
      }
    }
    if (const Json* td = Member(*caps, "textDocument")) {
      if (const Json* ds = Member(*td, "documentSymbol")) {
        const Json* h = Member(*ds, "hierarchicalDocumentSymbolSupport");
        out->hierarchical_symbols =
            h != nullptr && h->is_boolean() && h->get<bool>();
      }
    }
  }
  if (const Json* trace = Member(j, "trace");
      trace != nullptr && trace->is_string()) {
    out->trace = trace->get<std::string>();
  }
  if (const Json* opts = Member(j, "initializationOptions")) {
    out->inlay_hints = InlayHintSetting(*opts);
    out->workspace_symbol_limit = WorkspaceSymbolLimitSetting(*opts);
    out->verify = VerifySettingOf(*opts);
  }
  if (const Json* folders = Member(j, "workspaceFolders");
      folders != nullptr && folders->is_array()) {
    for (const Json& f : *folders) {
      std::string uri = StringMember(f, "uri");
      if (!uri.empty()) out->workspace_folders.push_back(std::move(uri));
    }
  }
  out->root_uri = StringMember(j, "rootUri");
  out->root_path = StringMember(j, "rootPath");
  if (const Json* caps = Member(j, "capabilities")) {
    out->inlay_refresh_support =
        BoolPath(*caps, {"workspace", "inlayHint", "refreshSupport"});
    out->progress_support = BoolPath(*caps, {"window", "workDoneProgress"});
    out->watch_support = BoolPath(
        *caps, {"workspace", "didChangeWatchedFiles", "dynamicRegistration"});
    out->show_document_support =
        BoolPath(*caps, {"window", "showDocument", "support"});
    out->show_message_support = Member(*caps, "window") != nullptr;
    if (const Json* props = Member(*caps, "workspace")) {
      for (const char* key : {"symbol", "resolveSupport", "properties"}) {
        props = props ? Member(*props, key) : nullptr;
      }
      if (props != nullptr && props->is_array()) {
        for (const Json& p : *props) {
          if (p == "location.range") out->symbol_resolve_support = true;
        }
      }
    }
  }
  return true;
}

Json ToJson(const Position& p) {
  return Json{{"line", p.line}, {"character", p.character}};
}

Json ToJson(const Range& r) {
  return Json{{"start", ToJson(r.start)}, {"end", ToJson(r.end)}};
}

Json ToJson(const Location& l) {
  return Json{{"uri", l.uri}, {"range", ToJson(l.range)}};
}

Json ToJson(const DocumentSymbol& s) {
  Json out{{"name", s.name.empty() ? std::string("<anonymous>") : s.name},
           {"kind", static_cast<int>(s.kind)},
           {"range", ToJson(s.range)},
           {"selectionRange", ToJson(s.selection_range)}};
  if (!s.detail.empty()) out["detail"] = s.detail;
  if (!s.children.empty()) out["children"] = ToJsonArray(s.children);
  return out;
}

Json ToJson(const Hover& h) {
  Json out{{"contents", {{"kind", "markdown"}, {"value", h.markdown}}}};
  if (h.range) out["range"] = ToJson(*h.range);
  return out;
}

Json ToJson(const InlayHint& h) {
  return Json{{"position", ToJson(h.position)},
              {"label", h.label},
              {"kind", 1},
              {"paddingRight", h.padding_right}};
}

Json ToJson(const Diagnostic& d) {
  Json out{{"range", ToJson(d.range)},
           {"severity", static_cast<int>(d.severity)},
           {"source", "hlo"},
           {"message", d.message}};
  if (!d.related.empty()) {
    Json& related = out["relatedInformation"] = Json::array();
    for (const DiagnosticRelatedInformation& r : d.related) {
      related.push_back(
          Json{{"location", ToJson(r.location)}, {"message", r.message}});
    }
  }
  return out;
}

Json ToJson(const PublishDiagnosticsParams& p) {
  Json out{{"uri", p.uri}, {"diagnostics", ToJsonArray(p.diagnostics)}};
  if (p.version) out["version"] = *p.version;
  return out;
}

Json ToJson(const FoldingRange& f) {
  Json out{{"startLine", f.start_line}, {"endLine", f.end_line}};
  if (!f.kind.empty()) out["kind"] = f.kind;
  return out;
}

Json ToJson(const DocumentHighlight& h) {
  return Json{{"range", ToJson(h.range)}, {"kind", h.kind}};
}

Json ToJson(const DocumentLink& l) {
  Json out{{"range", ToJson(l.range)}, {"target", l.target}};
  if (!l.tooltip.empty()) out["tooltip"] = l.tooltip;
  return out;
}

Json ToJson(const CallHierarchyItem& i) {
  Json out{{"name", i.name},
           {"kind", static_cast<int>(i.kind)},
           {"uri", i.uri},
           {"range", ToJson(i.range)},
           {"selectionRange", ToJson(i.selection_range)}};
  if (!i.detail.empty()) out["detail"] = i.detail;
  return out;
}

Json ToJson(const CallHierarchyCall& c, bool incoming) {
  return Json{{incoming ? "from" : "to", ToJson(c.item)},
              {"fromRanges", ToJsonArray(c.from_ranges)}};
}

Json ToJson(const CallHierarchyCalls& c) {
  Json out = Json::array();
  for (const CallHierarchyCall& call : c.calls)
    out.push_back(ToJson(call, c.incoming));
  return out;
}

namespace {

void AppendUint(std::string* out, uint64_t v) {
  char buf[24];
  char* end = buf + sizeof(buf);
  char* p = end;
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  out->append(p, end);
}

void AppendRange(std::string* out, const Range& r) {
  out->append("{\"start\":{\"line\":");
  AppendUint(out, r.start.line);
  out->append(",\"character\":");
  AppendUint(out, r.start.character);
  out->append("},\"end\":{\"line\":");
  AppendUint(out, r.end.line);
  out->append(",\"character\":");
  AppendUint(out, r.end.character);
  out->append("}}");
}

void AppendSymbol(std::string* out, const DocumentSymbol& s, int depth) {
  out->append("{\"name\":");
  AppendJsonString(out,
                   s.name.empty() ? std::string_view("<anonymous>") : s.name);
  if (!s.detail.empty()) {
    out->append(",\"detail\":");
    AppendJsonString(out, s.detail);
  }
  out->append(",\"kind\":");
  AppendUint(out, static_cast<uint64_t>(s.kind));
  out->append(",\"range\":");
  AppendRange(out, s.range);
  out->append(",\"selectionRange\":");
  AppendRange(out, s.selection_range);
  if (!s.children.empty() && depth < 8) {
    out->append(",\"children\":[");
    for (size_t i = 0; i < s.children.size(); ++i) {
      if (i) out->push_back(',');
      AppendSymbol(out, s.children[i], depth + 1);
    }
    out->push_back(']');
  }
  out->push_back('}');
}

}  // namespace

RawJson EncodeSymbols(const std::vector<DocumentSymbol>& symbols) {
  RawJson raw;
  raw.text.push_back('[');
  for (size_t i = 0; i < symbols.size(); ++i) {
    if (i) raw.text.push_back(',');
    AppendSymbol(&raw.text, symbols[i], 0);
  }
  raw.text.push_back(']');
  return raw;
}

RawJson EncodeSemanticTokens(const SemanticTokens& tokens) {
  RawJson raw;
  raw.text.reserve(tokens.data.size() * 3 + 16);
  raw.text.append("{\"data\":[");
  for (size_t i = 0; i < tokens.data.size(); ++i) {
    if (i) raw.text.push_back(',');
    AppendUint(&raw.text, tokens.data[i]);
  }
  raw.text.append("]}");
  return raw;
}

Json ToJson(const SemanticTokens& t) { return Json{{"data", t.data}}; }

}  // namespace hlo_lsp
