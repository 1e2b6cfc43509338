// "HLO: Show Graph": the server's `hlo.graph {uri, name?, depth?}` SVG (Graphviz
// layout, contracts.md) in a webview. A click on a node opens its definition; a
// double click (or the context button) re-renders the graph around that node.
// Node ids in the SVG are `node_NAME` / `computation_NAME`.
import * as vscode from 'vscode';

// `hlo.graph` answer: lines are 1-based.
export interface GraphReply {
  svg: string;
  nodes: { name: string; line: number; computation?: boolean }[];
  cut: boolean;
}

// What the panel shows now (for the project's tests).
export interface GraphState { uri: string; name?: string; depth: number; reply: GraphReply }

type Execute = (command: string, args: object) => Promise<unknown>;

export class GraphPanel implements vscode.Disposable {
  private panel?: vscode.WebviewPanel;
  private state?: GraphState;

  constructor(private readonly execute: Execute) {}

  current(): GraphState | undefined {
    return this.state;
  }

  // The graph of `uri`: around `name` when given (depth 2), else its ENTRY.
  async show(uri: vscode.Uri, name?: string, depth = 2): Promise<void> {
    const args: { uri: string; name?: string; depth: number } = { uri: uri.toString(), depth };
    if (name) args.name = name.replace(/^%/, '');
    const reply = (await this.execute('hlo.graph', args)) as GraphReply;
    this.state = { uri: uri.toString(), name: args.name, depth, reply };
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel('hlo.graph', 'HLO Graph', vscode.ViewColumn.Beside, {
        enableScripts: true,
        retainContextWhenHidden: true,
      });
      this.panel.onDidDispose(() => (this.panel = undefined));
      this.panel.webview.onDidReceiveMessage((m) => this.onMessage(m));
    }
    this.panel.title = `HLO Graph: ${args.name ?? 'ENTRY'}`;
    this.panel.webview.html = this.html(this.state);
    this.panel.reveal(vscode.ViewColumn.Beside, true);
    if (reply.cut) {
      void vscode.window.showWarningMessage('HLO: the graph is cut at 500 instructions (the nearest are shown)');
    }
  }

  private async onMessage(m: { type: string; id: string }): Promise<void> {
    const state = this.state;
    if (!state || typeof m?.id !== 'string') return;
    const isComputation = m.id.startsWith('computation_');
    const name = m.id.replace(/^(node_|computation_)/, '');
    const node = state.reply.nodes.find((n) => n.name === name && !!n.computation === isComputation);
    if (m.type === 'open' && node && node.line > 0) {
      const pos = new vscode.Position(node.line - 1, 0);
      await vscode.window.showTextDocument(vscode.Uri.parse(state.uri), {
        viewColumn: vscode.ViewColumn.One,
        selection: new vscode.Range(pos, pos),
      });
    } else if (m.type === 'expand' && node && !isComputation) {
      await this.show(vscode.Uri.parse(state.uri), name, state.depth);
    } else if (m.type === 'entry') {
      await this.show(vscode.Uri.parse(state.uri), undefined, state.depth);
    }
  }

  private html(state: GraphState): string {
    const nonce = Math.random().toString(36).slice(2);
    // Graphviz writes the XML prolog and DOCTYPE; inline SVG needs neither.
    const svg = state.reply.svg.replace(/^[\s\S]*?(<svg)/, '$1');
    const title = state.name ? `around ${escapeHtml(state.name)} (depth ${state.depth})` : 'ENTRY';
    return `<!DOCTYPE html><html><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}';">
<style>
body { background: #fff; color: #000; margin: 0; }
header { position: sticky; top: 0; background: #f5f5f5; padding: 4px 8px; font: 12px sans-serif; border-bottom: 1px solid #ddd; }
g.node { cursor: pointer; }
g.node:hover polygon, g.node:hover ellipse { stroke-width: 3; }
</style></head><body>
<header>${title}${state.reply.cut ? ' &mdash; <b>cut at 500 nodes</b>' : ''} &mdash; click: go to definition; double click: graph around it
${state.name ? ' &mdash; <a href="#" id="entry">whole ENTRY</a>' : ''}</header>
${svg}
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
let timer;
for (const g of document.querySelectorAll('g.node')) {
  g.addEventListener('click', () => {
    clearTimeout(timer);
    timer = setTimeout(() => vscode.postMessage({ type: 'open', id: g.id }), 250);
  });
  g.addEventListener('dblclick', () => { clearTimeout(timer); vscode.postMessage({ type: 'expand', id: g.id }); });
}
const entry = document.getElementById('entry');
if (entry) entry.addEventListener('click', (e) => { e.preventDefault(); vscode.postMessage({ type: 'entry', id: '' }); });
</script></body></html>`;
  }

  dispose(): void {
    this.panel?.dispose();
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// The instruction name under the cursor of `editor`, if any (`%` dropped).
export function nameAtCursor(editor: vscode.TextEditor | undefined): string | undefined {
  if (!editor) return undefined;
  const range = editor.document.getWordRangeAtPosition(editor.selection.active, /%?[A-Za-z_][\w.\-]*/);
  return range ? editor.document.getText(range).replace(/^%/, '') : undefined;
}
