// The compilation history of a module: open the previous or next pass dump, and the
// structural diff of two dumps (server command `hlo.diff`, contracts.md) as a tree in
// the Explorer ("HLO Diff"): computations, then each added, removed, renamed or
// changed instruction. Selecting an entry opens VS Code's diff editor on the two
// files at that entry's line (side B; side A for what B no longer has).
import * as vscode from 'vscode';

// `hlo.previousPass` / `hlo.nextPass` answer: the adjacent HLO text dump, or null.
export interface AdjacentDump { uri: string; stage: string; step?: number }

interface DiffInstruction { computation: string; name: string; opcode?: string; shape?: string; line?: number }
interface DiffRename { computation: string; from: string; to: string; line?: number; oldLine?: number }
interface DiffChange { computation: string; name: string; field: string; old: string; new: string; line?: number; oldLine?: number }

// `hlo.diff {uri, otherUri}` answer (lines 1-based; `line` in B, `oldLine` in A).
export interface ModuleDiff {
  a: string;
  b: string;
  added?: DiffInstruction[];
  removed?: DiffInstruction[];
  renamed?: DiffRename[];
  changed?: DiffChange[];
  computations?: { added?: string[]; removed?: string[] };
}

// One row of the tree. `line` is 1-based in the file of `side`.
export interface DiffNode {
  label: string;
  description: string;
  kind: 'computation' | 'added' | 'removed' | 'renamed' | 'changed';
  computation: string;
  side: 'a' | 'b';
  line?: number;
  children: DiffNode[];
}

// The file name without the `module_NNNN.` prefix, for titles.
export function shortName(uri: string): string {
  const base = decodeURIComponent(uri.split('/').pop() ?? uri);
  return base.replace(/^(\d+\.)?module_\d+\./, '').replace(/\.txt$/, '');
}

// Diff entries grouped by computation, in the order the answer lists them.
export function diffTree(d: ModuleDiff): DiffNode[] {
  const roots: DiffNode[] = [];
  const byName = new Map<string, DiffNode>();
  const group = (name: string): DiffNode => {
    let node = byName.get(name);
    if (!node) {
      node = { label: name, description: '', kind: 'computation', computation: name, side: 'b', children: [] };
      byName.set(name, node);
      roots.push(node);
    }
    return node;
  };
  for (const name of d.computations?.added ?? []) {
    group(name).description = 'new computation';
  }
  for (const name of d.computations?.removed ?? []) {
    const node = group(name);
    node.description = 'removed computation';
    node.side = 'a';
  }
  const add = (n: Omit<DiffNode, 'children'>) => group(n.computation).children.push({ ...n, children: [] });
  for (const i of d.added ?? []) {
    add({ kind: 'added', label: `+ ${i.name}`, description: [i.opcode, i.shape].filter(Boolean).join(' '),
      computation: i.computation, side: 'b', line: i.line });
  }
  for (const i of d.removed ?? []) {
    add({ kind: 'removed', label: `− ${i.name}`, description: [i.opcode, i.shape].filter(Boolean).join(' '),
      computation: i.computation, side: 'a', line: i.line });
  }
  for (const r of d.renamed ?? []) {
    add({ kind: 'renamed', label: `${r.from} → ${r.to}`, description: 'renamed',
      computation: r.computation, side: r.line !== undefined || r.oldLine === undefined ? 'b' : 'a', line: r.line ?? r.oldLine });
  }
  for (const c of d.changed ?? []) {
    add({ kind: 'changed', label: `~ ${c.name}`, description: `${c.field}: ${c.old} → ${c.new}`,
      computation: c.computation, side: c.line !== undefined || c.oldLine === undefined ? 'b' : 'a', line: c.line ?? c.oldLine });
  }
  for (const node of roots) {
    if (!node.description) node.description = `${node.children.length} change${node.children.length === 1 ? '' : 's'}`;
  }
  return roots;
}

