// Test-only extension: after startup it opens HLO files from $HLO_E2E_DIR (a copy of
// tests/editors/fixtures plus a converted .hlo.pb) and asks VS Code's provider commands
// for definition, hover, symbols, semantic tokens and diagnostics. Those requests go
// through the hlo-lsp extension's vscode-languageclient to the real server. One JSON
// line per check in $HLO_E2E_OUT, then {"summary":true,"failures":N}.
const vscode = require('vscode');
const fs = require('fs');
const path = require('path');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function poll(fn, ms = 20000) {
  const end = Date.now() + ms;
  let v;
  while (Date.now() < end) {
    try { v = await fn(); if (v) return v; } catch (e) { v = undefined; }
    await sleep(250);
  }
  return v;
}

// The compilation history of module_0001.jit_f: before_optimizations, pass dumps 0003
// (algsimp: adds %one, renames %spread to %broadcast.1, swaps %out's operands) and 0004
// (dce: removes %one), then sm_9.0_gpu_after_optimizations.
const STAGES = {
  before: 'module_0001.jit_f.before_optimizations.txt',
  algsimp: 'module_0001.jit_f.0003.simplification.after_algsimp.before_dce.txt',
  dce: 'module_0001.jit_f.0004.simplification.after_dce.before_fusion.txt',
  after: 'module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt',
};
const base = (uri) => (uri ? path.basename(uri.fsPath) : undefined);
const activeName = () => base(vscode.window.activeTextEditor && vscode.window.activeTextEditor.document.uri);
const bare = (name) => String(name).replace(/^%/, '');

