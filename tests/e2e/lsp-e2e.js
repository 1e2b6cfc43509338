#!/usr/bin/env node
// End-to-end tests: drives the real hlo-lsp binary through vscode-jsonrpc
// (the transport vscode-languageclient uses) and checks every feature on
// our fixtures and, when ../shared/corpus/dumps exists, on real dumps.
// Usage: node lsp-e2e.js <path to hlo-lsp> [corpus dumps dir]
// Prints one line per check and a final "N passed, N failed".
'use strict';
const cp = require('child_process');
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
let rpc, P;
try {
  rpc = require('vscode-jsonrpc/node');
  P = require('vscode-languageserver-protocol');
} catch (e) {
  console.log('SKIP: npm packages missing; run `npm ci` in tests/e2e (or tests/e2e/run.sh)');
  process.exit(77);
}

const server = process.argv[2];
const corpusDir = process.argv[3] || path.resolve(__dirname, '../../../shared/corpus/dumps');
const fixtures = path.join(__dirname, 'fixtures');
let passed = 0, failed = 0;

function check(name, ok, detail) {
  if (ok) passed++; else failed++;
  const d = ok ? '' : ' ' + JSON.stringify(detail === undefined ? null : detail).slice(0, 600);
  console.log(`${ok ? 'PASS' : 'FAIL'} ${name}${d}`);
}

const withTimeout = (p, ms, what) => Promise.race([p,
  new Promise((_, rej) => setTimeout(() => rej(new Error(`timeout: ${what}`)), ms))]);

