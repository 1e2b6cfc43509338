// VS Code client for hlo-lsp: starts the server for `hlo` documents, detects HLO text
// that the manifest's patterns miss, and adds the commands, status bar item, proto
// viewer and replay results view. Command names and custom requests follow the
// project's contracts (workspace/executeCommand `hlo.*`, `hlo/protoToText`, ...).
import * as vscode from 'vscode';
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  ExecuteCommandRequest,
} from 'vscode-languageclient/node';
import { ServerCli } from './cli';
import { looksLikeHlo } from './detect';
import { DiskSymbol, holdsProto, inTextView, ProtoViewer, PROTO_SCHEME } from './proto';
import { OPEN_LINE_COMMAND, ReplayReport, ReplayView } from './replay';
import { AdjacentDump, DiffNode, DiffView, ModuleDiff, shortName } from './history';
import { GraphPanel, GraphState, nameAtCursor } from './graph';
import { MemoryReply, OomLinks } from './memory';
import { BisectReply, BisectResults, BisectTarget } from './bisect';

let client: LanguageClient | undefined;
let starting: Promise<void> | undefined;
let status: vscode.StatusBarItem;
let log: vscode.LogOutputChannel;
// What to do with the answer of a server command run from a code lens (set in activate).
let onCommandResult: ((command: string, args: unknown[], result: unknown) => Promise<void>) | undefined;

export function serverPath(): string {
  const configured = vscode.workspace.getConfiguration('hlo').get<string>('server.path') ?? '';
  return configured.trim() || 'hlo-lsp';
}

function serverArgs(): string[] {
  return vscode.workspace.getConfiguration('hlo').get<string[]>('server.args') ?? [];
}

export function activeClient(): LanguageClient | undefined {
  return client && client.state === State.Running ? client : undefined;
}

function setStatus(text: string, tooltip: string, error = false): void {
  status.text = text;
  status.tooltip = tooltip;
  status.backgroundColor = error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const serverOptions: ServerOptions = {
    command: serverPath(),
    args: serverArgs(),
    options: { env: process.env },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'hlo' },
      { scheme: 'untitled', language: 'hlo' },
      { scheme: PROTO_SCHEME, language: 'hlo' },
    ],
    outputChannel: log,
    markdown: { isTrusted: false },
    // Settings the server reads: at start, and on every change of `hlo.*`.
    initializationOptions: {
      workspaceSymbolLimit: vscode.workspace.getConfiguration('hlo').get<number>('workspaceSymbolLimit'),
      verify: vscode.workspace.getConfiguration('hlo').get<string | string[]>('verify'),
    },
    synchronize: { configurationSection: 'hlo' },
    middleware: {
      // Code lenses run server commands through the client, which drops the answer:
      // show it (open the adjacent pass, the diff, the module's files).
      executeCommand: async (command, args, next) => {
        const result = await next(command, args);
        try {
          await onCommandResult?.(command, args, result);
        } catch (e) {
          log.error(`${command}: ${e}`);
          void vscode.window.showErrorMessage(`HLO: ${e}`);
        }
        return result;
      },
      // The server's ranges in a proto are in its text view: open that (hlo-proto:),
      // not the binary file.
      provideWorkspaceSymbols: async (query, token, next) => {
        const symbols = await next(query, token);
        for (const s of symbols ?? []) s.location = await inTextView(s.location);
        return symbols;
      },
    },
  };
  client = new LanguageClient('hlo', 'HLO language server', serverOptions, clientOptions);
  client.onDidChangeState((e) => {
    if (e.newState === State.Starting) setStatus('$(sync~spin) HLO', 'hlo-lsp: starting');
    if (e.newState === State.Stopped) setStatus('$(error) HLO', 'hlo-lsp stopped: click for its output', true);
  });
  setStatus('$(sync~spin) HLO', 'hlo-lsp: starting');
  status.show();
  try {
    await client.start();
    const info = client.initializeResult?.serverInfo;
    setStatus('$(check) HLO', `${info?.name ?? 'hlo-lsp'} ${info?.version ?? ''} (${serverPath()}): click for its output`);
    void vscode.commands.executeCommand('setContext', 'hlo.gpuAvailable', gpuAvailable());
    log.info(`client started: ${serverPath()} ${JSON.stringify(Object.keys(client.initializeResult?.capabilities ?? {}))}`);
    // Server work-done progress (indexing) shows in the status bar too: the client
    // reports it with ProgressLocation.Window. (Hooking $/progress here would replace
    // the client's own handler.)
  } catch (e) {
    setStatus('$(error) HLO', `hlo-lsp did not start (${serverPath()}): ${e}. Set hlo.server.path.`, true);
    log.error(`client failed to start: ${e}`);
    void vscode.window.showErrorMessage(`HLO: cannot start ${serverPath()}. Set "hlo.server.path".`);
  }
}

