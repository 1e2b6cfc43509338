#include "server/common/graph_render.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <mutex>

#include "absl/status/status.h"

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
GVC_t* Context() {
  static GVC_t* context = gvContext();
  return context;
}

// The Graphviz API of Debian 12 (2.43) takes char* for read-only strings.
char* C(const char* text) { return const_cast<char*>(text); }
char* C(const std::string& text) { return const_cast<char*>(text.c_str()); }

void Set(void* object, const char* name, const std::string& value) {
  agsafeset(object, C(name), C(value), C(""));
}

// Marks the value HTML-like (`<...>` in DOT) rather than a quoted string.
void SetHtml(Agraph_t* graph, void* object, const char* name,
             const std::string& html) {
  char* value = agstrdup_html(graph, C(html));
  agsafeset(object, C(name), value, C(""));
  agstrfree(graph, value);
}

// agwrite's output channel: a std::string, so DOT needs no file and no
// layout (2.43's "canon" renderer insists on one).
int AppendToString(void* channel, const char* text) {
  static_cast<std::string*>(channel)->append(text);
  return 0;
}
int NoFlush(void*) { return 0; }
Agiodisc_t kStringIo = {nullptr, AppendToString, NoFlush};
Agdisc_t kStringDisc = {&AgMemDisc, &AgIdDisc, &kStringIo};

absl::StatusOr<std::string> Draw(Agraph_t* graph, RenderFormat format) {
  std::string out;
  if (format == RenderFormat::kDot) {
    if (agwrite(graph, &out) != 0 || out.empty()) {
      return absl::InternalError("Graphviz could not write DOT: " +
                                 *Messages());
    }
    return out;
  }
  GVC_t* context = Context();
  if (context == nullptr) return absl::InternalError("Graphviz did not start");
  if (gvLayout(context, graph, "dot") != 0) {
    return absl::InternalError("Graphviz layout failed: " + *Messages());
  }
  char* data = nullptr;
  unsigned int length = 0;
  int failed = gvRenderData(context, graph, "svg", &data, &length);
  if (failed == 0 && data != nullptr) out.assign(data, length);
  if (data != nullptr) gvFreeRenderData(data);
  gvFreeLayout(context, graph);
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
  std::lock_guard<std::mutex> lock(GraphvizMutex());
  Messages()->clear();
  agseterr(AGERR);  // warnings are not failures
  agseterrf(CatchMessage);
  agreseterrors();
  Agraph_t* graph = agopen(C("hlo"), Agdirected, &kStringDisc);
  if (graph == nullptr) return absl::InternalError("Graphviz: agopen failed");
  Set(graph, "rankdir", "TB");
  Set(graph, "labelloc", "t");
  Set(graph, "fontname", "Helvetica");
  if (!picture.html_label.empty())
    SetHtml(graph, graph, "label", picture.html_label);
  for (const RenderNode& n : picture.nodes) {
    Agnode_t* node = agnode(graph, C(n.id), 1);
    if (node == nullptr) continue;
    Set(node, "id", n.id);
    SetHtml(graph, node, "label", n.html_label);
    Set(node, "shape", n.shape);
    Set(node, "style", n.style);
    Set(node, "fillcolor", n.fill);
    Set(node, "color", n.stroke);
    Set(node, "fontcolor", n.font);
    Set(node, "fontname", "Helvetica");
    Set(node, "fontsize", "11");
    if (!n.tooltip.empty()) Set(node, "tooltip", n.tooltip);
  }
  for (const RenderEdge& e : picture.edges) {
    Agnode_t* from = agnode(graph, C(e.from), 0);
    Agnode_t* to = agnode(graph, C(e.to), 0);
    if (from == nullptr || to == nullptr) continue;
    // Unnamed, so two operands from one producer are two edges.
    Agedge_t* edge = agedge(graph, from, to, nullptr, 1);
    if (edge == nullptr) continue;
    if (!e.style.empty()) Set(edge, "style", e.style);
    if (!e.tooltip.empty()) Set(edge, "tooltip", e.tooltip);
  }
  absl::StatusOr<std::string> out = Draw(graph, format);
  agclose(graph);
  return out;
}

}  // namespace hlo_lsp