class Session {
  static async start({ encodings, initOptions, rootUri = null, workspaceCaps = {}, windowCaps, onRequest } = {}) {
    const s = new Session();
    s.child = cp.spawn(server, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    s.stderr = '';
    s.child.stderr.on('data', d => { s.stderr += d; if (process.env.LSP_DEBUG) process.stderr.write(d); });
    s.exited = new Promise(r => s.child.on('exit', (code, sig) => r(sig ? sig : code)));
    s.conn = rpc.createMessageConnection(new rpc.StreamMessageReader(s.child.stdout),
                                         new rpc.StreamMessageWriter(s.child.stdin));
    s.diagnostics = new Map();
    s.waiters = [];
    s.logs = [];
    s.conn.onNotification(P.PublishDiagnosticsNotification.type, p => {
      s.diagnostics.set(p.uri, p);
      s.waiters = s.waiters.filter(w => !w(p));
    });
    s.conn.onNotification(P.LogMessageNotification.type, p => s.logs.push(p));
    s.serverRequests = [];
    s.conn.onRequest((method, params) => {
      s.serverRequests.push({ method, params });
      return onRequest ? onRequest(method, params) : null;
    });
    s.progress = [];
    s.conn.onNotification('$/progress', p => s.progress.push(p));
    s.conn.listen();
    const capabilities = {
      general: encodings ? { positionEncodings: encodings } : undefined,
      textDocument: {
        hover: { contentFormat: ['markdown'] },
        documentSymbol: { hierarchicalDocumentSymbolSupport: true },
        semanticTokens: { requests: { full: true, range: true }, tokenTypes: [], tokenModifiers: [], formats: ['relative'] },
        inlayHint: {}, callHierarchy: {}, foldingRange: {}, documentLink: {},
      },
      workspace: { inlayHint: { refreshSupport: true }, ...workspaceCaps },
      window: windowCaps,
    };
    s.init = await withTimeout(s.conn.sendRequest(P.InitializeRequest.type, {
      processId: process.pid, rootUri, capabilities, initializationOptions: initOptions,
    }), 15000, 'initialize');
    s.conn.sendNotification(P.InitializedNotification.type, {});
    return s;
  }
  open(file, text) {
    const uri = pathToFileURL(file).href;
    text = text === undefined ? fs.readFileSync(file, 'utf8') : text;
    this.conn.sendNotification(P.DidOpenTextDocumentNotification.type,
      { textDocument: { uri, languageId: 'hlo', version: 1, text } });
    return { uri, text, lines: text.split('\n') };
  }
  req(type, params, ms = 20000) { return withTimeout(this.conn.sendRequest(type, params), ms, type.method); }
  waitDiagnostics(uri, pred = () => true, ms = 20000) {
    const have = this.diagnostics.get(uri);
    if (have && pred(have)) return Promise.resolve(have);
    return withTimeout(new Promise(res => this.waiters.push(p => {
      if (p.uri === uri && pred(p)) { res(p); return true; } return false; })), ms, 'diagnostics');
  }
  async stop() {
    await this.req(P.ShutdownRequest.type, undefined, 10000);
    this.conn.sendNotification(P.ExitNotification.type);
    const code = await withTimeout(this.exited, 10000, 'server exit').catch(e => e.message);
    this.conn.dispose();
    return code;
  }
}

// 0-based position of `needle` (the occurrence after `after`) on the 0-based line.
function posOf(doc, line, needle, after = '') {
  const text = doc.lines[line];
  const from = after ? text.indexOf(after) + after.length : 0;
  const character = text.indexOf(needle, from);
  if (character < 0) throw new Error(`'${needle}' not on line ${line}: ${text}`);
  return { line, character: character + (needle.startsWith('%') ? 1 : 0) };
}
function lineOf(doc, needle) { return doc.lines.findIndex(l => l.includes(needle)); }
const td = doc => ({ uri: doc.uri });
const hoverText = h => h && h.contents && (h.contents.value || JSON.stringify(h.contents)) || '';
function textAt(doc, range) {
  if (range.start.line !== range.end.line) return null;
  return doc.lines[range.start.line].slice(range.start.character, range.end.character);
}

async function fixtureTests() {
  const s = await Session.start();
  const caps = s.init.capabilities;
  check('initialize: utf-16 by default', caps.positionEncoding === 'utf-16', caps.positionEncoding);
  for (const cap of ['documentSymbolProvider', 'definitionProvider', 'declarationProvider', 'referencesProvider',
                     'documentHighlightProvider', 'hoverProvider', 'inlayHintProvider', 'foldingRangeProvider',
                     'semanticTokensProvider', 'documentLinkProvider', 'callHierarchyProvider']) {
    check(`capability ${cap}`, !!caps[cap], caps);
  }
  check('semantic tokens: full and range', caps.semanticTokensProvider.full && caps.semanticTokensProvider.range);

  const doc = s.open(path.join(fixtures, 'basic.hlo'));
  const diag = await s.waitDiagnostics(doc.uri);
  check('diagnostics: clean file has none', diag.diagnostics.length === 0, diag.diagnostics);

  const errs = s.open(path.join(fixtures, 'errors.hlo'));
  const ed = await s.waitDiagnostics(errs.uri);
  const undef = ed.diagnostics.find(d => /undefined/.test(d.message));
  check('diagnostics: undefined operand', undef && textAt(errs, undef.range) === 'missing', ed.diagnostics);
  check('diagnostics: syntax error with severity error',
        ed.diagnostics.some(d => d.severity === 1 && d !== undef), ed.diagnostics);

  // documentSymbol
  const syms = await s.req(P.DocumentSymbolRequest.type, { textDocument: td(doc) });
  const mod = syms && syms[0];
  check('documentSymbol: module', mod && mod.name === 'basic_module' && mod.kind === 2, syms);
  const comps = (mod && mod.children) || [];
  const byName = n => comps.find(c => c.name === n);
  check('documentSymbol: computations', ['add_f32', 'fused_computation', 'body', 'cond', 'main'].every(byName),
        comps.map(c => c.name));
  check('documentSymbol: ENTRY marked', byName('main') && /ENTRY/.test(byName('main').detail), byName('main'));
  check('documentSymbol: fusion kind in detail',
        byName('fused_computation') && /kLoop/.test(byName('fused_computation').detail), byName('fused_computation'));
  const fusionSym = byName('main') && byName('main').children.find(c => c.name === 'fusion');
  check('documentSymbol: instruction with opcode and shape',
        fusionSym && /fusion/.test(fusionSym.detail) && /f32\[4\]/.test(fusionSym.detail), fusionSym);
  check('documentSymbol: selection range is the name',
        fusionSym && textAt(doc, fusionSym.selectionRange) === 'fusion', fusionSym);

  // definition / declaration
  const sumLine = lineOf(doc, '%sum =');
  const fusionDefLine = lineOf(doc, '%fusion =');
  let def = await s.req(P.DefinitionRequest.type, { textDocument: td(doc), position: posOf(doc, sumLine, '%fusion') });
  check('definition: operand -> instruction', def && def[0] && def[0].range.start.line === fusionDefLine &&
        textAt(doc, def[0].range) === 'fusion', def);
  def = await s.req(P.DeclarationRequest.type, { textDocument: td(doc), position: posOf(doc, sumLine, '%fusion') });
  check('declaration: aliases definition', def && def[0] && def[0].range.start.line === fusionDefLine, def);
  def = await s.req(P.DefinitionRequest.type, { textDocument: td(doc), position: posOf(doc, sumLine, '%add_f32') });
  check('definition: to_apply -> computation', def && def[0] && textAt(doc, def[0].range) === 'add_f32' &&
        def[0].range.start.line === lineOf(doc, '%add_f32 ('), def);
  def = await s.req(P.DefinitionRequest.type, { textDocument: td(doc), position: posOf(doc, fusionDefLine, '%fused_computation') });
  check('definition: calls -> computation', def && def[0] && def[0].range.start.line === lineOf(doc, '%fused_computation ('), def);
  const loopLine = lineOf(doc, '%loop =');
  def = await s.req(P.DefinitionRequest.type, { textDocument: td(doc), position: posOf(doc, loopLine, '%body') });
  check('definition: while body -> computation', def && def[0] && def[0].range.start.line === lineOf(doc, '%body ('), def);
  def = await s.req(P.DefinitionRequest.type, { textDocument: td(doc), position: posOf(doc, loopLine, '%cond') });
  check('definition: while condition -> computation', def && def[0] && def[0].range.start.line === lineOf(doc, '%cond ('), def);
  const outLine = lineOf(doc, 'ROOT %out');
  def = await s.req(P.DefinitionRequest.type, { textDocument: td(doc), position: posOf(doc, outLine, '%sum') });
  check('definition: control predecessor -> instruction', def && def[0] && def[0].range.start.line === sumLine, def);
  const param1Line = lineOf(doc, '%param_1 = ');
  def = await s.req(P.DefinitionRequest.type, { textDocument: td(doc), position: posOf(doc, param1Line, '%param_1') });
  check('definition: parameter of a fusion -> call-site operand',
        def && def.some(l => l.range.start.line === fusionDefLine), def);

  // references / highlights
  let refs = await s.req(P.ReferencesRequest.type, { textDocument: td(doc), position: posOf(doc, fusionDefLine, '%fusion'),
                                                   context: { includeDeclaration: true } });
  check('references: declaration + 3 uses of %fusion', refs && refs.length === 4 &&
        refs.every(r => textAt(doc, r.range) === 'fusion'), refs);
  refs = await s.req(P.ReferencesRequest.type, { textDocument: td(doc), position: posOf(doc, sumLine, '%sum'),
                                                context: { includeDeclaration: false } });
  check('references: control-predecessor use', refs && refs.length === 1 && refs[0].range.start.line === outLine, refs);
  refs = await s.req(P.ReferencesRequest.type, { textDocument: td(doc), position: posOf(doc, lineOf(doc, '%add_f32 ('), 'add_f32'),
                                                context: { includeDeclaration: false } });
  check('references: callers of a computation', refs && refs.length === 1 && refs[0].range.start.line === sumLine, refs);
  const nextLine = lineOf(doc, '%next =');
  const hl = await s.req(P.DocumentHighlightRequest.type, { textDocument: td(doc), position: posOf(doc, nextLine, '%i') });
  check('documentHighlight: %i in body (declaration + use)', hl && hl.length === 2 &&
        hl.some(h => h.kind === 3) && hl.every(h => h.range.start.line < lineOf(doc, '%cond (')), hl);

  // hover
  let hov = await s.req(P.HoverRequest.type, { textDocument: td(doc), position: posOf(doc, fusionDefLine, '%fusion') });
  let ht = hoverText(hov);
  for (const [what, re] of [['shape with layout', /f32\[4\]\{0\}/], ['element count', /elements: 4\b/],
                            ['byte size', /bytes: 16\b/], ['users', /Users: 3/], ['sharding', /replicated/],
                            ['op_name', /jit\(f\)\/mul/], ['source', /hlo_lsp_e2e_model\.py:12/],
                            ['operands', /%input/], ['markdown', () => hov.contents.kind === 'markdown']]) {
    check(`hover on instruction: ${what}`, typeof re === 'function' ? re() : re.test(ht), ht);
  }
  hov = await s.req(P.HoverRequest.type, { textDocument: td(doc), position: posOf(doc, sumLine, '%add_f32') });
  ht = hoverText(hov);
  check('hover on computation: signature', /add_f32 \(x: f32\[\], y: f32\[\]\) -> f32\[\]/.test(ht), ht);
  check('hover on computation: callers', /Callers \(1\)/.test(ht) && /%sum/.test(ht), ht);
  hov = await s.req(P.HoverRequest.type, { textDocument: td(doc), position: posOf(doc, sumLine, '%zero') });
  check('hover on operand: its definition', /constant/.test(hoverText(hov)) && /f32\[\]/.test(hoverText(hov)), hoverText(hov));
  hov = await s.req(P.HoverRequest.type, { textDocument: td(doc), position: { line: 1, character: 0 } });
  check('hover on blank line: null', hov === null, hov);

  // inlay hints
  const bodyStart = lineOf(doc, '%body ('), bodyEnd = lineOf(doc, '%cond (');
  const range = { start: { line: bodyStart, character: 0 }, end: { line: bodyEnd, character: 0 } };
  let hints = await s.req(P.InlayHintRequest.type, { textDocument: td(doc), range });
  const gteHint = hints && hints.find(h => h.position.line === lineOf(doc, '%i = s32[] get-tuple-element'));
  check('inlayHint: shape of a bare operand', gteHint && /\(s32\[\], f32\[4\]\)/.test(gteHint.label), hints);
  check('inlayHint: none where the text has the shape', hints && !hints.some(h => h.position.line === sumLine), hints);
  check('inlayHint: next operands', hints && hints.filter(h => h.position.line === nextLine).length === 2, hints);
  s.conn.sendNotification(P.DidChangeConfigurationNotification.type, { settings: { hlo: { inlayHints: false } } });
  hints = await s.req(P.InlayHintRequest.type, { textDocument: td(doc), range });
  check('inlayHint: disabled by configuration', Array.isArray(hints) && hints.length === 0, hints);
  s.conn.sendNotification(P.DidChangeConfigurationNotification.type, { settings: { hlo: { inlayHints: true } } });
  hints = await s.req(P.InlayHintRequest.type, { textDocument: td(doc), range });
  check('inlayHint: enabled again', hints && hints.length > 0, hints);

  // folding
  const folds = await s.req(P.FoldingRangeRequest.type, { textDocument: td(doc) });
  check('foldingRange: computations', folds && folds.some(f => f.startLine === bodyStart && f.endLine === bodyEnd - 2), folds);

  // semantic tokens
  const full = await s.req(P.SemanticTokensRequest.type, { textDocument: td(doc) });
  const legend = caps.semanticTokensProvider.legend.tokenTypes;
  const decoded = [];
  if (full && full.data) {
    let line = 0, ch = 0;
    for (let i = 0; i + 4 < full.data.length; i += 5) {
      line += full.data[i]; ch = full.data[i] ? full.data[i + 1] : ch + full.data[i + 1];
      decoded.push({ line, ch, text: doc.lines[line].substr(ch, full.data[i + 2]), type: legend[full.data[i + 3]] });
    }
  }
  check('semanticTokens/full: opcode as keyword', decoded.some(t => t.text === 'get-tuple-element' && t.type === 'keyword'), decoded.slice(0, 20));
  check('semanticTokens/full: shapes as type', decoded.some(t => t.text === 'f32[4]{0}' && t.type === 'type'), decoded.slice(0, 20));
  check('semanticTokens/full: attribute keys', decoded.some(t => t.text === 'to_apply' && t.type === 'property'));
  check('semanticTokens/full: computation refs', decoded.some(t => t.text === 'add_f32' && t.type === 'function'));
  const part = await s.req(P.SemanticTokensRangeRequest.type, { textDocument: td(doc), range });
  check('semanticTokens/range: a subset', part && part.data.length > 0 && part.data.length < full.data.length,
        [part && part.data.length, full && full.data.length]);

  // document links
  const links = await s.req(P.DocumentLinkRequest.type, { textDocument: td(doc) });
  check('documentLink: source_file with line', links && links.some(l => l.target === 'file:///tmp/hlo_lsp_e2e_model.py#L12' &&
        textAt(doc, l.range) === '/tmp/hlo_lsp_e2e_model.py'), links);

  // call hierarchy
  const items = await s.req(P.CallHierarchyPrepareRequest.type, { textDocument: td(doc), position: posOf(doc, sumLine, '%add_f32') });
  check('callHierarchy: prepare on a reference', items && items[0] && items[0].name === 'add_f32', items);
  const incoming = items && items[0] ? await s.req(P.CallHierarchyIncomingCallsRequest.type, { item: items[0] }) : null;
  check('callHierarchy: incoming from main', incoming && incoming.length === 1 && incoming[0].from.name === 'main', incoming);
  const mainItems = await s.req(P.CallHierarchyPrepareRequest.type, { textDocument: td(doc), position: posOf(doc, lineOf(doc, 'ENTRY %main'), '%main') });
  const outgoing = mainItems && mainItems[0] ? await s.req(P.CallHierarchyOutgoingCallsRequest.type, { item: mainItems[0] }) : null;
  check('callHierarchy: outgoing from main', outgoing && ['add_f32', 'fused_computation', 'body', 'cond']
        .every(n => outgoing.some(c => c.to.name === n)), outgoing && outgoing.map(c => c.to.name));

  // incremental edits: rename %zero's definition, then its use, and check.
  const zeroLine = lineOf(doc, '%zero =');
  s.conn.sendNotification(P.DidChangeTextDocumentNotification.type, {
    textDocument: { uri: doc.uri, version: 2 },
    contentChanges: [
      { range: { start: posOf(doc, zeroLine, '%zero'), end: { line: zeroLine, character: posOf(doc, zeroLine, '%zero').character + 4 } }, text: 'nought' },
    ],
  });
  const d2 = await s.waitDiagnostics(doc.uri, p => p.version === 2);
  check('didChange: undefined use reported after a rename', d2.diagnostics.some(d => /zero/.test(d.message)), d2.diagnostics);
  const sumChar = doc.lines[sumLine].indexOf('%zero') + 1;
  s.conn.sendNotification(P.DidChangeTextDocumentNotification.type, {
    textDocument: { uri: doc.uri, version: 3 },
    contentChanges: [{ range: { start: { line: sumLine, character: sumChar }, end: { line: sumLine, character: sumChar + 4 } }, text: 'nought' }],
  });
  const d3 = await s.waitDiagnostics(doc.uri, p => p.version === 3);
  check('didChange: clean again', d3.diagnostics.length === 0, d3.diagnostics);
  def = await s.req(P.DefinitionRequest.type, { textDocument: td(doc), position: { line: sumLine, character: sumChar + 1 } });
  check('didChange: definition follows the edit', def && def[0] && def[0].range.start.line === zeroLine, def);

  // a document that is not open is read from disk
  const diskUri = pathToFileURL(path.join(fixtures, 'unicode.hlo')).href;
  const diskSyms = await s.req(P.DocumentSymbolRequest.type, { textDocument: { uri: diskUri } });
  check('unopened document: served from disk', diskSyms && diskSyms[0] && diskSyms[0].name === 'unicode', diskSyms);
  let err = null;
  await s.req(P.HoverRequest.type, { textDocument: { uri: 'file:///nonexistent/x.hlo' }, position: { line: 0, character: 0 } })
    .catch(e => { err = e; });
  check('unknown document: an error, not a crash', err && err.code === -32602, err && err.message);
  err = null;
  await s.req(new P.RequestType('hlo/noSuchMethod'), {}).catch(e => { err = e; });
  check('unknown method: MethodNotFound', err && err.code === -32601, err && err.message);

  // close clears diagnostics
  s.conn.sendNotification(P.DidCloseTextDocumentNotification.type, { textDocument: { uri: errs.uri } });
  const cleared = await s.waitDiagnostics(errs.uri, p => p.diagnostics.length === 0);
  check('didClose: diagnostics cleared', !!cleared);

  const code = await s.stop();
  check('exit code 0 after shutdown', code === 0, code);
}

async function encodingTests() {
  for (const enc of ['utf-8', 'utf-16']) {
    const s = await Session.start({ encodings: enc === 'utf-8' ? ['utf-8', 'utf-16'] : ['utf-16'] });
    check(`${enc}: negotiated`, s.init.capabilities.positionEncoding === enc, s.init.capabilities.positionEncoding);
    const doc = s.open(path.join(fixtures, 'unicode.hlo'));
    const line = lineOf(doc, 'ROOT %r');
    const pos16 = posOf(doc, line, '%p', 'negate(');
    const character = enc === 'utf-8' ? Buffer.byteLength(doc.lines[line].slice(0, pos16.character)) : pos16.character;
    const def = await s.req(P.DefinitionRequest.type, { textDocument: td(doc), position: { line, character } });
    check(`${enc}: definition after non-ASCII text`, def && def[0] && def[0].range.start.line === lineOf(doc, '%p = '), def);
    const hl = await s.req(P.DocumentHighlightRequest.type, { textDocument: td(doc), position: { line, character } });
    const use = hl && hl.find(h => h.range.start.line === line);
    check(`${enc}: ranges in ${enc} units`, use && use.range.start.character === character &&
          use.range.end.character === character + 1, hl);
    await s.stop();
  }
}

function corpusFiles() {
  if (!fs.existsSync(corpusDir)) return [];
  const all = [];
  const walk = d => { for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p); else if (/\.(hlo|txt|pbtxt)$/.test(e.name)) all.push({ p, size: fs.statSync(p).size });
  } };
  walk(corpusDir);
  return all.sort((a, b) => b.size - a.size).slice(0, 4).map(f => f.p);
}

