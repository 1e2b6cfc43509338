#!/usr/bin/env node
// LSP latency benchmark on a large module (see make-large-module.sh).
// Prints numbers; asserts nothing about them.
//   node bench/lsp_bench.js path/to/hlo-lsp big.hlo [samples] [--jsonrpc] [--vs OTHER]
// Measures: didOpen -> first documentSymbol reply (text sent over the pipe),
// documentSymbol of an unopened file (the server reads it from disk), and
// p50/p99 of hover and definition on operand uses spread over the file.
// Each request is sent after the previous answer: latency, not throughput.
// --jsonrpc: through vscode-jsonrpc (VS Code's client library; needs
// tests/e2e's node packages) instead of the minimal client below. Node's
// own GC pauses fall inside the client-side times: they are reported, with
// the p99 of the samples no pause overlapped. LSP_BENCH_SAMPLES=FILE
// (minimal client only): one line per hover/definition, "method id send_ns
// receive_ns" (CLOCK_MONOTONIC), for trace_summary.js to split round trips.

'use strict';
const cp = require('child_process');
const fs = require('fs');
const path = require('path');
const { performance, PerformanceObserver } = require('perf_hooks');
const { pathToFileURL } = require('url');

const args = process.argv.slice(2);
const jsonrpc = args.includes('--jsonrpc');
// --vs OTHER: a second server build answers the same hover and definition
// requests, one request to each in turn: an A/B under the same load.
const vsAt = args.indexOf('--vs');
const vs = vsAt >= 0 ? args.splice(vsAt, 2)[1] : null;
const [server, file, samplesArg] = args.filter(a => a !== '--jsonrpc');
if (!server || !file) { console.error('usage: lsp_bench.js <hlo-lsp> <module.hlo> [samples] [--jsonrpc]'); process.exit(2); }
const samples = Number(samplesArg || 1000);

// A full GC before each latency loop: the 11 MB outlines parsed before
// left Node's heap full, and its collection (main thread pauses, and
// concurrent marking on the machine's cores) landed in the hover loop's
// samples, 40 ms each.
require('v8').setFlagsFromString('--expose-gc');
const collectGarbage = require('vm').runInNewContext('gc');

// Node's GC pauses as [start, end] in performance.now() ms.
const gcPauses = [];
new PerformanceObserver(list => {
  for (const e of list.getEntries()) gcPauses.push([e.startTime, e.startTime + e.duration]);
}).observe({ entryTypes: ['gc'] });

// The same requests through vscode-jsonrpc's connection.
class JsonRpcClient {
  constructor(bin) {
    const rpc = require(require.resolve('vscode-jsonrpc/node', {
      paths: [path.join(__dirname, '..', 'tests', 'e2e')],
    }));
    this.child = cp.spawn(bin, [], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.conn = rpc.createMessageConnection(
        new rpc.StreamMessageReader(this.child.stdout),
        new rpc.StreamMessageWriter(this.child.stdin));
    this.conn.listen();
  }
  async request(method, params) {
    const t0 = process.hrtime.bigint();
    const result = await this.conn.sendRequest(method, params);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const bytes = method === 'textDocument/documentSymbol' ? Buffer.byteLength(JSON.stringify(result)) : 0;
    return { msg: { result }, ms, bytes };
  }
  notify(method, params) { this.conn.sendNotification(method, params); }
  cpuMs() { return Client.prototype.cpuMs.call(this); }
  peakRssMb() { return Client.prototype.peakRssMb.call(this); }
  async close() {
    await this.request('shutdown', null);
    this.notify('exit', null);
    await new Promise(r => this.child.on('exit', r));
    this.conn.dispose();
  }
}

class Client {
  constructor(bin = server) {
    if (jsonrpc) return new JsonRpcClient(bin);
    this.child = cp.spawn(bin, [], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.pending = new Map();
    this.nextId = 1;
    this.buf = Buffer.alloc(0);
    this.chunks = [];   // arrived after buf, joined only when a body is complete
    this.chunkBytes = 0;
    this.need = 0;
    this.child.stdout.on('data', d => this.onData(d));
  }
  onData(d) {
    this.chunks.push(d);
    this.chunkBytes += d.length;
    if (this.buf.length + this.chunkBytes < this.need) return;
    this.buf = Buffer.concat([this.buf, ...this.chunks]);
    this.chunks = [];
    this.chunkBytes = 0;
    while (true) {
      const sep = this.buf.indexOf('\r\n\r\n');
      if (sep < 0) return;
      const m = /Content-Length:\s*(\d+)/i.exec(this.buf.slice(0, sep).toString());
      const len = Number(m[1]);
      this.need = sep + 4 + len;
      if (this.buf.length < sep + 4 + len) return;
      this.need = 0;
      const body = this.buf.slice(sep + 4, sep + 4 + len);
      this.buf = this.buf.slice(sep + 4 + len);
      const msg = JSON.parse(body.toString());
      if (msg.id !== undefined && !msg.method && this.pending.has(msg.id)) {
        const { resolve, t0 } = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        const t1 = process.hrtime.bigint();
        resolve({ msg, ms: Number(t1 - t0) / 1e6, bytes: len, id: msg.id, t0, t1 });
      }
    }
  }
  send(obj) {
    const body = Buffer.from(JSON.stringify(obj));
    // One write: the server is not woken for the header alone.
    this.child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  }
  request(method, params) {
    const id = this.nextId++;
    return new Promise(resolve => {
      this.pending.set(id, { resolve, t0: process.hrtime.bigint() });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }
  notify(method, params) { this.send({ jsonrpc: '2.0', method, params }); }
  // Server CPU time (user + system) so far, in ms: contention-free numbers
  // next to the wall-clock ones.
  cpuMs() {
    try {
      const f = fs.readFileSync(`/proc/${this.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(f[11]) + Number(f[12])) * 10;  // clock ticks of 10 ms
    } catch { return NaN; }
  }
  peakRssMb() {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${this.child.pid}/status`, 'utf8'));
      return m ? (Number(m[1]) / 1024).toFixed(0) : '?';
    } catch { return '?'; }
  }
  async close() {
    await this.request('shutdown', null);
    this.notify('exit', null);
    await new Promise(r => this.child.on('exit', r));
  }
}

function pct(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p / 100 * s.length))];
}