// The server starts with the first HLO document (or proto, or command), not for every
// plain-text file that merely activated the extension.
export function ensureStarted(context: vscode.ExtensionContext): Promise<void> {
  starting ??= startClient(context);
  return starting;
}

async function restart(context: vscode.ExtensionContext): Promise<void> {
  await starting;
  await client?.stop().catch(() => undefined);
  client = undefined;
  starting = startClient(context);
  await starting;
}

// Commands the server advertises (executeCommandProvider); others run through the CLI.
function serverHas(command: string): boolean {
  const c = activeClient();
  const commands = c?.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
  return commands.includes(command);
}

export async function executeOnServer(command: string, args: object): Promise<unknown> {
  const c = activeClient();
  if (!c) throw new Error('hlo-lsp is not running');
  return c.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] });
}

function targetUri(arg?: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  const editor = vscode.window.activeTextEditor;
  if (editor) {
    const doc = editor.document;
    return doc.uri.scheme === PROTO_SCHEME ? ProtoViewer.sourceOf(doc.uri) : doc.uri;
  }
  // Files VS Code opened without a text model (over 50 MB, custom editors) are tabs only.
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input as { uri?: vscode.Uri } | undefined;
  return input?.uri;
}

function dumpFolder(uri: vscode.Uri | undefined): string {
  if (uri && uri.scheme === 'file') return vscode.Uri.joinPath(uri, '..').fsPath;
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
}

interface SearchHit { path: string; line: number; col: number; kind: string; name: string; module?: string; opcode?: string; shape?: string }

async function searchHits(cli: ServerCli, query: string, folder: string): Promise<SearchHit[]> {
  if (serverHas('hlo.search')) {
    const result = await executeOnServer('hlo.search', { query });
    return Array.isArray(result) ? (result as SearchHit[]) : [];
  }
  return cli.search(folder, query);
}

async function search(cli: ServerCli, arg?: unknown): Promise<void> {
  const query = typeof arg === 'string' ? arg : await vscode.window.showInputBox({
    prompt: 'HLO search: fuzzy text, /regex/, filters kind: op: module: file:',
    placeHolder: 'e.g. op:fusion kind:instruction convolution',
  });
  if (!query) return;
  const folder = dumpFolder(targetUri());
  const hits = await searchHits(cli, query, folder);
  if (!hits.length) {
    void vscode.window.showInformationMessage(`HLO search: nothing matches "${query}"`);
    return;
  }
  const picked = await vscode.window.showQuickPick(
    hits.map((h) => ({
      label: `${h.kind === 'computation' ? '$(symbol-function)' : h.kind === 'module' ? '$(symbol-module)' : '$(symbol-variable)'} ${h.name}`,
      description: [h.opcode, h.shape].filter(Boolean).join(' '),
      detail: `${h.path}:${h.line}:${h.col}${h.module ? `  (${h.module})` : ''}`,
      hit: h,
    })),
    { matchOnDescription: true, matchOnDetail: true, title: `HLO search: ${query}` },
  );
  if (!picked) return;
  const h = picked.hit;
  const file = h.path.startsWith('/') ? vscode.Uri.file(h.path) : vscode.Uri.file(`${folder}/${h.path}`);
  const pos = new vscode.Position(Math.max(0, h.line - 1), Math.max(0, h.col - 1));
  const at = await inTextView(new vscode.Location(file, new vscode.Range(pos, pos)));
  await vscode.window.showTextDocument(at.uri, { selection: at.range });
}

interface ModuleFile { uri: string; stage: string; step?: number; kind?: string }

async function listModuleFiles(cli: ServerCli, uri: vscode.Uri): Promise<ModuleFile[]> {
  const c = activeClient();
  if (c) {
    try {
      return await c.sendRequest<ModuleFile[]>('hlo/moduleFiles', { uri: uri.toString() });
    } catch (e) {
      log.info(`hlo/moduleFiles unavailable (${e}); listing the dump folder`);
    }
  }
  return cli.moduleFilesByName(uri);
}