async function passHistory(check, open, file, api) {
  // Palette commands: HLO: Next Pass / HLO: Previous Pass open the adjacent dump.
  await open(STAGES.before);
  await vscode.commands.executeCommand('hlo-lsp.nextPass');
  check('next pass (palette)', await poll(() => activeName() === STAGES.algsimp, 10000), activeName());
  await vscode.commands.executeCommand('hlo-lsp.nextPass');
  check('next pass again', await poll(() => activeName() === STAGES.dce, 10000), activeName());
  await vscode.commands.executeCommand('hlo-lsp.previousPass', file(STAGES.algsimp));
  check('previous pass (palette)', await poll(() => activeName() === STAGES.before, 10000), activeName());
  await open(STAGES.after);
  await vscode.commands.executeCommand('hlo-lsp.nextPass');
  await sleep(500);
  check('next pass at the end stays', activeName() === STAGES.after, activeName());

  // Code lenses on a pass dump: previous, next and diff with previous; the first
  // stage has no previous.
  const lensesOf = async (name) => {
    await open(name);
    return (await poll(async () => {
      const l = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', file(name));
      return l && l.some((x) => x.command && /pass/.test(x.command.title)) ? l : undefined;
    }, 15000)) || [];
  };
  const lenses = await lensesOf(STAGES.algsimp);
  const titled = (re) => lenses.find((l) => l.command && re.test(l.command.title));
  const titles = lenses.map((l) => l.command && `${l.command.title} -> ${l.command.command}`);
  check('code lenses of a pass dump', titled(/previous pass/) && titled(/next pass/) && titled(/diff with previous/), titles);
  const firstLenses = await lensesOf(STAGES.before);
  check('no previous-pass lens on the first stage', !firstLenses.some((l) => l.command && /previous pass/.test(l.command.title)),
    firstLenses.map((l) => l.command && l.command.title));

  // A lens click runs the server command through the client: the extension opens the answer.
  const run = (lens) => vscode.commands.executeCommand(lens.command.command, ...(lens.command.arguments || []));
  await open(STAGES.algsimp);
  if (titled(/next pass/)) {
    await run(titled(/next pass/));
    check('next pass (code lens) opens the dump', await poll(() => activeName() === STAGES.dce, 10000), activeName());
  }

  // HLO: Diff with Previous Pass: the tree lists the known edits, the diff editor opens.
  await open(STAGES.algsimp);
  await vscode.commands.executeCommand('hlo-lsp.diffWithPrevious');
  const diff = await poll(() => {
    const d = api.currentDiff();
    return d && base(vscode.Uri.parse(d.b)) === STAGES.algsimp ? d : undefined;
  }, 10000);
  const added = ((diff && diff.added) || []).map((i) => bare(i.name));
  const renamed = ((diff && diff.renamed) || []).map((r) => `${bare(r.from)}>${bare(r.to)}`);
  const changed = ((diff && diff.changed) || []).map((c) => `${bare(c.name)}.${c.field}`);
  check('diff with previous pass', diff && base(vscode.Uri.parse(diff.a)) === STAGES.before
    && added.includes('one') && renamed.includes('spread>broadcast.1') && changed.includes('out.operands'),
  diff && { a: base(vscode.Uri.parse(diff.a)), added, renamed, changed, removed: diff.removed });
  const tab = () => vscode.window.tabGroups.activeTabGroup.activeTab;
  const diffTab = () => {
    const input = tab() && tab().input;
    return input instanceof vscode.TabInputTextDiff ? input : undefined;
  };
  const opened = await poll(() => diffTab(), 10000);
  check('diff editor opens', opened && base(opened.original) === STAGES.before && base(opened.modified) === STAGES.algsimp,
    opened ? { original: base(opened.original), modified: base(opened.modified) } : tab() && tab().label);

  // Selecting a row of the HLO Diff view opens the diff editor at its line in B.
  const nodes = api.diffNodes();
  const node = nodes.find((n) => n.kind === 'added' && /one/.test(n.label));
  // The line the row moves the cursor to (from line 1, so a cursor already there fails).
  const selected = async (n, uri) => {
    const start = new vscode.Selection(0, 0, 0, 0);
    vscode.window.visibleTextEditors.filter((e) => e.document.uri.fsPath === uri.fsPath).forEach((e) => { e.selection = start; });
    await vscode.commands.executeCommand('hlo-lsp.openDiffEntry', n);
    return poll(() => {
      const e = vscode.window.visibleTextEditors.find((x) => x.document.uri.fsPath === uri.fsPath);
      return e && e.selection.active.line === n.line - 1 ? e.selection.active.line + 1 : undefined;
    }, 10000);
  };
  check('diff view rows', nodes.some((n) => n.kind === 'computation' && n.label === 'main') && node,
    nodes.map((n) => `${n.kind} ${n.label} ${n.description} @${n.side}:${n.line}`));
  if (node) {
    check('diff entry reveals its line', await selected(node, file(STAGES.algsimp)) === 14 && diffTab(), node.line);
  }
  const main = nodes.find((n) => n.kind === 'computation' && n.label === 'main');
  if (main) {
    await vscode.commands.executeCommand('hlo-lsp.openDiffEntry', main);
    const at = await poll(() => {
      const e = vscode.window.activeTextEditor;
      return e && base(e.document.uri) === STAGES.algsimp && e.selection.active.line === 8 ? 9 : undefined;
    }, 10000);
    check('diff computation row opens at the computation', at === 9 && diffTab(),
      vscode.window.activeTextEditor && vscode.window.activeTextEditor.selection.active.line);
  }

  // Diff with Stage (the other file given): the earlier dump is side A; a removed row
  // reveals its line in A.
  await vscode.commands.executeCommand('hlo-lsp.diffWithStage', file(STAGES.dce), file(STAGES.algsimp));
  const dceDiff = await poll(() => {
    const d = api.currentDiff();
    return d && base(vscode.Uri.parse(d.b)) === STAGES.dce ? d : undefined;
  }, 10000);
  const removed = ((dceDiff && dceDiff.removed) || []).map((i) => `${bare(i.name)}@${i.line}`);
  check('diff with stage', dceDiff && base(vscode.Uri.parse(dceDiff.a)) === STAGES.algsimp && removed.includes('one@14'), removed);
  const gone = api.diffNodes().find((n) => n.kind === 'removed');
  if (gone) check('removed row reveals its line in A', await selected(gone, file(STAGES.algsimp)) === 14, gone);

  // The "diff with previous" lens through the client's middleware fills the view too.
  const dceLenses = await lensesOf(STAGES.dce);
  const diffLens = dceLenses.find((l) => l.command && /diff with previous/.test(l.command.title));
  if (diffLens) {
    await vscode.commands.executeCommand('hlo-lsp.diffWithStage', file(STAGES.after), file(STAGES.before));
    await run(diffLens);
    const lensDiff = await poll(() => {
      const d = api.currentDiff();
      return d && base(vscode.Uri.parse(d.b)) === STAGES.dce ? d : undefined;
    }, 10000);
    check('diff with previous (code lens)', lensDiff && base(vscode.Uri.parse(lensDiff.a)) === STAGES.algsimp,
      lensDiff && { a: lensDiff.a, b: lensDiff.b });
  } else {
    check('diff with previous lens on a pass dump', false, dceLenses.map((l) => l.command && l.command.title));
  }

  // Hover on an instruction of a pass dump tells its pass history: %one came with algsimp.
  const doc = await open(STAGES.algsimp);
  const hovers = await vscode.commands.executeCommand('vscode.executeHoverProvider', doc.uri,
    new vscode.Position(13, doc.lineAt(13).text.indexOf('%one') + 2));
  const htext = (hovers || []).map((h) => h.contents.map((c) => c.value || String(c)).join('\n')).join('\n');
  check('hover tells the pass history', /Pass history/.test(htext) && /algsimp/.test(htext), htext.slice(-300));
}

