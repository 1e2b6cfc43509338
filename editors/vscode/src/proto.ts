// Binary HLO protos (.pb, .pb.gz) open as read-only HLO text, the way vscode-mlir opens
// .mlirbc: a custom editor converts through the server (`hlo/protoToText`, else the
// `hlo-lsp convert` command line) and replaces itself with a virtual `hlo-proto:`
// document that the language server also serves. Text over 50 MB, which VS Code would
// not hand to extensions, goes to a temporary .txt file instead.
// Also: an outline for files VS Code opened without a text model (over 50 MB), read by
// the server from disk.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ServerCli } from './cli';

export const PROTO_SCHEME = 'hlo-proto';
// Names the server may index as protos: binary ones, and text-format ones (XLA writes
// unoptimized snapshots as .txt when text dumps are on).
const PROTO_NAME = /(\.pb|\.pb\.gz|\.pbtxt|_snapshot\.txt)$/;
const EXTENSION_LIMIT = 50 * 1024 * 1024;
const METHOD_NOT_FOUND = -32601;

// LSP DocumentSymbol as JSON (0-based positions).
export interface DiskSymbol {
  name: string;
  detail?: string;
  kind: number;
  selectionRange: { start: { line: number; character: number } };
  children?: DiskSymbol[];
}

interface Converted { text?: string; file?: string; truncated?: boolean }

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// Whether the server's positions in `uri` are in its text view (the server reads it as a
// proto: by name, unless it is HLO text, whose first token is HloModule).
export async function holdsProto(uri: vscode.Uri): Promise<boolean> {
  if (uri.scheme !== 'file' || !PROTO_NAME.test(uri.path)) return false;
  try {
    const file = await fs.promises.open(uri.fsPath, 'r');
    try {
      const head = Buffer.alloc(64);
      const { bytesRead } = await file.read(head, 0, head.length, 0);
      return !/^\s*HloModule\b/.test(head.toString('latin1', 0, bytesRead));
    } finally {
      await file.close();
    }
  } catch {
    return false;
  }
}

// A location the server gave in a proto, moved to the proto's text view.
export async function inTextView(location: vscode.Location): Promise<vscode.Location> {
  if (!(await holdsProto(location.uri))) return location;
  return new vscode.Location(ProtoViewer.textUriFor(location.uri), location.range);
}