// The server's URIs are normalised differently from VS Code's: compare paths.
const sameFile = (a: string, b: vscode.Uri) => vscode.Uri.parse(a).fsPath === b.fsPath;

// The module's stages as "Open Another Stage" lists them: HLO modules (text, protos,
// snapshots), not the buffer assignment, LLVM IR and the like that hlo/moduleFiles adds.
const HLO_KINDS = ['stage', 'pass', 'proto', 'snapshot'];
function stagesOf(files: ModuleFile[]): ModuleFile[] {
  return files.filter((f) => !f.kind || HLO_KINDS.includes(f.kind));
}

async function pickModuleFile(files: ModuleFile[], uri: vscode.Uri): Promise<void> {
  const others = stagesOf(files).filter((f) => !sameFile(f.uri, uri));
  if (!others.length) {
    void vscode.window.showInformationMessage('HLO: no other stages of this module in its folder');
    return;
  }
  const picked = await vscode.window.showQuickPick(
    others.map((f) => ({ label: f.stage, description: f.step !== undefined ? `step ${f.step}` : '', detail: vscode.Uri.parse(f.uri).fsPath, f })),
    { title: 'Other stages of this module' },
  );
  if (picked) await vscode.commands.executeCommand('vscode.open', vscode.Uri.parse(picked.f.uri));
}

async function moduleFiles(cli: ServerCli, arg?: unknown): Promise<void> {
  const uri = targetUri(arg);
  if (uri) await pickModuleFile(await listModuleFiles(cli, uri), uri);
}

// The module's HLO text dumps in pipeline order (every file when the server gives no kind).
function textDumps(files: ModuleFile[]): ModuleFile[] {
  return files.filter((f) => (f.kind ? f.kind === 'stage' || f.kind === 'pass' : /\.txt$/.test(f.uri)));
}

async function adjacentDump(cli: ServerCli, uri: vscode.Uri, dir: 'previous' | 'next'): Promise<AdjacentDump | null> {
  const command = dir === 'previous' ? 'hlo.previousPass' : 'hlo.nextPass';
  if (serverHas(command)) return (await executeOnServer(command, { uri: uri.toString() })) as AdjacentDump | null;
  // A server without the command: the neighbour in the module's file list.
  const files = textDumps(await listModuleFiles(cli, uri));
  const i = files.findIndex((f) => sameFile(f.uri, uri));
  return (i < 0 ? undefined : files[dir === 'previous' ? i - 1 : i + 1]) ?? null;
}

async function openAdjacent(found: AdjacentDump | null | undefined, from: vscode.Uri, dir: 'previous' | 'next'): Promise<void> {
  if (!found?.uri) {
    const end = dir === 'previous' ? 'first' : 'last';
    void vscode.window.showInformationMessage(`HLO: ${shortName(from.toString())} is the ${end} HLO dump of its module`);
    return;
  }
  await vscode.window.showTextDocument(vscode.Uri.parse(found.uri), { preview: false });
}

async function stepPass(cli: ServerCli, dir: 'previous' | 'next', arg?: unknown): Promise<void> {
  const uri = targetUri(arg);
  if (uri) await openAdjacent(await adjacentDump(cli, uri, dir), uri, dir);
}

// A (older) against B (newer), through the server, else `hlo-lsp diff --json`.
async function showDiff(cli: ServerCli, view: DiffView, a: string, b: string): Promise<void> {
  const result = serverHas('hlo.diff')
    ? await executeOnServer('hlo.diff', { uri: a, otherUri: b })
    : await cli.diff(vscode.Uri.parse(a).fsPath, vscode.Uri.parse(b).fsPath);
  await view.show({ ...(result as ModuleDiff), a, b });
}

async function diffWithPrevious(cli: ServerCli, view: DiffView, arg?: unknown): Promise<void> {
  const uri = targetUri(arg);
  if (!uri) return;
  const previous = await adjacentDump(cli, uri, 'previous');
  if (!previous) await openAdjacent(previous, uri, 'previous');
  else await showDiff(cli, view, previous.uri, uri.toString());
}