// HLO: Show Graph: the webview shows hlo.graph's SVG; around a name, the node lines map
// clicks to definitions (%one is at line 14 of the algsimp dump).
async function graph(check, open, file, api) {
  await open(STAGES.algsimp);
  await vscode.commands.executeCommand('hlo-lsp.showGraph', file(STAGES.algsimp));
  const whole = await poll(() => api.currentGraph(), 10000);
  check('show graph (ENTRY)', whole && /<svg/.test(whole.reply.svg) && /id="node_out"/.test(whole.reply.svg) && !whole.name,
    whole && whole.reply.nodes);
  await vscode.commands.executeCommand('hlo-lsp.showGraph', file(STAGES.algsimp), 'one');
  const around = await poll(() => { const g = api.currentGraph(); return g && g.name === 'one' ? g : undefined; }, 10000);
  const one = around && around.reply.nodes.find((n) => n.name === 'one');
  check('show graph around a name', one && one.line === 14 && around.reply.cut === false, around && around.reply.nodes);
}

// A pasted OOM report beside the dumps: its "Buffer K:" lines link to the instructions
// they name in the optimized module (hlo.memory; %fusion is at line 12 of STAGES.after).
async function oomLinks(check, open, dir) {
  fs.writeFileSync(path.join(dir, 'oom.log'), [
    'RESOURCE_EXHAUSTED: Out of memory while trying to allocate 32 bytes.',
    'BufferAssignment OOM Debugging.',
    'Peak buffers:',
    '        Buffer 1:',
    '                Size: 16B',
    '                XLA Label: fusion',
    '                Shape: f32[4]',
    '                ==========================',
    '',
  ].join('\n'));
  const doc = await open('oom.log');
  const links = await poll(async () => {
    const r = await vscode.commands.executeCommand('vscode.executeLinkProvider', doc.uri);
    return r && r.length ? r : undefined;
  }, 20000);
  const link = links && links[0];
  check('OOM log links a buffer to its instruction', link && link.range.start.line === 3 && link.target &&
    path.basename(link.target.fsPath) === STAGES.after && link.target.fragment === 'L12',
    (links || []).map((l) => ({ line: l.range.start.line, target: l.target && l.target.toString() })));
}