async function corpusTests() {
  const files = corpusFiles();
  if (!files.length) { console.log(`SKIP corpus: ${corpusDir} not found`); return; }
  const s = await Session.start({ encodings: ['utf-16'] });
  for (const file of files) {
    const name = path.basename(file);
    const doc = s.open(file);
    const t0 = Date.now();
    const syms = await s.req(P.DocumentSymbolRequest.type, { textDocument: td(doc) }, 60000);
    const outlineMs = Date.now() - t0;
    const comps = (syms || []).flatMap(m => m.kind === 2 ? m.children || [] : [m]);
    check(`corpus ${name}: documentSymbol (${comps.length} computations, ${outlineMs} ms)`, comps.length > 0, syms && syms.length);
    // An operand use: the last instruction with a named operand in the entry.
    const entry = comps.find(c => /ENTRY/.test(c.detail || '')) || comps[comps.length - 1];
    let found = null;
    for (let l = entry.range.end.line; l > entry.range.start.line && !found; --l) {
      const m = /^\s*(?:ROOT )?%?([\w.\-]+) = .*?\w\((?:[^()%]*?\s)?%?([A-Za-z_][\w.\-]*)[,)]/.exec(doc.lines[l]);
      if (m && !/^\d/.test(m[2])) {
        const at = doc.lines[l].indexOf(m[2], doc.lines[l].indexOf('('));
        if (at > 0) found = { line: l, character: at, name: m[2] };
      }
    }
    if (found) {
      const def = await s.req(P.DefinitionRequest.type, { textDocument: td(doc), position: found });
      check(`corpus ${name}: definition of ${found.name}`, def && def[0] && textAt(doc, def[0].range) === found.name, def);
      const hov = await s.req(P.HoverRequest.type, { textDocument: td(doc), position: found });
      check(`corpus ${name}: hover`, /Shape:/.test(hoverText(hov)), hoverText(hov).slice(0, 200));
      const refs = await s.req(P.ReferencesRequest.type, { textDocument: td(doc), position: found, context: { includeDeclaration: true } });
      check(`corpus ${name}: references`, refs && refs.length >= 2 && refs.every(r => textAt(doc, r.range) === found.name), refs && refs.length);
    } else {
      check(`corpus ${name}: found an operand to test`, false, entry.name);
    }
    const diags = await s.waitDiagnostics(doc.uri, () => true, 60000);
    check(`corpus ${name}: diagnostics published (${diags.diagnostics.length})`, Array.isArray(diags.diagnostics));
    const range = { start: { line: 0, character: 0 }, end: { line: Math.min(200, doc.lines.length - 1), character: 0 } };
    const toks = await s.req(P.SemanticTokensRangeRequest.type, { textDocument: td(doc), range });
    check(`corpus ${name}: semanticTokens/range`, toks && toks.data.length > 0 && toks.data.length % 5 === 0);
    const hints = await s.req(P.InlayHintRequest.type, { textDocument: td(doc), range });
    check(`corpus ${name}: inlayHint`, Array.isArray(hints));
    const folds = await s.req(P.FoldingRangeRequest.type, { textDocument: td(doc) });
    check(`corpus ${name}: foldingRange`, folds && folds.length >= comps.length);
    const items = await s.req(P.CallHierarchyPrepareRequest.type, { textDocument: td(doc), position: entry.selectionRange.start });
    const out = items && items[0] ? await s.req(P.CallHierarchyOutgoingCallsRequest.type, { item: items[0] }) : null;
    check(`corpus ${name}: callHierarchy`, Array.isArray(out), items);
    await s.req(P.DocumentLinkRequest.type, { textDocument: td(doc) }).then(
      l => check(`corpus ${name}: documentLink`, Array.isArray(l)), e => check(`corpus ${name}: documentLink`, false, e.message));
    // Cancellation through the client's token: a reply or RequestCancelled, never silence.
    const source = new rpc.CancellationTokenSource();
    const pending = s.conn.sendRequest(P.SemanticTokensRequest.type, { textDocument: td(doc) }, source.token);
    source.cancel();
    const outcome = await withTimeout(pending.then(() => 'result', e => e.code), 60000, 'cancelled request');
    check(`corpus ${name}: cancelled request answered`, outcome === 'result' || outcome === -32800, outcome);
  }
  const code = await s.stop();
  check('corpus session: exit code 0', code === 0, code);
}

