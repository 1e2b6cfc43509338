// "HLO: Find the Pass that Changed the Result": the server's hlo.bisect answer (the
// first pass after which an output differs, or none, or the stop at a signature change)
// shown as a message whose buttons open the dump before the pass, the one after it (at
// the first differing instruction) and the diff between them (the HLO Diff view and
// VS Code's diff editor, as hlo.diff).
import * as vscode from 'vscode';

// hlo.bisect's answer (the contract's keys).
export interface BisectReply {
  outcome: string; // changed | unchanged | signature | refused | failed
  summary: string;
  module?: string;
  step?: number;
  pass?: string;
  label?: string;
  beforeUri?: string;
  afterUri?: string;
  mismatches?: string[];
  firstOutput?: string;
  instruction?: { name: string; opcode: string; line: number; detail: string };
  steps?: { uri: string; label: string; result: string }[];
  diff?: { command: string; arguments: { uri: string; otherUri: string }[] };
  error?: string;
}

export type BisectTarget = 'before' | 'after' | 'diff';

const BUTTONS: Record<string, BisectTarget> = { 'Open Before': 'before', 'Open After': 'after', 'Show Diff': 'diff' };

export class BisectResults {
  private last: BisectReply | undefined;

  // showDiff(a, b): the extension's hlo.diff path (tree view and vscode.diff).
  constructor(private readonly showDiff: (a: string, b: string) => Promise<void>) {}

  current(): BisectReply | undefined {
    return this.last;
  }

  // The summary, with a button per link; not awaited, so a caller (or a test) goes on
  // while the message stays up.
  show(reply: BisectReply): void {
    this.last = reply;
    const buttons = reply.beforeUri && reply.afterUri ? Object.keys(BUTTONS) : reply.afterUri ? ['Open After'] : [];
    const text = `HLO: ${reply.summary}`;
    const shown = reply.outcome === 'changed' || reply.outcome === 'unchanged' || reply.outcome === 'signature'
      ? vscode.window.showInformationMessage(text, ...buttons)
      : vscode.window.showWarningMessage(text, ...buttons);
    void shown.then((picked) => (picked ? this.open(BUTTONS[picked]) : undefined));
  }

  // Opens one of the answer's links: a dump (the after dump at the first differing
  // instruction) or the diff between the two.
  async open(target: BisectTarget): Promise<void> {
    const r = this.last;
    if (!r) return;
    if (target === 'diff') {
      if (r.beforeUri && r.afterUri) await this.showDiff(r.beforeUri, r.afterUri);
      return;
    }
    const uri = target === 'before' ? r.beforeUri : r.afterUri;
    if (!uri) return;
    const line = target === 'after' && r.instruction ? Math.max(0, r.instruction.line - 1) : 0;
    const pos = new vscode.Position(line, 0);
    await vscode.window.showTextDocument(vscode.Uri.parse(uri), { selection: new vscode.Range(pos, pos), preview: false });
  }
}