// Replay: the results view's report (each output's statistics, the NaN origin), its
// link to the instruction, the module's snapshots offered, cancel, the GPU commands
// hidden without a GPU. module_0005.nanmod divides its argument by itself; its
// snapshot's arguments {0, 3} make %q (line 5) divide 0 by 0.
async function replay(check, open, file, api, dir) {
  const nanmod = 'module_0005.nanmod.before_optimizations.txt';
  const snapshot = file('module_0005.nanmod.hlo_snapshot.pb');
  await open(nanmod);
  const choices = await api.replayChoices(file(nanmod));
  check('replay offers the module\'s snapshots and fake data', choices.some((c) => c.args.snapshot &&
    vscode.Uri.parse(c.args.snapshot).fsPath === snapshot.fsPath) && choices.some((c) => c.args.fakeData === true),
  choices.map((c) => ({ label: c.label, args: c.args })));
  await vscode.commands.executeCommand('hlo-lsp.replayCpu', file(nanmod), { snapshot: snapshot.toString() });
  const shown = await poll(() => { const r = api.currentReplay(); return r && /nanmod/.test(r.title) ? r.report : undefined; }, 30000);
  const out = shown && shown.outputs && shown.outputs[0];
  const origin = shown && shown.firstNonFinite;
  check('replay results: output statistics and the NaN origin', out && out.shape === 'f32[2]' && out.nan === 1 &&
    out.min === 1 && out.max === 1 && origin && origin.name === 'q' && origin.line === 5 && /snapshot/.test(shown.summary),
  shown);
  if (origin) {
    await open(STAGES.before);
    // Not awaited: the check below polls for its effect (a stuck command fails it).
    void vscode.commands.executeCommand('hlo-lsp.openReplayLine', shown.uri, origin.line);
    const at = await poll(() => {
      const e = vscode.window.activeTextEditor;
      return e && base(e.document.uri) === nanmod && e.selection.active.line === 4 ? 5 : undefined;
    }, 10000);
    check('the NaN origin link opens the instruction', at === 5, activeName());
  }

  // Cancel: an endless loop stops at once; the view shows the cancelled report.
  fs.writeFileSync(path.join(dir, 'endless.hlo'), ['HloModule endless', '', '%c (p: s32[]) -> pred[] {',
    '  %p = s32[] parameter(0)', '  ROOT %t = pred[] constant(true)', '}', '', '%b (p: s32[]) -> s32[] {',
    '  %p = s32[] parameter(0)', '  %one = s32[] constant(1)', '  ROOT %n = s32[] add(%p, %one)', '}', '',
    'ENTRY %e () -> s32[] {', '  %z = s32[] constant(0)', '  ROOT %w = s32[] while(%z), condition=%c, body=%b', '}', ''].join('\n'));
  await open('endless.hlo');
  const t = Date.now();
  void vscode.commands.executeCommand('hlo-lsp.replayCpu', file('endless.hlo'), { fakeData: true });
  await sleep(1500);
  void vscode.commands.executeCommand('hlo-lsp.cancelReplay');
  const cancelled = await poll(() => { const r = api.currentReplay(); return r && /endless/.test(r.title) ? r : undefined; }, 15000);
  check('cancel replay: the run is killed, the view says so', cancelled && /endless/.test(cancelled.title) &&
    cancelled.report.outcome === 'cancelled' && Date.now() - t < 20000, cancelled && { ...cancelled.report, ms: Date.now() - t });

  // No GPU here: the GPU commands are hidden from the palette (when: hlo.gpuAvailable).
  const ext = vscode.extensions.getExtension('hlo-lsp.hlo-lsp');
  const palette = ext.packageJSON.contributes.menus.commandPalette;
  const gpuWhen = ['hlo-lsp.replayGpu', 'hlo-lsp.compare'].map((c) => (palette.find((m) => m.command === c) || {}).when);
  check('GPU commands hidden without a GPU', api.gpuAvailable() === false && gpuWhen.every((w) => /hlo\.gpuAvailable/.test(w || '')),
    { gpu: api.gpuAvailable(), gpuWhen });
}