// Every real proto of ../shared/corpus/xla-tests/proto through the editor
// path: hlo/protoToText, the code action, and hlo.convertToText on a copy
// (the corpus itself is never written).
async function corpusProtoTests() {
  const os = require('os');
  const protoDir = path.resolve(corpusDir, '../xla-tests/proto');
  if (!fs.existsSync(protoDir)) { console.log(`SKIP corpus protos: ${protoDir} not found`); return; }
  const protos = [];
  const walk = d => { for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p); else if (/\.(pb|pbtxt)(\.gz)?$/.test(e.name)) protos.push(p);
  } };
  walk(protoDir);
  const copies = fs.mkdtempSync(path.join(os.tmpdir(), 'hlo-lsp-e2e-protos-'));
  const s = await Session.start({ windowCaps: { showDocument: { support: true } }, onRequest: () => ({ success: true }) });
  const exec = (command, arg) => s.req(P.ExecuteCommandRequest.type, { command, arguments: [arg] }, 60000);
  const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  try {
    for (const file of protos) {
      const name = path.relative(protoDir, file);
      const uri = pathToFileURL(file).href;
      const text = await s.req(new P.RequestType('hlo/protoToText'), { uri }, 60000);
      check(`corpus proto ${name}: hlo/protoToText`, text && typeof text.text === 'string' && text.text.length > 0, text);
      const actions = await s.req(P.CodeActionRequest.type, { textDocument: { uri }, range, context: { diagnostics: [] } });
      check(`corpus proto ${name}: convert action offered`, actions && actions.some(a => a.command.command === 'hlo.convertToText'), actions);
      const copy = path.join(copies, name.replace(/[\/]/g, '_'));
      fs.copyFileSync(file, copy);
      const converted = await exec('hlo.convertToText', { uri: pathToFileURL(copy).href });
      const written = converted && converted.uri ? require('url').fileURLToPath(converted.uri) : '';
      check(`corpus proto ${name}: hlo.convertToText writes the text beside it`,
            written && path.dirname(written) === copies && fs.readFileSync(written, 'utf8') === text.text, converted);
      if (/^HloModule /m.test(text.text)) {
        const doc = s.open(written);
        const diags = await s.waitDiagnostics(doc.uri, () => true, 60000);
        const errors = diags.diagnostics.filter(d => d.severity === 1);
        check(`corpus proto ${name}: converted text has no errors`, errors.length === 0, errors.slice(0, 3));
      }
      if (/sharded_unoptimized_hlo_snapshot/.test(name)) {
        // Its two partitions hold halves of x = 0..7; the module returns 2x.
        const started = await exec('hlo.replay', { uri, platform: 'cpu' });
        const result = started && started.id !== undefined &&
          await s.req(new P.RequestType('hlo/replayResult'), { id: started.id }, 120000);
        check(`corpus proto ${name}: replay with its sharded arguments`, result &&
          /snapshot/.test(result.summary) && JSON.stringify(result).includes('0, 2, 4, 6, 8, 10, 12, 14'), result);
      }
    }
  } finally {
    const code = await s.stop();
    check('corpus proto session: exit code 0', code === 0, code);
    fs.rmSync(copies, { recursive: true, force: true });
  }
}

