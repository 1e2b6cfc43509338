// Replay results view: one webview panel that shows the latest replay's summary,
// outputs and statistics (from `hlo/replayResult`, or `hlo-lsp replay --json`).
import * as vscode from 'vscode';

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function render(value: unknown): string {
  if (value === null || value === undefined) return '<i>none</i>';
  if (typeof value !== 'object') return escapeHtml(String(value));
  if (Array.isArray(value)) {
    return `<ol start="0">${value.map((v) => `<li>${render(v)}</li>`).join('')}</ol>`;
  }
  const rows = Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${render(v)}</td></tr>`);
  return `<table>${rows.join('')}</table>`;
}

export class ReplayView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;

  show(title: string, result: unknown): void {
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel('hlo.replayResults', 'HLO Replay', vscode.ViewColumn.Beside,
        { enableScripts: false, retainContextWhenHidden: true });
      this.panel.onDidDispose(() => { this.panel = undefined; });
    }
    const r = (result ?? {}) as { summary?: unknown; outputs?: unknown; stats?: unknown };
    const rest = Object.fromEntries(Object.entries(r).filter(([k]) => !['summary', 'outputs', 'stats'].includes(k)));
    this.panel.title = `HLO Replay: ${title}`;
    this.panel.webview.html = `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">
<style>body{font-family:var(--vscode-font-family);} th{text-align:left;padding-right:1em;vertical-align:top;} pre{white-space:pre-wrap;}</style></head>
<body><h2>${escapeHtml(title)}</h2>
<h3>Summary</h3><div>${render(r.summary)}</div>
<h3>Outputs</h3><div>${render(r.outputs)}</div>
<h3>Statistics</h3><div>${render(r.stats)}</div>
${Object.keys(rest).length ? `<h3>Details</h3><div>${render(rest)}</div>` : ''}
</body></html>`;
    this.panel.reveal(undefined, true);
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