// Diff with another stage or pass dump of the module (OTHER, else picked); the one
// earlier in the pipeline is side A.
async function diffWithStage(cli: ServerCli, view: DiffView, arg?: unknown, other?: unknown): Promise<void> {
  const uri = targetUri(arg);
  if (!uri) return;
  const files = textDumps(await listModuleFiles(cli, uri));
  let otherUri = other instanceof vscode.Uri ? other : typeof other === 'string' ? vscode.Uri.parse(other) : undefined;
  if (!otherUri) {
    const others = files.filter((f) => !sameFile(f.uri, uri));
    if (!others.length) {
      void vscode.window.showInformationMessage('HLO: no other stages of this module in its folder');
      return;
    }
    const picked = await vscode.window.showQuickPick(
      others.map((f) => ({ label: f.stage, description: f.step !== undefined ? `step ${f.step}` : '', f })),
      { title: `Diff ${shortName(uri.toString())} with` },
    );
    if (!picked) return;
    otherUri = vscode.Uri.parse(picked.f.uri);
  }
  const rank = (u: vscode.Uri) => files.findIndex((f) => sameFile(f.uri, u));
  const [a, b] = rank(otherUri) > rank(uri) ? [uri, otherUri] : [otherUri, uri];
  await showDiff(cli, view, a.toString(), b.toString());
}

// Answers of server commands run from code lenses (through the client's middleware).
async function showCommandResult(view: DiffView, bisects: BisectResults, command: string, args: unknown[],
  result: unknown): Promise<void> {
  const from = (args[0] as { uri?: string } | undefined)?.uri;
  if (!from) return;
  if (command === 'hlo.bisect' && result) {
    bisects.show(result as BisectReply);
  } else if (command === 'hlo.previousPass' || command === 'hlo.nextPass') {
    await openAdjacent(result as AdjacentDump | null, vscode.Uri.parse(from), command === 'hlo.nextPass' ? 'next' : 'previous');
  } else if (command === 'hlo.diff' && result) {
    const d = result as Partial<ModuleDiff>;
    await view.show({ ...d, a: d.a ?? from, b: d.b ?? (args[0] as { otherUri: string }).otherUri });
  } else if (command === 'hlo.moduleFiles' && Array.isArray(result)) {
    await pickModuleFile(result as ModuleFile[], vscode.Uri.parse(from));
  }
}

// Whether the server found a GPU (initialize's experimental.gpu): the GPU commands are
// hidden without one (context key hlo.gpuAvailable in package.json's `when` clauses).
function gpuAvailable(): boolean {
  const caps = activeClient()?.initializeResult?.capabilities as { experimental?: { gpu?: { available?: boolean } } } | undefined;
  return caps?.experimental?.gpu?.available === true;
}

// What a replay runs on: a snapshot's arguments, or fake data (hlo.replay's {snapshot,
// fakeData}).
interface ReplayArgs { snapshot?: string; fakeData?: boolean }

type ReplayChoice = vscode.QuickPickItem & { args: ReplayArgs };

// The arguments a replay of URI can take: the module's snapshots (hlo/moduleFiles, kind
// "snapshot"), the file's own when it is a proto, and fake data.
async function replayChoices(cli: ServerCli, uri: vscode.Uri): Promise<ReplayChoice[]> {
  const files = await listModuleFiles(cli, uri).catch(() => [] as ModuleFile[]);
  const snapshots = files.filter((f) => f.kind === 'snapshot' && !sameFile(f.uri, uri));
  const own = await holdsProto(uri);
  return [
    ...(own ? [{ label: '$(file-binary) This file\'s arguments', description: 'when it holds a snapshot\'s', args: {} }] : []),
    ...snapshots.map((f) => ({
      label: `$(file-binary) ${shortName(f.uri)}`, description: 'snapshot arguments', detail: vscode.Uri.parse(f.uri).fsPath,
      args: { snapshot: f.uri },
    })),
    { label: '$(beaker) Fake data', description: 'generated arguments', args: { fakeData: true } },
  ];
}

// Asks which arguments to use; no question when fake data is the only choice.
async function pickArguments(cli: ServerCli, uri: vscode.Uri): Promise<ReplayArgs | undefined> {
  const choices = await replayChoices(cli, uri);
  if (choices.length === 1) return choices[0].args;
  const picked = await vscode.window.showQuickPick(choices, { title: `Replay ${shortName(uri.toString())} with arguments from` });
  return picked?.args;
}

let runningReplay: vscode.CancellationTokenSource | undefined;