// Workspace features over a temporary dump folder: workspace/symbol with
// progress, module files, code lens, definition across dumps, commands.
async function workspaceTests() {
  const os = require('os');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hlo-lsp-e2e-ws-'));
  const before = path.join(dir, 'module_0007.wsmod.before_optimizations.txt');
  const after = path.join(dir, 'module_0007.wsmod.after_optimizations.txt');
  const entry = 'ENTRY %main (p: f32[2]) -> f32[2] {\n  %p = f32[2]{0} parameter(0)\n' +
                '  ROOT %r = f32[2]{0} call(%p), to_apply=%ws_helper\n}\n';
  fs.writeFileSync(before, 'HloModule wsmod\n\n%ws_helper (x: f32[2]) -> f32[2] {\n' +
    '  %x = f32[2]{0} parameter(0)\n  ROOT %y = f32[2]{0} multiply(%x, %x)\n}\n\n' + entry);
  fs.writeFileSync(after, 'HloModule wsmod\n\n' + entry);
  // The index's shard cache goes to the temp folder, not the user's cache.
  const savedCache = process.env.XDG_CACHE_HOME;
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hlo-lsp-e2e-cache-'));
  process.env.XDG_CACHE_HOME = cacheDir;
  const answers = { 'window/showMessageRequest': { title: 'Cancel' }, 'window/showDocument': { success: true } };
  const s = await Session.start({
    rootUri: pathToFileURL(dir).href,
    workspaceCaps: { didChangeWatchedFiles: { dynamicRegistration: true }, executeCommand: {} },
    windowCaps: { workDoneProgress: true, showDocument: { support: true } },
    onRequest: method => (method in answers ? answers[method] : null),
  });
  try {
    const caps = s.init.capabilities;
    check('workspace: executeCommand lists the contract commands',
      JSON.stringify(caps.executeCommandProvider && caps.executeCommandProvider.commands) ===
      JSON.stringify(['hlo.convertToText', 'hlo.exportProto', 'hlo.replay', 'hlo.compare', 'hlo.moduleFiles', 'hlo.search',
        'hlo.diff', 'hlo.previousPass', 'hlo.nextPass', 'hlo.graph', 'hlo.memory', 'hlo.bundle', 'hlo.bisect']),
      caps.executeCommandProvider);
    check('workspace: symbol, codeAction and codeLens providers',
      caps.workspaceSymbolProvider && caps.codeActionProvider && caps.codeLensProvider, caps);
    let syms = [];
    for (let i = 0; i < 100 && !syms.length; i++) {
      syms = await s.req(P.WorkspaceSymbolRequest.type, { query: 'ws_helper' });
      if (!syms.length) await new Promise(r => setTimeout(r, 100));
    }
    const helper = syms.find(x => x.name === 'ws_helper');
    check('workspace/symbol: computation as Function in its module',
      helper && helper.kind === 12 && helper.containerName === 'wsmod' &&
      helper.location.uri === pathToFileURL(before).href && helper.location.range.start.line === 2, syms);
    check('workspace: watcher registered', s.serverRequests.some(r => r.method === 'client/registerCapability' &&
      r.params.registrations[0].method === 'workspace/didChangeWatchedFiles'), s.serverRequests.map(r => r.method));
    check('workspace: work-done progress created', s.serverRequests.some(r => r.method === 'window/workDoneProgress/create'));
    for (let i = 0; i < 50 && !s.progress.some(p => p.value.kind === 'end'); i++) await new Promise(r => setTimeout(r, 100));
    check('workspace: $/progress begin and end', s.progress.some(p => p.value.kind === 'begin') &&
      s.progress.some(p => p.value.kind === 'end'), s.progress);

    const afterUri = pathToFileURL(after).href;
    const files = await s.req(new P.RequestType('hlo/moduleFiles'), { uri: afterUri });
    check('hlo/moduleFiles: both stages in order', files && files.length === 2 &&
      files[0].stage === 'before_optimizations' && files[1].stage === 'after_optimizations' &&
      files[1].uri === afterUri, files);
    const doc = s.open(after);
    const lens = await s.req(P.CodeLensRequest.type, { textDocument: td(doc) });
    check('codeLens: other stages on the HloModule line', lens && lens.length === 3 && lens[0].range.start.line === 0 &&
      lens[0].command.command === 'hlo.moduleFiles' && /before_optimizations/.test(lens[0].command.title), lens);
    check('codeLens: previous pass and diff with it, no next at the last stage',
      lens && lens[1].command.command === 'hlo.previousPass' && lens[2].command.command === 'hlo.diff' &&
      lens[2].command.arguments[0].uri === pathToFileURL(before).href &&
      lens[2].command.arguments[0].otherUri === afterUri, lens);
    const back = await s.req(P.ExecuteCommandRequest.type, { command: 'hlo.previousPass', arguments: [{ uri: afterUri }] });
    check('hlo.previousPass: the stage before', back && back.uri === pathToFileURL(before).href, back);
    const diff = await s.req(P.ExecuteCommandRequest.type, lens[2].command);
    check('hlo.diff: through the lens, both sides named', diff && diff.a === pathToFileURL(before).href &&
      diff.b === afterUri && Array.isArray(diff.changed), diff);
    const def = await s.req(P.DefinitionRequest.type, { textDocument: td(doc), position: posOf(doc, lineOf(doc, 'to_apply'), 'ws_helper') });
    check('definition: computation from another dump of the module', def && def.length === 1 &&
      def[0].uri === pathToFileURL(before).href && def[0].range.start.line === 2, def);
    const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    const actions = await s.req(P.CodeActionRequest.type, { textDocument: td(doc), range, context: { diagnostics: [] } });
    check('codeAction: export, replay, bisect and bundle on a dump', actions &&
      actions.map(a => a.command.command).join() === 'hlo.exportProto,hlo.replay,hlo.bisect,hlo.bundle', actions);

    const exec = (command, arg, ms) => s.req(P.ExecuteCommandRequest.type, { command, arguments: [arg] }, ms);
    const beforeUri = pathToFileURL(before).href;
    const exported = await exec('hlo.exportProto', { uri: beforeUri });
    const pb = before.replace(/\.txt$/, '.pb');
    check('hlo.exportProto: writes <name>.pb', exported && exported.uri === pathToFileURL(pb).href && fs.statSync(pb).size > 0, exported);
    const text = await s.req(new P.RequestType('hlo/protoToText'), { uri: pathToFileURL(pb).href });
    check('hlo/protoToText: module text', text && text.truncated === false && /HloModule wsmod/.test(text.text) && /ws_helper/.test(text.text), text);
    const pbActions = await s.req(P.CodeActionRequest.type, { textDocument: { uri: pathToFileURL(pb).href }, range, context: { diagnostics: [] } });
    check('codeAction: convert and bundle on a dump .pb', pbActions &&
      pbActions.map(a => a.command.command).join() === 'hlo.convertToText,hlo.bundle', pbActions);
    const cancelled = await exec('hlo.convertToText', { uri: pathToFileURL(pb).href });
    check('hlo.convertToText: asks before overwriting, Cancel keeps the file', cancelled && cancelled.cancelled === true &&
      s.serverRequests.some(r => r.method === 'window/showMessageRequest') && /call\(%p\)/.test(fs.readFileSync(before, 'utf8')), cancelled);
    answers['window/showMessageRequest'] = { title: 'Overwrite' };
    const converted = await exec('hlo.convertToText', { uri: pathToFileURL(pb).href });
    check('hlo.convertToText: Overwrite writes and shows it', converted && converted.uri === beforeUri &&
      s.serverRequests.some(r => r.method === 'window/showDocument' && r.params.uri === beforeUri), converted);

    const search = await exec('hlo.search', { query: 'kind:computation ws_helper' });
    check('hlo.search: search --json objects', Array.isArray(search) && search[0] && search[0].name === 'ws_helper' &&
      search[0].kind === 'computation' && search[0].path === before && 'opcode' in search[0], search);
    const mf = await exec('hlo.moduleFiles', { uri: afterUri });
    // The proto converted above has joined the module's files since.
    check('hlo.moduleFiles: same as the request, plus the new proto',
      JSON.stringify(mf.filter(f => f.kind !== 'proto')) === JSON.stringify(files) &&
      mf.some(f => f.kind === 'proto'), mf);

    const gpu = await exec('hlo.replay', { uri: pathToFileURL(before).href, platform: 'gpu' }).then(() => null, e => e.message);
    check('hlo.replay gpu: an error', /^no GPU: /.test(gpu || ''), gpu);
    const started = await exec('hlo.replay', { uri: pathToFileURL(before).href, platform: 'cpu' });
    check('hlo.replay: returns an id', started && started.id !== undefined, started);
    const result = started && await s.req(new P.RequestType('hlo/replayResult'), { id: started.id }, 120000);
    check('hlo/replayResult: summary, outputs, stats', result && /replayed wsmod on cpu/.test(result.summary) &&
      result.outputs.length === 1 && Array.isArray(result.stats) && result.stats.length > 0, result);
    const cmp = await exec('hlo.compare', { uri: pathToFileURL(before).href, platforms: ['cpu', 'gpu'] }).then(() => null, e => e.message);
    check('hlo.compare without snapshot: says what is missing', /snapshot/.test(cmp || ''), cmp);
    check('initialize: experimental.gpu says whether a GPU answered', caps.experimental && caps.experimental.gpu &&
      caps.experimental.gpu.available === false && caps.experimental.gpu.device === null, caps.experimental);
    check('hlo/replayResult: each output with its statistics, the NaN origin null', result && result.uri === beforeUri &&
      result.outputs[0].elements === 2 && 'min' in result.outputs[0] && result.outputs[0].nan === 0 &&
      result.firstNonFinite === null, result);
    // The results view's NaN origin: the first instruction that made a NaN, at its line.
    const nanFile = path.join(dir, 'nan.hlo');
    fs.writeFileSync(nanFile, 'HloModule nan\n\nENTRY %e () -> f32[2] {\n  %z = f32[2]{0} constant({0, 0})\n' +
      '  ROOT %q = f32[2]{0} divide(%z, %z)\n}\n');
    const nanRun = await exec('hlo.replay', { uri: pathToFileURL(nanFile).href, platform: 'cpu', fakeData: true, timeout: 30 });
    const nan = nanRun && await s.req(new P.RequestType('hlo/replayResult'), { id: nanRun.id }, 60000);
    check('hlo/replayResult: firstNonFinite names the instruction and its line', nan && nan.firstNonFinite &&
      nan.firstNonFinite.name === 'q' && nan.firstNonFinite.line === 5 && nan.outputs[0].nan === 2, nan);
    // Cancelling hlo/replayResult stops the run ($/cancelRequest through vscode-jsonrpc).
    const endless = path.join(dir, 'endless.hlo');
    fs.writeFileSync(endless, 'HloModule endless\n\n%c (p: s32[]) -> pred[] {\n  %p = s32[] parameter(0)\n' +
      '  ROOT %t = pred[] constant(true)\n}\n\n%b (p: s32[]) -> s32[] {\n  %p = s32[] parameter(0)\n' +
      '  %one = s32[] constant(1)\n  ROOT %n = s32[] add(%p, %one)\n}\n\nENTRY %e () -> s32[] {\n' +
      '  %z = s32[] constant(0)\n  ROOT %w = s32[] while(%z), condition=%c, body=%b\n}\n');
    const run = await exec('hlo.replay', { uri: pathToFileURL(endless).href, platform: 'cpu' });
    const source = new rpc.CancellationTokenSource();
    const waiting = s.conn.sendRequest(new P.RequestType('hlo/replayResult'), { id: run.id }, source.token);
    setTimeout(() => source.cancel(), 300);
    const cancelErr = await waiting.then(() => null, e => e);
    const report = await s.req(new P.RequestType('hlo/replayResult'), { id: run.id }, 10000);
    check('hlo/replayResult cancelled: the run is killed and says "cancelled"', cancelErr &&
      report && report.outcome === 'cancelled' && /cancelled/.test(report.summary), { cancelErr: String(cancelErr), report });
    // hlo.bisect over generated pass dumps where pass 2 doubles instead of
    // negating: it names the pass, both dumps and the hlo.diff between them.
    const seq = fs.mkdtempSync(path.join(os.tmpdir(), 'hlo-lsp-e2e-bisect-'));
    const mod = root => 'HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n' +
      '  zb = f32[4] broadcast(z), dimensions={}\n  ROOT r = ' + root + '\n}\n';
    const passFile = k => path.join(seq, `module_0007.m.000${k}.opt.after_pass${k}.before_pass${k + 1}.txt`);
    fs.writeFileSync(path.join(seq, 'module_0007.m.before_optimizations.txt'), mod('f32[4] negate(p)'));
    for (let k = 1; k <= 3; k++) fs.writeFileSync(passFile(k), mod(k >= 2 ? 'f32[4] add(p, p)' : 'f32[4] subtract(zb, p)'));
    const bisect = await exec('hlo.bisect', { uri: pathToFileURL(passFile(3)).href, timeout: 60 }, 120000);
    check('hlo.bisect: the known pass, both dumps, the first differing instruction and the diff', bisect &&
      bisect.outcome === 'changed' && bisect.step === 2 && bisect.pass === 'pass2' &&
      bisect.beforeUri === pathToFileURL(passFile(1)).href && bisect.afterUri === pathToFileURL(passFile(2)).href &&
      bisect.instruction && bisect.instruction.name === 'r' && bisect.instruction.line === 6 &&
      bisect.diff && bisect.diff.command === 'hlo.diff' && bisect.diff.arguments[0].otherUri === bisect.afterUri, bisect);
    const bisectDiff = bisect && await s.req(P.ExecuteCommandRequest.type, bisect.diff);
    check('hlo.bisect: its diff command runs hlo.diff', bisectDiff && bisectDiff.b === bisect.afterUri, bisectDiff);
    fs.rmSync(seq, { recursive: true, force: true });
    // The text view VS Code opens for a .pb: its code actions act on the .pb.
    const pbUri = pathToFileURL(pb).href;
    const viewUri = `hlo-proto:${pb.replace(/\.pb$/, '.txt')}?${encodeURIComponent(pbUri)}`;
    const viewActions = await s.req(P.CodeActionRequest.type, { textDocument: { uri: viewUri }, range, context: { diagnostics: [] } });
    check('codeAction in a proto text view: commands name the proto file', viewActions && viewActions.length > 0 &&
      viewActions.every(a => a.command.arguments[0].uri === pbUri), viewActions);
  } finally {
    const code = await s.stop();
    check('workspace session: exit code 0', code === 0, code);
    if (savedCache === undefined) delete process.env.XDG_CACHE_HOME; else process.env.XDG_CACHE_HOME = savedCache;
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(cacheDir, { recursive: true, force: true });
  }
}

