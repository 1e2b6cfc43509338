#include "server/common/graph_render.h"

#include <mutex>

#include "absl/status/status.h"
#include "server/common/graphviz_api.h"

namespace hlo_lsp {
namespace {

std::mutex& GraphvizMutex() {
  static std::mutex* mutex = new std::mutex;
  return *mutex;
}

// What Graphviz reported during the current call (under the mutex).
std::string* Messages() {
  static std::string* messages = new std::string;
  return messages;
}

int CatchMessage(char* message) {
  if (Messages()->size() < 4096) Messages()->append(message);
  return 0;
}

// One context for the process: loading the plugins costs milliseconds.
GVC_t* Context(const GraphvizApi& gv) {
  static GVC_t* context = gv.gvContext();
  return context;
}

// The Graphviz API of Debian 12 (2.43) takes char* for read-only strings.
char* C(const char* text) { return const_cast<char*>(text); }
char* C(const std::string& text) { return const_cast<char*>(text.c_str()); }

void Set(const GraphvizApi& gv, void* object, const char* name,
         const std::string& value) {
  gv.agsafeset(object, C(name), C(value), C(""));
}

// Marks the value HTML-like (`<...>` in DOT) rather than a quoted string.
void SetHtml(const GraphvizApi& gv, Agraph_t* graph, void* object,
             const char* name, const std::string& html) {
  char* value = gv.agstrdup_html(graph, C(html));
  gv.agsafeset(object, C(name), value, C(""));
  gv.agstrfree(graph, value);
}

// agwrite's output channel: a std::string, so DOT needs no file and no
// layout (2.43's "canon" renderer insists on one).
int AppendToString(void* channel, const char* text) {
  static_cast<std::string*>(channel)->append(text);
  return 0;
}
int NoFlush(void*) { return 0; }
Agiodisc_t kStringIo = {nullptr, AppendToString, NoFlush};

absl::StatusOr<std::string> Draw(const GraphvizApi& gv, Agraph_t* graph,
                                 RenderFormat format) {
  std::string out;
  if (format == RenderFormat::kDot) {
    if (gv.agwrite(graph, &out) != 0 || out.empty()) {
      return absl::InternalError("Graphviz could not write DOT: " +
                                 *Messages());
    }
    return out;
  }
  GVC_t* context = Context(gv);
  if (context == nullptr) return absl::InternalError("Graphviz did not start");
  if (gv.gvLayout(context, graph, "dot") != 0) {
    return absl::InternalError("Graphviz layout failed: " + *Messages());
  }
  char* data = nullptr;
  unsigned int length = 0;
  int failed = gv.gvRenderData(context, graph, "svg", &data, &length);
  if (failed == 0 && data != nullptr) out.assign(data, length);
  if (data != nullptr) gv.gvFreeRenderData(data);
  gv.gvFreeLayout(context, graph);
  if (failed != 0 || out.empty()) {
    return absl::InternalError("Graphviz rendering failed: " + *Messages());
  }
  return out;
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // Control bytes are not XML; Graphviz would reject the label.
        out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    }
  }
  return out;
}

absl::StatusOr<std::string> Render(const RenderGraph& picture,
                                   RenderFormat format) {
  absl::StatusOr<const GraphvizApi*> api = LoadGraphvizApi();
  if (!api.ok()) return api.status();
  const GraphvizApi& gv = **api;
  std::lock_guard<std::mutex> lock(GraphvizMutex());
  Messages()->clear();
  gv.agseterr(AGERR);  // warnings are not failures
  gv.agseterrf(CatchMessage);
  gv.agreseterrors();
  // Graphviz's own memory and id disciplines, output into a std::string.
  Agdisc_t string_disc = {gv.AgMemDisc, gv.AgIdDisc, &kStringIo};
  Agraph_t* graph = gv.agopen(C("hlo"), *gv.Agdirected, &string_disc);
  if (graph == nullptr) return absl::InternalError("Graphviz: agopen failed");
  Set(gv, graph, "rankdir", "TB");
  Set(gv, graph, "labelloc", "t");
  Set(gv, graph, "fontname", "Helvetica");
  if (!picture.html_label.empty()) {
    SetHtml(gv, graph, graph, "label", picture.html_label);
  }
  for (const RenderNode& n : picture.nodes) {
    Agnode_t* node = gv.agnode(graph, C(n.id), 1);
    if (node == nullptr) continue;
    Set(gv, node, "id", n.id);
    SetHtml(gv, graph, node, "label", n.html_label);
    Set(gv, node, "shape", n.shape);
    Set(gv, node, "style", n.style);
    Set(gv, node, "fillcolor", n.fill);
    Set(gv, node, "color", n.stroke);
    Set(gv, node, "fontcolor", n.font);
    Set(gv, node, "fontname", "Helvetica");
    Set(gv, node, "fontsize", "11");
    if (!n.tooltip.empty()) Set(gv, node, "tooltip", n.tooltip);
  }
  for (const RenderEdge& e : picture.edges) {
    Agnode_t* from = gv.agnode(graph, C(e.from), 0);
    Agnode_t* to = gv.agnode(graph, C(e.to), 0);
    if (from == nullptr || to == nullptr) continue;
    // Unnamed, so two operands from one producer are two edges.
    Agedge_t* edge = gv.agedge(graph, from, to, nullptr, 1);
    if (edge == nullptr) continue;
    if (!e.style.empty()) Set(gv, edge, "style", e.style);
    if (!e.tooltip.empty()) Set(gv, edge, "tooltip", e.tooltip);
  }
  absl::StatusOr<std::string> out = Draw(gv, graph, format);
  gv.agclose(graph);
  return out;
}

}  // namespace hlo_lsp