export class ProtoViewer implements vscode.CustomReadonlyEditorProvider, vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();

  constructor(
    private readonly cli: ServerCli,
    private readonly log: vscode.LogOutputChannel,
    private readonly start: () => Promise<void>,
    private readonly client: () => LanguageClient | undefined,
  ) {}

  // X.pb / X.pb.gz -> hlo-proto:/dir/X.txt?<source uri>  (contracts: derived name X.txt);
  // a text-format X.pbtxt or X.txt -> X.pbtxt.txt, X.txt.txt
  static textUriFor(source: vscode.Uri): vscode.Uri {
    const p = source.path.replace(/\.pb(\.gz)?$/, '') + '.txt';
    return vscode.Uri.from({ scheme: PROTO_SCHEME, path: p, query: source.toString() });
  }

  static sourceOf(uri: vscode.Uri): vscode.Uri {
    return vscode.Uri.parse(uri.query);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const cached = this.texts.get(uri.toString());
    if (cached !== undefined) return cached;
    const converted = await this.convert(ProtoViewer.sourceOf(uri));
    return converted.text ?? `// converted text is in ${converted.file}\n`;
  }

  private async convert(source: vscode.Uri): Promise<Converted> {
    await this.start();
    const c = this.client();
    if (c) {
      try {
        const r = await c.sendRequest<{ text: string; truncated?: boolean }>('hlo/protoToText', { uri: source.toString() });
        if (r.text.length <= EXTENSION_LIMIT) return r;
        return { file: await this.writeTemp(source, r.text), truncated: r.truncated };
      } catch (e) {
        const code = (e as { code?: number }).code;
        if (code !== METHOD_NOT_FOUND) throw e;
        this.log.info('hlo/protoToText not offered by the server; using hlo-lsp convert');
      }
    }
    if (source.scheme !== 'file') throw new Error(`cannot convert ${source.toString()}: not a local file`);
    const size = (await fs.promises.stat(source.fsPath)).size;
    if (size * 4 < EXTENSION_LIMIT) return { text: await this.cli.convert(source.fsPath, 'text') };
    // Possibly big: let the CLI write the file, then decide.
    const file = this.tempPath(source);
    await this.cli.convert(source.fsPath, 'text', file);
    if ((await fs.promises.stat(file)).size > EXTENSION_LIMIT) return { file };
    const text = await fs.promises.readFile(file, 'utf8');
    await fs.promises.unlink(file).catch(() => undefined);
    return { text };
  }

  private tempPath(source: vscode.Uri): string {
    const dir = path.join(os.tmpdir(), 'hlo-lsp-proto');
    fs.mkdirSync(dir, { recursive: true });
    return path.join(dir, path.basename(source.path).replace(/\.pb(\.gz)?$/, '') + '.txt');
  }

  private async writeTemp(source: vscode.Uri, text: string): Promise<string> {
    const file = this.tempPath(source);
    await fs.promises.writeFile(file, text);
    return file;
  }

  async openAsText(source: vscode.Uri | undefined, column?: vscode.ViewColumn): Promise<void> {
    if (!source) throw new Error('no proto file to convert');
    if (source.scheme === PROTO_SCHEME) source = ProtoViewer.sourceOf(source);
    const converted = await this.convert(source);
    if (converted.truncated) void vscode.window.showWarningMessage('HLO: the converted text was truncated');
    if (converted.file !== undefined) {
      void vscode.window.showInformationMessage(
        `HLO: the text is over 50 MB, which VS Code does not give to extensions; opened ${converted.file}. ` +
        'Use "HLO: Outline" and "HLO: Search" for it.');
      await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(converted.file), { viewColumn: column });
      return;
    }
    const uri = ProtoViewer.textUriFor(source);
    this.texts.set(uri.toString(), converted.text ?? '');
    let doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== 'hlo') doc = await vscode.languages.setTextDocumentLanguage(doc, 'hlo');
    await vscode.window.showTextDocument(doc, { viewColumn: column, preview: false });
  }

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  async resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): Promise<void> {
    const name = escapeHtml(path.basename(document.uri.path));
    panel.webview.html = `<!DOCTYPE html><body><p>Converting ${name} to HLO text…</p></body>`;
    try {
      await this.openAsText(document.uri, panel.viewColumn);
      panel.dispose();
    } catch (e) {
      this.log.error(`proto viewer: ${e}`);
      panel.webview.html = `<!DOCTYPE html><body><p>${name} is not an HLO proto hlo-lsp can read:</p><pre>${escapeHtml(String(e))}</pre></body>`;
    }
  }

  // For files VS Code keeps from extensions (over 50 MB): the server reads them from disk.
  async symbolsFromDisk(uri: vscode.Uri): Promise<DiskSymbol[]> {
    await this.start();
    const c = this.client();
    if (!c) throw new Error('hlo-lsp is not running');
    return (await c.sendRequest<DiskSymbol[] | null>('textDocument/documentSymbol', { textDocument: { uri: uri.toString() } })) ?? [];
  }

  async outlineFromDisk(uri: vscode.Uri | undefined): Promise<void> {
    if (!uri) throw new Error('no file');
    const syms = await this.symbolsFromDisk(uri);
    const items: (vscode.QuickPickItem & { sym: DiskSymbol })[] = [];
    const walk = (list: DiskSymbol[] | undefined, depth: number) => {
      for (const s of list ?? []) {
        items.push({ label: `${'  '.repeat(depth)}${s.name}`, description: s.detail, sym: s });
        if (depth < 2) walk(s.children, depth + 1);
      }
    };
    walk(syms, 0);
    const picked = await vscode.window.showQuickPick(items, { title: `Outline of ${path.basename(uri.path)}`, matchOnDescription: true });
    if (!picked) return;
    const start = picked.sym.selectionRange.start;
    const pos = new vscode.Position(start.line, start.character);
    await vscode.window.showTextDocument(uri, { selection: new vscode.Range(pos, pos) });
  }
}