// 1-based line of computation NAME's header in TEXT (`%name (` or `ENTRY %name`), else 1.
export function computationLine(text: string, name: string): number {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`^\\s*(ENTRY\\s+)?%?${escaped}\\s*[({]`);
  const lines = text.split('\n');
  const i = lines.findIndex((l) => re.test(l));
  return i < 0 ? 1 : i + 1;
}

export class DiffView implements vscode.TreeDataProvider<DiffNode>, vscode.Disposable {
  static readonly VIEW = 'hloDiff';
  static readonly OPEN = 'hlo-lsp.openDiffEntry';
  private diff: ModuleDiff | undefined;
  private roots: DiffNode[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<DiffNode>;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor() {
    this.view = vscode.window.createTreeView(DiffView.VIEW, { treeDataProvider: this, showCollapseAll: true });
    this.subscriptions.push(this.view, this.changed,
      vscode.commands.registerCommand(DiffView.OPEN, (node: DiffNode) => this.open(node)));
  }

  current(): ModuleDiff | undefined {
    return this.diff;
  }

  // Every row, computations first then their entries (for tests and other extensions).
  nodes(): DiffNode[] {
    return this.roots.flatMap((r) => [r, ...r.children]);
  }

  getTreeItem(node: DiffNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.label, node.children.length
      ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.description = node.description;
    item.tooltip = `${node.computation}: ${node.label} ${node.description}`;
    item.iconPath = new vscode.ThemeIcon({
      computation: 'symbol-function', added: 'diff-added', removed: 'diff-removed',
      renamed: 'diff-renamed', changed: 'diff-modified',
    }[node.kind]);
    item.command = { command: DiffView.OPEN, title: 'Open in the diff editor', arguments: [node] };
    return item;
  }

  getChildren(node?: DiffNode): DiffNode[] {
    return node ? node.children : this.roots;
  }

  getParent(node: DiffNode): DiffNode | undefined {
    return this.roots.find((r) => r.children.includes(node));
  }

  // Shows DIFF in the tree and opens the diff editor at its first entry.
  async show(diff: ModuleDiff): Promise<void> {
    this.diff = diff;
    this.roots = diffTree(diff);
    this.changed.fire();
    await vscode.commands.executeCommand('setContext', 'hlo.diffShown', true);
    const count = this.roots.reduce((n, r) => n + r.children.length, 0);
    this.view.title = 'HLO Diff';
    this.view.description = `${shortName(diff.a)} → ${shortName(diff.b)}`;
    this.view.message = this.roots.length ? `${count} instruction${count === 1 ? '' : 's'} differ`
      : 'No structural differences.';
    const first = this.roots[0]?.children[0] ?? this.roots[0];
    if (first) {
      await this.view.reveal(first, { select: true, focus: false }).then(undefined, () => undefined);
    }
    await this.open(first);
  }

  // Opens the diff editor (A left, B right) on NODE's line, or at the top.
  async open(node?: DiffNode): Promise<void> {
    const d = this.diff;
    if (!d) return;
    const a = vscode.Uri.parse(d.a);
    const b = vscode.Uri.parse(d.b);
    const side = node?.side === 'a' ? a : b;
    let line = node?.line;
    if (node && node.kind === 'computation') {
      const doc = await vscode.workspace.openTextDocument(side);
      line = computationLine(doc.getText(), node.computation);
    }
    const pos = new vscode.Position(Math.max(0, (line ?? 1) - 1), 0);
    const range = new vscode.Range(pos, pos);
    const title = `${shortName(d.a)} ↔ ${shortName(d.b)}`;
    await vscode.commands.executeCommand('vscode.diff', a, b, title,
      { preview: true, selection: node?.side === 'a' ? undefined : range });
    if (node?.side === 'a') {
      // vscode.diff selects only on the modified side: move the original side's cursor.
      const left = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === a.toString());
      if (left) {
        left.selection = new vscode.Selection(pos, pos);
        left.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      }
    }
  }

  dispose(): void {
    this.subscriptions.forEach((s) => s.dispose());
  }
}
