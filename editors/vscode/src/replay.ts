// Replay results view: one webview panel that shows the latest replay (from
// `hlo/replayResult`, or `hlo-lsp replay --json`): the summary, each output's shape,
// statistics and first values, and the first instruction that made a NaN or an Inf as
// a link that opens it. The page runs no script: the link is a command URI.
import * as vscode from 'vscode';

// One array's statistics, as hlo/replayResult's outputs and stats give them
// (min/max/mean null when no element is finite).
export interface ReplayStat {
  name: string;
  opcode?: string;
  line?: number;
  shape?: string;
  value?: string;
  elements?: number;
  nan?: number;
  inf?: number;
  min?: number | null;
  max?: number | null;
  mean?: number | null;
}

export interface ReplayReport {
  summary?: string;
  outcome?: string;
  uri?: string;
  outputs?: ReplayStat[];
  stats?: ReplayStat[];
  firstNonFinite?: ReplayStat | null;
  notes?: string[];
  error?: string;
  [key: string]: unknown;
}

// The command the NaN origin link runs: (uri, 1-based line).
export const OPEN_LINE_COMMAND = 'hlo-lsp.openReplayLine';

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const num = (v: number | null | undefined) =>
  v === null || v === undefined ? '–' : Number.isInteger(v) ? String(v) : v.toPrecision(6);

// The CLI's `replay --json` spells some fields differently: one shape for the view.
export function normalize(result: unknown): ReplayReport {
  const r = { ...((result ?? {}) as ReplayReport & { first_nonfinite?: ReplayStat }) };
  if (r.firstNonFinite === undefined && r.first_nonfinite !== undefined) r.firstNonFinite = r.first_nonfinite;
  r.outputs = (r.outputs ?? []).map((o) => ({ ...o, value: o.value ?? (o as { preview?: string }).preview }));
  return r;
}

// The NaN origin as one line of text (also what the tests read).
export function originText(r: ReplayReport): string {
  const o = r.firstNonFinite;
  if (!o) return r.outcome === 'ok' ? 'no NaN or Inf produced' : '';
  return `%${o.name} (${o.opcode ?? ''}) at line ${o.line}: ${o.nan ?? 0} NaN, ${o.inf ?? 0} Inf`;
}

export class ReplayView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private latest: { title: string; report: ReplayReport } | undefined;

  current(): { title: string; report: ReplayReport } | undefined {
    return this.latest;
  }

  show(title: string, result: unknown): void {
    const r = normalize(result);
    this.latest = { title, report: r };
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel('hlo.replayResults', 'HLO Replay', vscode.ViewColumn.Beside,
        { enableScripts: false, enableCommandUris: true, retainContextWhenHidden: true });
      this.panel.onDidDispose(() => { this.panel = undefined; });
    }
    this.panel.title = `HLO Replay: ${title}`;
    this.panel.webview.html = this.html(title, r);
    this.panel.reveal(undefined, true);
  }

  private html(title: string, r: ReplayReport): string {
    const rows = (r.outputs ?? []).map((o) => `<tr><td>${escapeHtml(o.name)}</td><td><code>${escapeHtml(o.shape ?? '')}</code></td>
<td>${num(o.min)}</td><td>${num(o.max)}</td><td>${num(o.mean)}</td>
<td class="${o.nan ? 'bad' : ''}">${num(o.nan)}</td><td class="${o.inf ? 'bad' : ''}">${num(o.inf)}</td>
<td><code>${escapeHtml(o.value ?? '')}</code></td></tr>`);
    const o = r.firstNonFinite;
    const link = o && r.uri
      ? `<a href="command:${OPEN_LINE_COMMAND}?${encodeURIComponent(JSON.stringify([r.uri, o.line]))}">${escapeHtml(originText(r))}</a>`
      : escapeHtml(originText(r));
    const notes = [...(r.notes ?? []), ...(r.error ? [r.error] : [])];
    return `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">
<style>body{font-family:var(--vscode-font-family);} th,td{text-align:left;padding:2px 10px 2px 0;vertical-align:top;}
td code{white-space:pre-wrap;} .bad{color:var(--vscode-errorForeground);font-weight:bold;}</style></head>
<body><h2>${escapeHtml(title)}</h2>
<p id="summary">${escapeHtml(r.summary ?? '')}</p>
<h3>Outputs</h3>
<table id="outputs"><tr><th>output</th><th>shape</th><th>min</th><th>max</th><th>mean</th><th>NaN</th><th>Inf</th><th>first values</th></tr>
${rows.join('\n')}</table>
<h3>First NaN/Inf</h3><p id="origin" class="${o ? 'bad' : ''}">${link || '–'}</p>
${notes.length ? `<h3>Notes</h3><ul>${notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>` : ''}
</body></html>`;
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