// The A/B of --vs: `c` and a client of the other build, in turn.
async function interleaved(c, uri, text, positions) {
  const other = new Client(vs);
  await other.request('initialize', { processId: process.pid, capabilities: {} });
  other.notify('initialized', {});
  other.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'hlo', version: 1, text } });
  await other.request('textDocument/documentSymbol', { textDocument: { uri } });
  for (const method of ['textDocument/hover', 'textDocument/definition']) {
    const a = [], b = [];
    collectGarbage();
    for (let i = 0; i < positions.length; i++) {
      const params = { textDocument: { uri }, position: positions[i] };
      const turns = i % 2 ? [[c, a], [other, b]] : [[other, b], [c, a]];
      for (const [client, times] of turns) times.push((await client.request(method, params)).ms);
    }
    const fmt = t => `p50 ${pct(t, 50).toFixed(2)} p99 ${pct(t, 99).toFixed(2)} max ${Math.max(...t).toFixed(2)}`;
    console.log(`${method} interleaved (ms): ${server} ${fmt(a)} | ${vs} ${fmt(b)}`);
  }
  await other.close();
}

async function main() {
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const uri = pathToFileURL(path.resolve(file)).href;
  console.log(`module: ${file}, ${(text.length / 1e6).toFixed(1)} MB, ${lines.length} lines`);

  // 1. didOpen with the text, then the outline.
  let c = new Client();
  await c.request('initialize', { processId: process.pid, capabilities: {} });
  c.notify('initialized', {});
  let cpu0 = c.cpuMs();
  let t0 = process.hrtime.bigint();
  c.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'hlo', version: 1, text } });
  let r = await c.request('textDocument/documentSymbol', { textDocument: { uri } });
  const openToOutline = Number(process.hrtime.bigint() - t0) / 1e6;
  const mods = r.msg.result || [];
  const comps = mods.reduce((n, m) => n + (m.children ? m.children.length : 0), 0);
  console.log(`didOpen -> first documentSymbol: ${openToOutline.toFixed(0)} ms ` +
              `(${comps} computations, reply ${(r.bytes / 1e6).toFixed(1)} MB; server CPU ${c.cpuMs() - cpu0} ms)`);
  cpu0 = c.cpuMs();
  r = await c.request('textDocument/documentSymbol', { textDocument: { uri } });
  console.log(`documentSymbol again (parsed): ${r.ms.toFixed(0)} ms (server CPU ${c.cpuMs() - cpu0} ms)`);

  // 2. p50/p99 of hover and definition on operand uses all over the file.
  const positions = [];
  // Operand uses, with or without the % sigil (newer dumps print bare names)
  // and an inline shape (`add(f32[] %x, f32[] %y)`).
  const re = /[(,] ?(?:[a-z][a-z0-9]*\[[\d,]*\](?:\{[^}]*\})? )?%?([A-Za-z_][\w.\-]*)(?=[,)])/g;
  const stride = Math.max(1, Math.floor(lines.length / (samples * 2)));
  for (let l = 0; l < lines.length && positions.length < samples; l += stride) {
    re.lastIndex = lines[l].indexOf('(');
    if (re.lastIndex < 0) continue;
    const m = re.exec(lines[l]);
    if (m) positions.push({ line: l, character: m.index + m[0].length - m[1].length });
  }
  if (!positions.length) {
    console.error(`no operand uses found in ${file}`);
    process.exit(2);
  }
  if (vs) await interleaved(c, uri, text, positions);
  for (const method of ['textDocument/hover', 'textDocument/definition']) {
    const times = [];
    const slowest = [];  // [ms, position]: where the p99 comes from
    const windows = [];  // [start, end] of each sample in performance.now()
    collectGarbage();
    const loopStart = performance.now();
    let nonEmpty = 0;
    for (const position of positions) {
      const w0 = performance.now();
      const res = await c.request(method, { textDocument: { uri }, position });
      windows.push([w0, performance.now()]);
      if (process.env.LSP_BENCH_SAMPLES && res.id !== undefined) {
        fs.appendFileSync(process.env.LSP_BENCH_SAMPLES, `${method} ${res.id} ${res.t0} ${res.t1}\n`);
      }
      times.push(res.ms);
      slowest.push([res.ms, position]);
      const v = res.msg.result;
      if (v && (!Array.isArray(v) || v.length)) nonEmpty++;
    }
    console.log(`${method}: n=${times.length} p50 ${pct(times, 50).toFixed(2)} ms, ` +
                `p99 ${pct(times, 99).toFixed(2)} ms, max ${Math.max(...times).toFixed(2)} ms, answered ${nonEmpty}`);
    // Node's GC pauses since the loop began (the observer reports them a
    // tick late: wait one) and the samples they fell in.
    await new Promise(r => setImmediate(r));
    const pauses = gcPauses.filter(([, e]) => e > loopStart);
    const hit = windows.map(([a, b]) => pauses.some(([s, e]) => s < b && e > a));
    const clean = times.filter((_, i) => !hit[i]);
    const pauseMs = pauses.map(([s, e]) => e - s);
    console.log(`  node GC: ${pauses.length} pauses, total ${pauseMs.reduce((a, b) => a + b, 0).toFixed(1)} ms, ` +
                `max ${(pauseMs.length ? Math.max(...pauseMs) : 0).toFixed(1)} ms, in ${hit.filter(Boolean).length} samples; ` +
                `p99 without those ${clean.length ? pct(clean, 99).toFixed(2) : '-'} ms`);
    slowest.sort((a, b) => b[0] - a[0]);
    console.log('  slowest: ' + slowest.slice(0, 5).map(([ms, p]) =>
      `${ms.toFixed(1)} ms at ${p.line + 1}:${p.character + 1}`).join(', '));
  }
  const tok = [];
  for (let i = 0; i < 50; i++) {
    const start = Math.floor(i * lines.length / 50);
    const res = await c.request('textDocument/semanticTokens/range',
      { textDocument: { uri }, range: { start: { line: start, character: 0 }, end: { line: start + 100, character: 0 } } });
    tok.push(res.ms);
  }
  console.log(`semanticTokens/range (100 lines): p50 ${pct(tok, 50).toFixed(2)} ms, p99 ${pct(tok, 99).toFixed(2)} ms`);
  console.log(`server peak RSS: ${c.peakRssMb()} MB`);
  await c.close();

  // 3. Not opened (VS Code does not hand over files > 50 MB): read from disk.
  c = new Client();
  await c.request('initialize', { processId: process.pid, capabilities: {} });
  c.notify('initialized', {});
  cpu0 = c.cpuMs();
  r = await c.request('textDocument/documentSymbol', { textDocument: { uri } });
  console.log(`documentSymbol of an unopened file (disk read + parse): ${r.ms.toFixed(0)} ms ` +
              `(server CPU ${c.cpuMs() - cpu0} ms)`);
  console.log(`load average while measuring: ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  await c.close();
}
main().catch(e => { console.error(e); process.exit(1); });