// Find the Pass that Changed the Result: generated pass dumps of module m where pass 2
// doubles instead of negating. The command shows hlo.bisect's answer; its links open the
// dump after the pass at the first differing instruction and the diff of the two dumps.
async function bisect(check, open, file, api, dir) {
  const mod = (root) => ['HloModule m', 'ENTRY e {', '  p = f32[4] parameter(0)', '  z = f32[] constant(0)',
    '  zb = f32[4] broadcast(z), dimensions={}', `  ROOT r = ${root}`, '}', ''].join('\n');
  const pass = (k) => `module_0009.m.000${k}.opt.after_pass${k}.before_pass${k + 1}.txt`;
  fs.writeFileSync(path.join(dir, 'module_0009.m.before_optimizations.txt'), mod('f32[4] negate(p)'));
  for (let k = 1; k <= 3; k++) fs.writeFileSync(path.join(dir, pass(k)), mod(k >= 2 ? 'f32[4] add(p, p)' : 'f32[4] subtract(zb, p)'));
  await open(pass(3));
  const actions = await poll(async () => {
    const a = await vscode.commands.executeCommand('vscode.executeCodeActionProvider', file(pass(3)), new vscode.Range(0, 0, 0, 0));
    return (a || []).some((x) => /Find the pass/.test(x.title)) ? a : undefined;
  }, 15000);
  check('bisect: code action on a pass dump', !!actions, (actions || []).map((a) => a.title));
  const ext = vscode.extensions.getExtension('hlo-lsp.hlo-lsp');
  const contributes = ext.packageJSON.contributes;
  const entry = contributes.commands.find((c) => c.command === 'hlo-lsp.bisect');
  const when = (contributes.menus.commandPalette.find((m) => m.command === 'hlo-lsp.bisect') || {}).when;
  check('bisect: in the palette where an HLO dump is open', entry && entry.title === 'Find the Pass that Changed the Result' &&
    /editorLangId == hlo/.test(when || ''), { entry, when });
  await vscode.commands.executeCommand('hlo-lsp.bisect', file(pass(3)), { fakeData: true });
  const r = await poll(() => { const b = api.currentBisect(); return b && b.module === 'm' ? b : undefined; }, 30000);
  check('bisect: names the pass, both dumps and the first differing instruction', r && r.outcome === 'changed' &&
    r.step === 2 && base(vscode.Uri.parse(r.beforeUri)) === pass(1) && base(vscode.Uri.parse(r.afterUri)) === pass(2) &&
    r.instruction && r.instruction.name === 'r' && r.instruction.line === 6 && /changed the result/.test(r.summary), r);
  if (!r) return;
  await api.openBisect('after');
  check('bisect: "Open After" opens the dump at the instruction', await poll(() => {
    const e = vscode.window.activeTextEditor;
    return e && base(e.document.uri) === pass(2) && e.selection.active.line === 5;
  }, 10000), activeName());
  await api.openBisect('diff');
  const d = await poll(() => {
    const x = api.currentDiff();
    return x && base(vscode.Uri.parse(x.b)) === pass(2) ? x : undefined;
  }, 10000);
  check('bisect: "Show Diff" shows the diff of the two dumps', d && base(vscode.Uri.parse(d.a)) === pass(1), d && { a: d.a, b: d.b });
}

