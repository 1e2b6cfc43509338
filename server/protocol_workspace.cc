#include "server/protocol_workspace.h"

#include "server/json_writer.h"

namespace hlo_lsp {
namespace {

// An optional string member: absent is fine, another type is an error.
bool OptionalString(const Json& j, const char* key, std::string* out,
                    std::string* error) {
  const Json* m = Member(j, key);
  if (m == nullptr || m->is_null()) return true;
  if (!m->is_string()) {
    *error = std::string("expected string '") + key + "'";
    return false;
  }
  *out = m->get<std::string>();
  return true;
}

bool OptionalBool(const Json& j, const char* key, bool* out,
                  std::string* error) {
  const Json* m = Member(j, key);
  if (m == nullptr || m->is_null()) return true;
  if (!m->is_boolean()) {
    *error = std::string("expected boolean '") + key + "'";
    return false;
  }
  *out = m->get<bool>();
  return true;
}

bool ExpectObject(const Json& j, const char* what, std::string* error) {
  if (j.is_object()) return true;
  *error = std::string(what) + " must be an object";
  return false;
}

// The `uri` of each object in the array at `key`.
std::vector<std::string> UrisOf(const Json& j, const char* key) {
  std::vector<std::string> uris;
  const Json* list = Member(j, key);
  if (list == nullptr || !list->is_array()) return uris;
  for (const Json& item : *list) {
    std::string uri = StringMember(item, "uri");
    if (!uri.empty()) uris.push_back(std::move(uri));
  }
  return uris;
}

template <typename T>
Json Optional(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

}  // namespace

// ------------------------------------------------------------- decoding --

bool FromJson(const Json&, NoParams*, std::string*) { return true; }
bool FromJson(const Json&, AnyResult*, std::string*) { return true; }

bool FromJson(const Json& j, SetTraceParams* out, std::string*) {
  out->value = StringMember(j, "value");  // anything else leaves tracing as is
  return true;
}

bool FromJson(const Json& j, CancelParams* out, std::string*) {
  if (const Json* id = Member(j, "id")) out->id = RequestId(*id);
  return true;  // an unknown id cancels nothing
}

bool FromJson(const Json& j, DidCloseParams* out, std::string* error) {
  return TextDocumentUri(j, &out->uri, error);
}

bool FromJson(const Json& j, ConfigurationParams* out, std::string*) {
  if (const Json* settings = Member(j, "settings")) {
    out->inlay_hints = InlayHintSetting(*settings);
    out->workspace_symbol_limit = WorkspaceSymbolLimitSetting(*settings);
    out->verify = VerifySettingOf(*settings);
  }
  return true;
}

bool FromJson(const Json& j, DidChangeWatchedFilesParams* out, std::string*) {
  out->uris = UrisOf(j, "changes");
  return true;
}

bool FromJson(const Json& j, WorkspaceFoldersChangeParams* out, std::string*) {
  const Json* event = Member(j, "event");
  if (event == nullptr) return true;
  out->added = UrisOf(*event, "added");
  out->removed = UrisOf(*event, "removed");
  return true;
}

bool FromJson(const Json& j, WorkspaceSymbolParams* out, std::string* error) {
  return ExpectObject(j, "params", error) &&
         OptionalString(j, "query", &out->query, error);
}

bool FromJson(const Json& j, WorkspaceSymbol* out, std::string* error) {
  if (!ExpectObject(j, "params", error) ||
      !OptionalString(j, "name", &out->name, error) ||
      !OptionalString(j, "containerName", &out->container, error)) {
    return false;
  }
  if (const Json* kind = Member(j, "kind");
      kind != nullptr && kind->is_number_integer()) {
    out->kind = kind->get<int>();
  }
  const Json* location = Member(j, "location");
  if (location == nullptr || !location->is_object()) {
    *error = "expected object 'location'";
    return false;
  }
  if (!OptionalString(*location, "uri", &out->location.uri, error))
    return false;
  if (const Json* range = Member(*location, "range")) {
    return FromJson(*range, &out->location.range, error);
  }
  // A symbol whose range was left for resolve carries its site in `data`.
  const Json* data = Member(j, "data");
  const Json* line = data ? Member(*data, "line") : nullptr;
  const Json* column = data ? Member(*data, "column") : nullptr;
  auto u32 = [](const Json* v) {
    return v != nullptr && v->is_number_unsigned() &&
           v->get<uint64_t>() <= UINT32_MAX;
  };
  if (!u32(line) || !u32(column)) {
    *error = "expected 'location.range' or 'data' {line, column}";
    return false;
  }
  SymbolSite site;
  site.line = line->get<uint32_t>();
  site.column = column->get<uint32_t>();
  if (!OptionalBool(*data, "nonAscii", &site.non_ascii_prefix, error)) {
    return false;
  }
  out->site = site;
  return true;
}

bool FromJson(const Json& j, CodeActionParams* out, std::string* error) {
  return TextDocumentUri(j, &out->uri, error);
}

bool FromJson(const Json& j, UriParams* out, std::string* error) {
  return ExpectObject(j, "arguments", error) &&
         OptionalString(j, "uri", &out->uri, error);
}

bool FromJson(const Json& j, DiffArgs* out, std::string* error) {
  if (!ExpectObject(j, "arguments", error) ||
      !OptionalString(j, "uri", &out->uri, error) ||
      !OptionalString(j, "otherUri", &out->other_uri, error)) {
    return false;
  }
  if (out->uri.empty() || out->other_uri.empty()) {
    *error = "expected {uri, otherUri}";
    return false;
  }
  return true;
}

bool FromJson(const Json& j, GraphArgs* out, std::string* error) {
  if (!ExpectObject(j, "arguments", error) ||
      !OptionalString(j, "uri", &out->uri, error) ||
      !OptionalString(j, "name", &out->name, error)) {
    return false;
  }
  if (out->uri.empty()) {
    *error = "expected {uri, name?, depth?}";
    return false;
  }
  if (const Json* depth = Member(j, "depth"); depth && !depth->is_null()) {
    if (!depth->is_number_integer() || depth->get<int64_t>() < 0 ||
        depth->get<int64_t>() > 1000) {
      *error = "expected 'depth' an integer in [0, 1000]";
      return false;
    }
    out->depth = static_cast<int>(depth->get<int64_t>());
  }
  return true;
}

bool FromJson(const Json& j, ReplayResultParams* out, std::string* error) {
  const Json* id = Member(j, "id");
  if (id == nullptr || !id->is_number_integer()) {
    *error = "expected integer 'id' from hlo.replay";
    return false;
  }
  out->id = id->get<int64_t>();
  return true;
}

bool FromJson(const Json& j, ReplayArgs* out, std::string* error) {
  if (!ExpectObject(j, "arguments", error) ||
      !OptionalString(j, "uri", &out->uri, error) ||
      !OptionalString(j, "platform", &out->platform, error) ||
      !OptionalString(j, "snapshot", &out->snapshot, error) ||
      !OptionalBool(j, "fakeData", &out->fake_data, error)) {
    return false;
  }
  if (const Json* timeout = Member(j, "timeout");
      timeout != nullptr && !timeout->is_null()) {
    if (!timeout->is_number() || timeout->get<double>() < 0) {
      *error = "expected seconds >= 0 'timeout' (0: no limit)";
      return false;
    }
    out->timeout = timeout->get<double>();
  }
  if (const Json* platforms = Member(j, "platforms");
      platforms != nullptr && !platforms->is_null()) {
    if (!platforms->is_array()) {
      *error = "expected array of strings 'platforms'";
      return false;
    }
    for (const Json& p : *platforms) {
      if (!p.is_string()) {
        *error = "expected array of strings 'platforms'";
        return false;
      }
      out->platforms.push_back(p.get<std::string>());
    }
  }
  return true;
}

bool FromJson(const Json& j, SearchArgs* out, std::string* error) {
  return ExpectObject(j, "arguments", error) &&
         OptionalString(j, "query", &out->query, error) &&
         OptionalString(j, "root", &out->root, error);
}

bool FromJson(const Json& j, MessageActionResult* out, std::string*) {
  out->dismissed = j.is_null();
  out->title = StringMember(j, "title");
  return true;
}

// ------------------------------------------------------------- encoding --

namespace {

void WriteRange(JsonWriter& w, const Range& r) {
  w.BeginObject().Key("start").BeginObject();
  w.Key("line").Uint(r.start.line).Key("character").Uint(r.start.character);
  w.EndObject().Key("end").BeginObject();
  w.Key("line").Uint(r.end.line).Key("character").Uint(r.end.character);
  w.EndObject().EndObject();
}

void WriteWorkspaceSymbol(JsonWriter& w, const WorkspaceSymbol& s) {
  w.BeginObject().Key("name").String(s.name).Key("kind").Int(s.kind);
  w.Key("location").BeginObject().Key("uri").String(s.location.uri);
  if (!s.site) {
    w.Key("range");
    WriteRange(w, s.location.range);
  }
  w.EndObject();
  if (!s.container.empty()) w.Key("containerName").String(s.container);
  if (s.site) {
    w.Key("data").BeginObject();
    w.Key("line").Uint(s.site->line).Key("column").Uint(s.site->column);
    if (s.site->non_ascii_prefix) w.Key("nonAscii").Bool(true);
    w.EndObject();
  }
  w.EndObject();
}

}  // namespace

RawJson EncodeWorkspaceSymbols(const std::vector<WorkspaceSymbol>& symbols) {
  RawJson raw;
  raw.text.reserve(symbols.size() * 256 + 2);
  JsonWriter w(&raw.text);
  w.BeginArray();
  for (const WorkspaceSymbol& s : symbols) WriteWorkspaceSymbol(w, s);
  w.EndArray();
  return raw;
}

RawJson EncodeWorkspaceSymbol(const WorkspaceSymbol& symbol) {
  RawJson raw;
  JsonWriter w(&raw.text);
  WriteWorkspaceSymbol(w, symbol);
  return raw;
}

Json ToJson(const CommandArgs& a) {
  Json out{{"uri", a.uri}};
  if (a.other_uri) out["otherUri"] = *a.other_uri;
  if (a.platform) out["platform"] = *a.platform;
  if (!a.platforms.empty()) out["platforms"] = a.platforms;
  return out;
}

Json ToJson(const Command& c) {
  return Json{{"title", c.title},
              {"command", c.command},
              {"arguments", Json::array({ToJson(c.argument)})}};
}

Json ToJson(const CodeAction& a) {
  return Json{
      {"title", a.title}, {"kind", a.kind}, {"command", ToJson(a.command)}};
}

Json ToJson(const CodeLens& l) {
  return Json{{"range", ToJson(l.range)}, {"command", ToJson(l.command)}};
}

Json ToJson(const ProtoTextReply& r) {
  return Json{{"text", r.text}, {"truncated", r.truncated}, {"kind", r.kind}};
}

Json ToJson(const ModuleFileEntry& f) {
  Json out{{"uri", f.uri}, {"stage", f.stage}};
  if (f.step) out["step"] = *f.step;
  if (!f.kind.empty()) out["kind"] = f.kind;
  return out;
}

Json ToJson(const DiffReply& d) {
  auto instructions = [](const std::vector<DiffInstructionEntry>& list) {
    Json out = Json::array();
    for (const DiffInstructionEntry& e : list) {
      out.push_back({{"computation", e.computation},
                     {"name", e.name},
                     {"opcode", e.opcode},
                     {"shape", e.shape},
                     {"line", e.line}});
    }
    return out;
  };
  Json renamed = Json::array();
  for (const DiffRenameEntry& e : d.renamed) {
    renamed.push_back({{"computation", e.computation},
                       {"from", e.from},
                       {"to", e.to},
                       {"line", e.line},
                       {"oldLine", e.old_line}});
  }
  Json changed = Json::array();
  for (const DiffChangeEntry& e : d.changed) {
    changed.push_back({{"computation", e.computation},
                       {"name", e.name},
                       {"field", e.field},
                       {"old", e.old_value},
                       {"new", e.new_value},
                       {"line", e.line},
                       {"oldLine", e.old_line}});
  }
  Json out{
      {"a", d.a},
      {"b", d.b},
      {"added", instructions(d.added)},
      {"removed", instructions(d.removed)},
      {"renamed", std::move(renamed)},
      {"changed", std::move(changed)},
      {"computations",
       {{"added", d.computations_added}, {"removed", d.computations_removed}}}};
  if (!d.errors.empty()) out["errors"] = d.errors;
  return out;
}

Json ToJson(const GraphReply& g) {
  Json nodes = Json::array();
  for (const GraphNodeEntry& n : g.nodes) {
    Json node{{"name", n.name}, {"line", n.line}};
    if (n.computation) node["computation"] = true;
    nodes.push_back(std::move(node));
  }
  return Json{{"svg", g.svg}, {"nodes", std::move(nodes)}, {"cut", g.cut}};
}

Json ToJson(const BundleReply& b) {
  Json files = Json::array();
  for (const BundleFileEntry& f : b.files) {
    files.push_back({{"path", f.path}, {"name", f.name}, {"size", f.size}});
  }
  return Json{{"path", b.path},
              {"uri", b.uri},
              {"files", std::move(files)},
              {"manifest", b.manifest}};
}

Json ToJson(const BisectReply& b) {
  Json steps = Json::array();
  for (const BisectStepEntry& s : b.steps) {
    steps.push_back({{"uri", s.uri}, {"label", s.label}, {"result", s.result}});
  }
  Json out{{"outcome", b.outcome},     {"summary", b.summary},
           {"module", b.module},       {"arguments", b.arguments},
           {"dumps", b.dumps},         {"mismatches", b.mismatches},
           {"steps", std::move(steps)}};
  auto optional = [&](const char* key, const std::string& value) {
    if (!value.empty()) out[key] = value;
  };
  if (b.step) out["step"] = *b.step;
  optional("pass", b.pass);
  optional("label", b.label);
  optional("referenceUri", b.reference_uri);
  optional("beforeUri", b.before_uri);
  optional("afterUri", b.after_uri);
  optional("firstOutput", b.first_output);
  optional("error", b.error);
  if (b.instruction) {
    out["instruction"] = {{"name", b.instruction->name},
                          {"opcode", b.instruction->opcode},
                          {"line", b.instruction->line},
                          {"detail", b.instruction->detail}};
  }
  if (b.diff) out["diff"] = ToJson(*b.diff);
  return out;
}

// The keys of `hlo-lsp memory --json` (server/cli/memory.cc).
Json ToJson(const MemoryReply& m) {
  const MemoryReport& r = *m.report;
  const hlo::AllocationTotals t = r.Totals();
  Json out{
      {"uri", m.uri},
      {"source", r.SourceName()},
      {"path", r.path},
      {"module", r.module_path.empty() ? Json(nullptr) : Json(r.module_path)},
      {"total", t.total},
      {"totals",
       {{"parameter", t.parameter},
        {"constant", t.constant},
        {"maybe_live_out", t.maybe_live_out},
        {"preallocated_temp", t.preallocated_temp},
        {"thread_local", t.thread_local_},
        {"temp", t.temp}}}};
  Json allocations = Json::array();
  for (const hlo::Allocation& a : r.dump.allocations) {
    Json values = Json::array();
    for (const hlo::AssignedValue& v : a.values) {
      values.push_back({{"name", v.instruction},
                        {"index", v.shape_index},
                        {"offset", v.offset},
                        {"size", v.size},
                        {"shape", v.shape}});
    }
    allocations.push_back({{"index", a.index},
                           {"size", a.size},
                           {"rounded", a.size_rounded},
                           {"kind", a.Kind()},
                           {"kinds", a.Kinds()},
                           {"values", std::move(values)}});
  }
  out["allocations"] = std::move(allocations);
  Json peak = Json::array();
  for (const hlo::PeakValue& p : r.dump.peak) {
    peak.push_back({{"name", p.instruction},
                    {"index", p.shape_index},
                    {"bytes", p.bytes}});
  }
  out["peak"] = {
      {"time", r.dump.peak_time ? Json(*r.dump.peak_time) : Json(nullptr)},
      {"computed", r.dump.peak_computed},
      {"values", std::move(peak)}};
  Json buffers = Json::array();
  for (size_t i = 0; i < r.oom.buffers.size(); ++i) {
    const hlo::OomBuffer& b = r.oom.buffers[i];
    Json matches = Json::array();
    for (const OomMatch& x :
         i < r.matches.size() ? r.matches[i] : std::vector<OomMatch>{}) {
      matches.push_back(
          {{"name", x.name}, {"computation", x.computation}, {"line", x.line}});
    }
    buffers.push_back({{"number", b.number},
                       {"line", b.line},
                       {"size", b.size},
                       {"label", b.label},
                       {"shape", b.shape},
                       {"op_name", b.op_name},
                       {"entry_parameter", b.entry_parameter},
                       {"matches", std::move(matches)}});
  }
  out["buffers"] = std::move(buffers);
  if (r.oom.requested) out["requested"] = *r.oom.requested;
  Json problems = Json::array();
  for (const hlo::ReadProblem& p : r.dump.problems) {
    problems.push_back({{"line", p.line}, {"message", p.message}});
  }
  out["problems"] = std::move(problems);
  if (!r.note.empty()) out["note"] = r.note;
  return out;
}

Json ToJson(const SearchHit& h) {
  auto or_null = [](const std::string& s) {
    return s.empty() ? Json(nullptr) : Json(s);
  };
  return Json{{"path", h.path},
              {"line", h.line},
              {"col", h.col},
              {"kind", h.kind},
              {"name", h.name},
              {"module", or_null(h.module)},
              {"opcode", or_null(h.opcode)},
              {"shape", or_null(h.shape)}};
}

Json ToJson(const WrittenFile& f) {
  if (f.cancelled) return Json{{"cancelled", true}};
  Json out{{"uri", f.uri}};
  if (f.kind) out["kind"] = *f.kind;
  if (f.bytes) out["bytes"] = *f.bytes;
  if (f.modules) out["modules"] = *f.modules;
  if (f.note) out["note"] = *f.note;
  return out;
}

Json ToJson(const ReplayStarted& r) {
  return Json{{"id", r.id}, {"status", "running"}, {"module", r.module}};
}

Json ToJson(const ReplayStatEntry& s) {
  return Json{{"name", s.name},
              {"opcode", s.opcode},
              {"line", s.line},
              {"elements", s.elements},
              {"nan", s.nan},
              {"inf", s.inf},
              {"min", Optional(s.min)},
              {"max", Optional(s.max)},
              {"mean", Optional(s.mean)}};
}

Json ToJson(const ReplayReport& r) {
  Json outputs = Json::array(), stats = Json::array();
  for (const ReplayOutputEntry& o : r.outputs) {
    outputs.push_back({{"name", o.name},
                       {"shape", o.shape},
                       {"value", o.value},
                       {"elements", o.elements},
                       {"nan", o.nan},
                       {"inf", o.inf},
                       {"min", Optional(o.min)},
                       {"max", Optional(o.max)},
                       {"mean", Optional(o.mean)}});
  }
  for (const ReplayStatEntry& s : r.stats) stats.push_back(ToJson(s));
  Json out{{"summary", r.summary}, {"outcome", r.outcome},
           {"outputs", outputs},   {"stats", stats},
           {"notes", r.notes},     {"seconds", r.seconds}};
  if (!r.uri.empty()) out["uri"] = r.uri;
  out["firstNonFinite"] =
      r.first_non_finite ? ToJson(*r.first_non_finite) : Json(nullptr);
  if (!r.error.empty()) out["error"] = r.error;
  if (r.mismatches) out["mismatches"] = *r.mismatches;
  if (r.divergence) {
    const ReplayDivergence& d = *r.divergence;
    out["divergence"] = {{"name", d.name},
                         {"opcode", d.opcode},
                         {"line", d.line},
                         {"run", d.run},
                         {"detail", d.detail}};
  }
  return out;
}

Json ToJson(const WorkDoneProgress& p) {
  Json out{{"kind", p.kind}};
  if (p.title) out["title"] = *p.title;
  if (p.message) out["message"] = *p.message;
  if (p.percentage) out["percentage"] = *p.percentage;
  if (p.cancellable) out["cancellable"] = *p.cancellable;
  return out;
}

Json ToJson(const ProgressParams& p) {
  return Json{{"token", p.token}, {"value", ToJson(p.value)}};
}

Json ToJson(const WorkDoneProgressCreateParams& p) {
  return Json{{"token", p.token}};
}

Json ToJson(const FileWatcherRegistration& r) {
  Json watchers = Json::array({Json{{"globPattern", r.glob}}});
  return Json{
      {"registrations",
       Json::array({Json{{"id", r.id},
                         {"method", "workspace/didChangeWatchedFiles"},
                         {"registerOptions", {{"watchers", watchers}}}}})}};
}

Json ToJson(const ShowMessageRequestParams& p) {
  Json actions = Json::array();
  for (const std::string& title : p.actions)
    actions.push_back(Json{{"title", title}});
  return Json{{"type", p.type}, {"message", p.message}, {"actions", actions}};
}

Json ToJson(const ShowDocumentParams& p) {
  return Json{{"uri", p.uri}, {"takeFocus", p.take_focus}};
}

Json ToJson(const LogMessageParams& p) {
  return Json{{"type", p.type}, {"message", p.message}};
}

// The capabilities, one per method the server binds (lsp_server.cc): keep
// them in step.
Json ToJson(const InitializeResult& r) {
  Json legend{{"tokenTypes", r.token_types},
              {"tokenModifiers", r.token_modifiers}};
  Json capabilities{
      {"positionEncoding", r.utf8 ? "utf-8" : "utf-16"},
      {"textDocumentSync",
       {{"openClose", true},
        {"change", 2},
        {"save", {{"includeText", false}}}}},
      {"documentSymbolProvider", true},
      {"definitionProvider", true},
      {"declarationProvider", true},
      {"referencesProvider", true},
      {"documentHighlightProvider", true},
      {"hoverProvider", true},
      {"inlayHintProvider", true},
      {"foldingRangeProvider", true},
      {"semanticTokensProvider",
       {{"legend", legend}, {"full", true}, {"range", true}}},
      {"documentLinkProvider", {{"resolveProvider", false}}},
      {"callHierarchyProvider", true},
      {"workspaceSymbolProvider", {{"resolveProvider", true}}},
      {"workspace",
       {{"workspaceFolders",
         {{"supported", true}, {"changeNotifications", true}}}}},
      {"codeActionProvider", true},
      {"codeLensProvider", {{"resolveProvider", false}}},
      {"executeCommandProvider", {{"commands", r.commands}}},
  };
  // Whether a GPU answered (clients hide the GPU commands where none did).
  capabilities["experimental"] = {
      {"gpu",
       {{"available", !r.gpu.empty()},
        {"device", r.gpu.empty() ? Json(nullptr) : Json(r.gpu)}}}};
  return Json{{"capabilities", capabilities},
              {"serverInfo", {{"name", "hlo-lsp"}, {"version", r.version}}}};
}

}  // namespace hlo_lsp