// workspace/didChangeWorkspaceFolders adds and drops folders from the index;
// workspace/symbol columns count UTF-16 code units after non-ASCII text.
async function workspaceFolderTests() {
  const os = require('os');
  const a = fs.mkdtempSync(path.join(os.tmpdir(), 'hlo-lsp-e2e-fa-'));
  const b = fs.mkdtempSync(path.join(os.tmpdir(), 'hlo-lsp-e2e-fb-'));
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hlo-lsp-e2e-cache-'));
  const savedCache = process.env.XDG_CACHE_HOME;
  process.env.XDG_CACHE_HOME = cacheDir;
  fs.writeFileSync(path.join(a, 'module_0001.fa.before_optimizations.txt'),
    'HloModule fa\n\nENTRY %main (p: f32[2]) -> f32[2] {\n  ROOT %only_in_a = f32[2]{0} parameter(0)\n}\n');
  // A non-ASCII comment before the name: byte column 12, UTF-16 column 9.
  fs.writeFileSync(path.join(b, 'module_0002.fb.before_optimizations.txt'),
    'HloModule fb\n\nENTRY %main (p: f32[2]) -> f32[2] {\n/*\u00e9\u00e9\u00e9*/ %only_in_b = f32[2]{0} parameter(0)\n' +
    '  ROOT %r = f32[2]{0} negate(%only_in_b)\n}\n');
  const s = await Session.start({ rootUri: pathToFileURL(a).href });
  const find = async (q, want) => {
    let syms = [];
    for (let i = 0; i < 100; i++) {
      syms = await s.req(P.WorkspaceSymbolRequest.type, { query: q });
      if (syms.some(x => x.name === q) === want) break;
      await new Promise(r => setTimeout(r, 100));
    }
    return syms.filter(x => x.name === q);
  };
  try {
    const caps = s.init.capabilities;
    check('workspace folders: change notifications advertised', caps.workspace && caps.workspace.workspaceFolders &&
      caps.workspace.workspaceFolders.changeNotifications === true, caps.workspace);
    check('workspace folders: the first folder is indexed', (await find('only_in_a', true)).length === 1);
    s.conn.sendNotification('workspace/didChangeWorkspaceFolders',
      { event: { added: [{ uri: pathToFileURL(b).href, name: 'b' }], removed: [] } });
    const inB = await find('only_in_b', true);
    check('workspace folders: an added folder is indexed', inB.length === 1, inB);
    check('workspace/symbol: UTF-16 column after non-ASCII text', inB.length === 1 &&
      inB[0].location.range.start.character === 9 && inB[0].location.range.end.character === 18, inB);
    s.conn.sendNotification('workspace/didChangeWorkspaceFolders',
      { event: { added: [], removed: [{ uri: pathToFileURL(a).href, name: 'a' }] } });
    check('workspace folders: a removed folder is dropped', (await find('only_in_a', false)).length === 0);
    check('workspace folders: the other folder stays', (await find('only_in_b', true)).length === 1);
  } finally {
    const code = await s.stop();
    check('workspace folders session: exit code 0', code === 0, code);
    if (savedCache === undefined) delete process.env.XDG_CACHE_HOME; else process.env.XDG_CACHE_HOME = savedCache;
    for (const d of [a, b, cacheDir]) fs.rmSync(d, { recursive: true, force: true });
  }
}