async function activate() {
  const out = process.env.HLO_E2E_OUT;
  const dir = process.env.HLO_E2E_DIR;
  if (!out || !dir) return;
  const lines = [];
  let failures = 0;
  const write = () => fs.writeFileSync(out, lines.join('\n') + '\n');
  const check = (name, ok, detail) => {
    if (!ok) failures++;
    lines.push(JSON.stringify({ check: name, ok: !!ok, detail }));
    write();
  };
  const skip = (name, why) => { lines.push(JSON.stringify({ check: name, skipped: why })); write(); };
  const file = (name) => vscode.Uri.file(path.join(dir, name));
  const open = async (name) => {
    const doc = await vscode.workspace.openTextDocument(file(name));
    await vscode.window.showTextDocument(doc, { preview: false });
    return doc;
  };
  try {
    const ext = vscode.extensions.getExtension('hlo-lsp.hlo-lsp');
    check('extension installed', !!ext, ext && ext.packageJSON.version);
    const api = await ext.activate();

    // File detection: manifest patterns, plus content detection of .txt files.
    const expect = {
      'module_0001.jit_f.before_optimizations.txt': 'hlo',
      'module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt': 'hlo',
      'module_0001.jit_f.0003.simplification.after_algsimp.before_dce.txt': 'hlo',
      'undefined_operand.hlo': 'hlo',
      'exported_model.txt': 'hlo',
      'module_text.pbtxt': 'hlo',
      'module_0001.jit_f.sm_9.0_gpu_after_optimizations-buffer-assignment.txt': 'plaintext',
      'notes.txt': 'plaintext',
    };
    const got = {};
    for (const name of Object.keys(expect)) {
      const doc = await open(name);
      got[name] = await poll(async () => {
        const d = vscode.workspace.textDocuments.find((t) => t.uri.fsPath === doc.uri.fsPath);
        return d && (d.languageId === expect[name] ? d.languageId : undefined);
      }, expect[name] === 'hlo' ? 5000 : 500) || vscode.workspace.textDocuments.find((t) => t.uri.fsPath === doc.uri.fsPath).languageId;
    }
    check('language detection', Object.keys(expect).every((k) => got[k] === expect[k]), got);

    const doc = await open('module_0001.jit_f.before_optimizations.txt');
    const uri = doc.uri;
    await api.ready();
    const caps = api.serverCapabilities() || {};
    check('server started', Object.keys(caps).length > 0, Object.keys(caps));
    const line14 = doc.lineAt(13).text;
    const prodUse = new vscode.Position(13, line14.indexOf('%prod') + 2);
    const reducerUse = new vscode.Position(13, line14.indexOf('%add_reducer') + 3);

    // The first request may race the client start: poll until the provider answers.
    const defs = await poll(async () => {
      const r = await vscode.commands.executeCommand('vscode.executeDefinitionProvider', uri, prodUse);
      return r && r.length ? r : undefined;
    });
    const range = (d) => d && (d.range || d.targetRange);
    check('definition of an operand', defs && range(defs[0]).start.line === 11, defs);
    const cdefs = await vscode.commands.executeCommand('vscode.executeDefinitionProvider', uri, reducerUse);
    check('definition of a computation', cdefs && cdefs.length && range(cdefs[0]).start.line === 2, cdefs);

    const hovers = await vscode.commands.executeCommand('vscode.executeHoverProvider', uri, prodUse);
    const htext = (hovers || []).map((h) => h.contents.map((c) => c.value || String(c)).join('\n')).join('\n');
    check('hover', /multiply/.test(htext) && /f32\[4\]/.test(htext), htext.slice(0, 300));

    const syms = await vscode.commands.executeCommand('vscode.executeDocumentSymbolProvider', uri);
    const names = [];
    const walk = (list) => (list || []).forEach((s) => { names.push(s.name); walk(s.children); });
    walk(syms);
    check('documentSymbol', ['jit_f', 'main', 'add_reducer', 'prod'].every((n) => names.includes(n)), names);

    const tokens = await vscode.commands.executeCommand('vscode.provideDocumentSemanticTokens', uri);
    check('semantic tokens', tokens && tokens.data && tokens.data.length > 0 && tokens.data.length % 5 === 0,
      tokens && tokens.data ? tokens.data.length : tokens);

    const refs = await vscode.commands.executeCommand('vscode.executeReferenceProvider', uri, prodUse);
    check('references', (refs || []).length >= 3, (refs || []).map((r) => r.range.start.line));

    if (caps.workspaceSymbolProvider) {
      const ws = await vscode.commands.executeCommand('vscode.executeWorkspaceSymbolProvider', 'add_reducer');
      check('workspace/symbol', (ws || []).some((s) => s.name === 'add_reducer'), (ws || []).map((s) => s.name));
    } else {
      skip('workspace/symbol', 'the server does not offer workspaceSymbolProvider');
    }

    // The extension's search (server command hlo.search, else `hlo-lsp search`).
    const hits = await api.search('kind:computation add_reducer', dir);
    check('search', hits.some((h) => h.name === 'add_reducer' && h.line === 3 && /before_optimizations/.test(h.path)), hits);

    // Other stages of the module (hlo/moduleFiles, else the dump names).
    const stages = (await api.moduleFiles(uri)).map((f) => f.stage);
    check('module stages', stages.includes('sm_9.0_gpu_after_optimizations') && stages.includes('before_optimizations')
      && !stages.some((s) => /buffer-assignment/.test(s)), stages);

    await passHistory(check, open, file, api);
    await graph(check, open, file, api);
    await oomLinks(check, open, dir);
    await replay(check, open, file, api, dir);
    await bisect(check, open, file, api, dir);

    const bad = (await open('undefined_operand.hlo')).uri;
    const diags = await poll(() => { const d = vscode.languages.getDiagnostics(bad); return d.length ? d : undefined; });
    check('diagnostics', diags && diags.length === 1 && diags[0].range.start.line === 4 && /missing/.test(diags[0].message),
      (diags || []).map((d) => `${d.range.start.line}:${d.range.start.character} ${d.message}`));
    if (caps.codeActionProvider) {
      const actions = await vscode.commands.executeCommand('vscode.executeCodeActionProvider', bad, diags[0].range);
      check('codeAction', (actions || []).length > 0, (actions || []).map((a) => a.title));
    } else {
      skip('codeAction', 'the server does not offer codeActionProvider');
    }

    // Over 50 MB VS Code gives extensions no text model; the outline still comes from
    // the server, which reads the file from disk by URI.
    const big = file('module_0003.big.after_optimizations.txt');
    if (fs.existsSync(big.fsPath)) {
      const size = fs.statSync(big.fsPath).size;
      let model = 'none';
      try { model = (await vscode.workspace.openTextDocument(big)).languageId; } catch (e) { model = `refused: ${String(e).slice(0, 80)}`; }
      const t = Date.now();
      const bsyms = await api.symbolsFromDisk(big);
      const comps = bsyms.length ? (bsyms[0].children || []).map((c) => `${c.name} ${c.detail || ''}`.trim()) : [];
      check('outline of a file over 50 MB, from disk', size > 50 * 1024 * 1024 && bsyms.length === 1 && bsyms[0].name === 'big'
        && comps.some((c) => /^helper/.test(c)) && comps.some((c) => /^main/.test(c)),
      { mb: Math.round(size / 1048576), extensionModel: model, ms: Date.now() - t, module: bsyms[0] && bsyms[0].name, computations: comps });
    } else {
      check('large fixture', false, `missing ${big.fsPath}`);
    }

    // A binary proto opens through the custom editor as read-only HLO text.
    const pb = file('module_0002.jit_f.before_optimizations.hlo.pb');
    if (fs.existsSync(pb.fsPath)) {
      await vscode.commands.executeCommand('vscode.openWith', pb, 'hlo.protoViewer');
      const text = await poll(() => {
        const e = vscode.window.activeTextEditor;
        return e && e.document.uri.scheme === 'hlo-proto' ? e.document : undefined;
      }, 30000);
      check('proto opens as HLO text', text && text.languageId === 'hlo' && /^HloModule jit_f/.test(text.getText()),
        text ? { uri: text.uri.toString(), languageId: text.languageId, head: text.getText().slice(0, 60) } : 'no hlo-proto editor');
      if (text) {
        const psyms = await poll(async () => {
          const r = await vscode.commands.executeCommand('vscode.executeDocumentSymbolProvider', text.uri);
          return r && r.length ? r : undefined;
        }, 10000);
        check('proto text gets the server', psyms && psyms[0].name === 'jit_f', (psyms || []).map((s) => s.name));
        // Its code actions act on the .pb itself (the commands need a file URI).
        const pactions = await vscode.commands.executeCommand('vscode.executeCodeActionProvider', text.uri,
          new vscode.Range(0, 0, 0, 0));
        const targets = (pactions || []).map((a) => a.command && a.command.arguments && a.command.arguments[0].uri);
        check('code actions in the proto text view name the proto', targets.length > 0 &&
          targets.every((u) => vscode.Uri.parse(u).fsPath === pb.fsPath), { titles: (pactions || []).map((a) => a.title), targets });
      }
    } else {
      check('proto fixture', false, `missing ${pb.fsPath}`);
    }
  } catch (e) {
    check('tester', false, String((e && e.stack) || e));
  }
  lines.push(JSON.stringify({ summary: true, failures }));
  write();
}

module.exports = { activate, deactivate() {} };