// HLO: Replay on CPU/GPU, Compare. ARGS (from a caller: {snapshot?, fakeData?}) skip the
// question. The notification's Cancel (or HLO: Cancel Replay) cancels hlo/replayResult,
// which kills the server's replay child; the view then shows the cancelled report.
async function replay(cli: ServerCli, view: ReplayView, platform: 'cpu' | 'gpu' | 'compare', arg?: unknown,
  given?: unknown): Promise<void> {
  const uri = targetUri(arg);
  if (!uri) return;
  if (platform !== 'cpu' && activeClient() && !gpuAvailable()) {
    void vscode.window.showInformationMessage('HLO: no GPU answered on this machine; replay on CPU instead');
    return;
  }
  const args = given && typeof given === 'object' ? given as ReplayArgs : await pickArguments(cli, uri);
  if (!args) return;
  const timeout = vscode.workspace.getConfiguration('hlo').get<number>('replay.timeout') ?? 600;
  const title = `${uri.path.split('/').pop()} on ${platform === 'compare' ? 'CPU vs GPU' : platform.toUpperCase()}`;
  runningReplay?.cancel();
  const cts = new vscode.CancellationTokenSource();
  runningReplay = cts;
  void vscode.commands.executeCommand('setContext', 'hlo.replayRunning', true);
  try {
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `HLO replay: ${title}`, cancellable: true },
      async (_progress, token) => {
        token.onCancellationRequested(() => cts.cancel());
        const command = platform === 'compare' ? 'hlo.compare' : 'hlo.replay';
        try {
          if (serverHas(command)) {
            const params = platform === 'compare'
              ? { uri: uri.toString(), platforms: ['cpu', 'gpu'], ...args, timeout }
              : { uri: uri.toString(), platform, ...args, timeout };
            let result = await executeOnServer(command, params) as { id?: unknown; summary?: unknown } | null;
            if (result && result.id !== undefined && result.summary === undefined) {
              const id = result.id;
              const c = activeClient()!;
              result = await c.sendRequest<typeof result>('hlo/replayResult', { id }, cts.token).catch(async (e) => {
                // Cancelled: the server killed the run; its report says so.
                if (!cts.token.isCancellationRequested) throw e;
                return c.sendRequest<typeof result>('hlo/replayResult', { id });
              });
            }
            view.show(title, result);
          } else {
            view.show(title, await cli.replay(uri.fsPath, platform, { ...args, timeout }));
          }
        } catch (e) {
          view.show(title, { summary: `failed: ${e}` });
        }
      },
    );
  } finally {
    if (runningReplay === cts) {
      runningReplay = undefined;
      void vscode.commands.executeCommand('setContext', 'hlo.replayRunning', false);
    }
    cts.dispose();
  }
}

// HLO: Find the Pass that Changed the Result: hlo.bisect on the file's module under a
// cancellable notification (cancelling the request kills the server's replay child).
// ARGS (from a caller: {snapshot?, fakeData?}) skip the arguments question.
async function bisect(cli: ServerCli, results: BisectResults, arg?: unknown, given?: unknown): Promise<void> {
  const uri = targetUri(arg);
  if (!uri) return;
  const c = activeClient();
  if (!c || !serverHas('hlo.bisect')) {
    void vscode.window.showInformationMessage('HLO: this hlo-lsp has no hlo.bisect; run `hlo-lsp replay --bisect FILE`');
    return;
  }
  const args = given && typeof given === 'object' ? given as ReplayArgs : await pickArguments(cli, uri);
  if (!args) return;
  const timeout = vscode.workspace.getConfiguration('hlo').get<number>('replay.timeout') ?? 600;
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `HLO: bisecting the passes of ${shortName(uri.toString())}`,
      cancellable: true },
    async (_progress, token) => {
      try {
        const params = { command: 'hlo.bisect', arguments: [{ uri: uri.toString(), ...args, timeout }] };
        results.show(await c.sendRequest(ExecuteCommandRequest.type, params, token) as BisectReply);
      } catch (e) {
        if (!token.isCancellationRequested) throw e;
        results.show({ outcome: 'cancelled', summary: 'bisection cancelled' });
      }
    },
  );
}

// The results view's NaN origin link: the instruction's line (in a proto's text view).
async function openReplayLine(uri: unknown, line: unknown): Promise<void> {
  if (typeof uri !== 'string') return;
  const pos = new vscode.Position(Math.max(0, Number(line) - 1), 0);
  const at = await inTextView(new vscode.Location(vscode.Uri.parse(uri), new vscode.Range(pos, pos)));
  await vscode.window.showTextDocument(at.uri, { selection: at.range, viewColumn: vscode.ViewColumn.One });
}