// LSP 3.17: a client that resolves location.range gets `location: {uri}`
// and the range from workspaceSymbol/resolve (UTF-16 after non-ASCII too).
async function workspaceSymbolResolveTests() {
  const os = require('os');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hlo-lsp-e2e-resolve-'));
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hlo-lsp-e2e-cache-'));
  const savedCache = process.env.XDG_CACHE_HOME;
  process.env.XDG_CACHE_HOME = cacheDir;
  const file = path.join(dir, 'module_0003.fr.before_optimizations.txt');
  fs.writeFileSync(file, 'HloModule fr\n\nENTRY %main (p: f32[2]) -> f32[2] {\n' +
    '/*\u00e9\u00e9\u00e9*/ %resolve_me = f32[2]{0} parameter(0)\n  ROOT %r = f32[2]{0} negate(%resolve_me)\n}\n');
  const s = await Session.start({
    rootUri: pathToFileURL(dir).href,
    workspaceCaps: { symbol: { resolveSupport: { properties: ['location.range'] } } },
  });
  try {
    check('workspace/symbol: resolveProvider advertised',
      s.init.capabilities.workspaceSymbolProvider.resolveProvider === true, s.init.capabilities.workspaceSymbolProvider);
    let syms = [];
    for (let i = 0; i < 100 && !syms.length; i++) {
      syms = (await s.req(P.WorkspaceSymbolRequest.type, { query: 'resolve_me' })).filter(x => x.name === 'resolve_me');
      if (!syms.length) await new Promise(r => setTimeout(r, 100));
    }
    const sym = syms[0];
    check('workspace/symbol: location {uri} only when the client resolves ranges',
      sym && sym.location.uri === pathToFileURL(file).href && sym.location.range === undefined && sym.data, syms);
    const resolved = sym && await s.req(new P.RequestType('workspaceSymbol/resolve'), sym);
    check('workspaceSymbol/resolve: the range, UTF-16 after non-ASCII text', resolved &&
      resolved.name === 'resolve_me' && resolved.location.uri === sym.location.uri &&
      resolved.location.range.start.line === 3 && resolved.location.range.start.character === 9 &&
      resolved.location.range.end.character === 19 && resolved.data === undefined, resolved);
  } finally {
    const code = await s.stop();
    check('workspace symbol resolve session: exit code 0', code === 0, code);
    if (savedCache === undefined) delete process.env.XDG_CACHE_HOME; else process.env.XDG_CACHE_HOME = savedCache;
    for (const d of [dir, cacheDir]) fs.rmSync(d, { recursive: true, force: true });
  }
}

async function main() {
  if (!server || !fs.existsSync(server)) { console.error(`usage: lsp-e2e.js <hlo-lsp binary>`); process.exit(2); }
  for (const t of [fixtureTests, encodingTests, workspaceTests, corpusTests, corpusProtoTests, workspaceFolderTests,
                   workspaceSymbolResolveTests]) {
    try { await t(); } catch (e) { check(`${t.name} ran to the end`, false, String(e && e.stack || e)); }
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
main();
