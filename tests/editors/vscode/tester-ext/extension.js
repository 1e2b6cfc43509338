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