// The graph of a file (`hlo.graph`): around `name`, else around the name under the
// cursor (when it names no instruction, the whole ENTRY), else the ENTRY.
async function showGraph(panel: GraphPanel, arg?: unknown, name?: unknown): Promise<void> {
  const uri = targetUri(arg);
  if (!uri) return;
  if (typeof name === 'string' && name) return panel.show(uri, name);
  const editor = vscode.window.activeTextEditor;
  const word = editor?.document.uri.toString() === uri.toString() ? nameAtCursor(editor) : undefined;
  if (word) {
    try {
      return await panel.show(uri, word);
    } catch {
      log.info(`hlo.graph: ${word} is not an instruction; drawing ENTRY`);
    }
  }
  await panel.show(uri);
}

async function exportProto(cli: ServerCli, arg?: unknown): Promise<void> {
  const uri = targetUri(arg);
  if (!uri || uri.scheme !== 'file') return;
  if (serverHas('hlo.exportProto')) {
    const result = await executeOnServer('hlo.exportProto', { uri: uri.toString() });
    void vscode.window.showInformationMessage(`HLO: exported ${JSON.stringify(result)}`);
    return;
  }
  const out = uri.fsPath.replace(/(\.hlo)?(\.txt)?$/, '') + '.pb';
  await cli.convert(uri.fsPath, 'proto', out);
  void vscode.window.showInformationMessage(`HLO: wrote ${out}`);
}

// Plain-text documents whose first token is HloModule (*.txt, *.pbtxt) become `hlo`.
function detect(doc: vscode.TextDocument): void {
  if (doc.languageId === 'hlo' || !/\.(txt|pbtxt)$/.test(doc.uri.path)) return;
  if (doc.languageId !== 'plaintext' && doc.languageId !== 'prototxt' && doc.languageId !== 'pbtxt') return;
  if (looksLikeHlo(doc.getText(new vscode.Range(0, 0, Math.min(doc.lineCount, 50), 0)))) {
    void vscode.languages.setTextDocumentLanguage(doc, 'hlo');
  }
}

// hlo.memory {uri} through the server (started for it), else the command line.
async function memoryOf(context: vscode.ExtensionContext, cli: ServerCli, uri: vscode.Uri): Promise<MemoryReply | undefined> {
  try {
    await ensureStarted(context);
    if (serverHas('hlo.memory')) return (await executeOnServer('hlo.memory', { uri: uri.toString() })) as MemoryReply;
  } catch (e) {
    log.info(`hlo.memory unavailable (${e}); using hlo-lsp memory`);
  }
  return (await cli.memory(uri.fsPath)) as MemoryReply | undefined;
}

// What activate() returns: for other extensions and the project's VS Code tests.
export interface HloApi {
  ready(): Promise<void>;
  serverCapabilities(): object | undefined;
  moduleFiles(uri: vscode.Uri): Promise<ModuleFile[]>;
  search(query: string, folder: string): Promise<SearchHit[]>;
  symbolsFromDisk(uri: vscode.Uri): Promise<DiskSymbol[]>;
  // The diff shown in the HLO Diff view, and its rows.
  currentDiff(): ModuleDiff | undefined;
  diffNodes(): DiffNode[];
  // The graph in the HLO Graph panel (`hlo.graph`'s answer and what it was asked).
  currentGraph(): GraphState | undefined;
  // The replay shown in the HLO Replay view, and whether a GPU answered.
  currentReplay(): { title: string; report: ReplayReport } | undefined;
  replayChoices(uri: vscode.Uri): Promise<{ label: string; args: ReplayArgs }[]>;
  gpuAvailable(): boolean;
  // The latest hlo.bisect answer shown, and its links (what its buttons open).
  currentBisect(): BisectReply | undefined;
  openBisect(target: BisectTarget): Promise<void>;
}

export async function activate(context: vscode.ExtensionContext): Promise<HloApi> {
  log = vscode.window.createOutputChannel('HLO', { log: true });
  log.info('hlo extension activated');
  status = vscode.window.createStatusBarItem('hlo.status', vscode.StatusBarAlignment.Left, 10);
  status.name = 'HLO language server';
  status.command = 'hlo-lsp.showOutput';
  const cli = new ServerCli(serverPath, log);
  const viewer = new ProtoViewer(cli, log, () => ensureStarted(context), activeClient);
  const view = new ReplayView();
  const diffView = new DiffView();
  const graphPanel = new GraphPanel(executeOnServer);
  const bisects = new BisectResults((a, b) => showDiff(cli, diffView, a, b));
  onCommandResult = (command, args, result) => showCommandResult(diffView, bisects, command, args, result);
  const reg = (id: string, fn: (...args: unknown[]) => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        if (id !== 'hlo-lsp.showOutput') await ensureStarted(context);
        await fn(...args);
      } catch (e) {
        log.error(`${id}: ${e}`);
        void vscode.window.showErrorMessage(`HLO: ${e}`);
      }
    }));
  reg('hlo-lsp.convertToText', (arg) => viewer.openAsText(targetUri(arg)));
  reg('hlo-lsp.exportProto', (arg) => exportProto(cli, arg));
  reg('hlo-lsp.replayCpu', (arg, args) => replay(cli, view, 'cpu', arg, args));
  reg('hlo-lsp.replayGpu', (arg, args) => replay(cli, view, 'gpu', arg, args));
  reg('hlo-lsp.compare', (arg, args) => replay(cli, view, 'compare', arg, args));
  reg('hlo-lsp.cancelReplay', () => runningReplay?.cancel());
  reg(OPEN_LINE_COMMAND, (uri, line) => openReplayLine(uri, line));
  reg('hlo-lsp.search', (arg) => search(cli, arg));
  reg('hlo-lsp.moduleFiles', (arg) => moduleFiles(cli, arg));
  reg('hlo-lsp.previousPass', (arg) => stepPass(cli, 'previous', arg));
  reg('hlo-lsp.nextPass', (arg) => stepPass(cli, 'next', arg));
  reg('hlo-lsp.diffWithPrevious', (arg) => diffWithPrevious(cli, diffView, arg));
  reg('hlo-lsp.diffWithStage', (arg, other) => diffWithStage(cli, diffView, arg, other));
  reg('hlo-lsp.bisect', (arg, args) => bisect(cli, bisects, arg, args));
  reg('hlo-lsp.showGraph', (arg, name) => showGraph(graphPanel, arg, name));
  reg('hlo-lsp.outlineFromDisk', (arg) => viewer.outlineFromDisk(targetUri(arg)));
  reg('hlo-lsp.showOutput', () => log.show());
  reg('hlo-lsp.restartServer', () => restart(context));
  context.subscriptions.push(
    status,
    view,
    diffView,
    graphPanel,
    vscode.workspace.registerTextDocumentContentProvider(PROTO_SCHEME, viewer),
    vscode.languages.registerDocumentLinkProvider(
      [{ scheme: 'file', pattern: '**/*.{log,out,err}' }, { scheme: 'file', language: 'plaintext' },
        { scheme: 'file', language: 'log' }],
      new OomLinks((uri) => memoryOf(context, cli, uri))),
    vscode.window.registerCustomEditorProvider('hlo.protoViewer', viewer),
    vscode.window.registerCustomEditorProvider('hlo.protoViewerAny', viewer),
    vscode.workspace.onDidOpenTextDocument((doc) => {
      if (doc.languageId === 'hlo') void ensureStarted(context);
      else detect(doc);
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('hlo.server') && starting) await restart(context);
    }),
  );
  vscode.workspace.textDocuments.forEach(detect);
  if (vscode.workspace.textDocuments.some((d) => d.languageId === 'hlo')) await ensureStarted(context);
  return {
    ready: () => ensureStarted(context),
    serverCapabilities: () => activeClient()?.initializeResult?.capabilities,
    moduleFiles: async (uri) => stagesOf(await listModuleFiles(cli, uri)),
    search: (query, folder) => searchHits(cli, query, folder),
    symbolsFromDisk: (uri) => viewer.symbolsFromDisk(uri),
    currentDiff: () => diffView.current(),
    diffNodes: () => diffView.nodes(),
    currentGraph: () => graphPanel.current(),
    currentReplay: () => view.current(),
    replayChoices: (uri) => replayChoices(cli, uri),
    gpuAvailable,
    currentBisect: () => bisects.current(),
    openBisect: (target) => bisects.open(target),
  };
}

export function deactivate(): Thenable<void> | undefined {
  return client?.stop();
}
