#!/usr/bin/env node
// Editor diagnostics latency on a large module with and without the
// verifier: the time from an edit (didChange) to the publishDiagnostics of
// that version, with the setting hlo.verify "auto" and "off" (the yardstick)
// in the same run. Prints numbers; asserts nothing about them.
//   node bench/verify_latency.js path/to/hlo-lsp big.hlo [edits]
// Output: one line per setting with the median and max edit->diagnostics ms,
// and the server's CPU ms over the edits; then "ratio X" (auto / off medians).
'use strict';
const cp = require('child_process');
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');

const [server, file, editsArg] = process.argv.slice(2);
if (!server || !file) {
  console.error('usage: verify_latency.js <hlo-lsp> <module.hlo> [edits]');
  process.exit(2);
}
const edits = Number(editsArg || 5);

class Client {
  constructor() {
    this.child = cp.spawn(server, [], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.buf = Buffer.alloc(0);
    this.waiters = [];  // {pred, resolve}
    this.child.stdout.on('data', d => this.onData(d));
  }
  onData(d) {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    while (true) {
      const sep = this.buf.indexOf('\r\n\r\n');
      if (sep < 0) return;
      const len = Number(/Content-Length:\s*(\d+)/i.exec(this.buf.slice(0, sep).toString())[1]);
      if (this.buf.length < sep + 4 + len) return;
      const msg = JSON.parse(this.buf.slice(sep + 4, sep + 4 + len).toString());
      this.buf = this.buf.slice(sep + 4 + len);
      this.waiters = this.waiters.filter(w => !(w.pred(msg) && (w.resolve(msg), true)));
    }
  }
  wait(pred) { return new Promise(resolve => this.waiters.push({ pred, resolve })); }
  send(obj) {
    const body = Buffer.from(JSON.stringify(obj));
    this.child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.child.stdin.write(body);
  }
  request(id, method, params) {
    const reply = this.wait(m => m.id === id && !m.method);
    this.send({ jsonrpc: '2.0', id, method, params });
    return reply;
  }
  notify(method, params) { this.send({ jsonrpc: '2.0', method, params }); }
  cpuMs() {
    const f = fs.readFileSync(`/proc/${this.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  }
}

const published = (uri, version) => m =>
  m.method === 'textDocument/publishDiagnostics' && m.params.uri === uri &&
  m.params.version === version;

async function run(text, uri, verify) {
  const c = new Client();
  await c.request(1, 'initialize', { processId: process.pid, capabilities: {},
                                     initializationOptions: { verify } });
  c.notify('initialized', {});
  const opened = c.wait(published(uri, 1));
  c.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'hlo', version: 1, text } });
  const first = await opened;
  const cpu0 = c.cpuMs();
  const times = [];
  for (let v = 2; v < 2 + edits; ++v) {
    // Insert, then delete, two spaces at the start of line 3: the text stays
    // valid and the same size.
    const insert = v % 2 === 0;
    const range = { start: { line: 2, character: 0 },
                    end: { line: 2, character: insert ? 0 : 2 } };
    const done = c.wait(published(uri, v));
    const t0 = process.hrtime.bigint();
    c.notify('textDocument/didChange', { textDocument: { uri, version: v },
                                         contentChanges: [{ range, text: insert ? '  ' : '' }] });
    await done;
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const cpu = (c.cpuMs() - cpu0) / edits;
  await c.request(2, 'shutdown', null);
  c.notify('exit', null);
  await new Promise(r => c.child.on('exit', r));
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], max: times[times.length - 1],
           cpu, diagnostics: first.params.diagnostics.length };
}

async function main() {
  const text = fs.readFileSync(file, 'utf8');
  const uri = pathToFileURL(path.resolve(file)).href;
  console.log(`module: ${file}, ${(text.length / 1e6).toFixed(1)} MB, ${edits} edits each`);
  const results = {};
  for (const verify of ['off', 'auto']) {
    const r = results[verify] = await run(text, uri, verify);
    console.log(`hlo.verify=${verify.padEnd(4)} edit->diagnostics median ${r.median.toFixed(0)} ms, ` +
                `max ${r.max.toFixed(0)} ms, server cpu ${r.cpu.toFixed(0)} ms/edit, ` +
                `${r.diagnostics} diagnostics`);
  }
  console.log(`ratio ${(results.auto.median / results.off.median).toFixed(2)}x ` +
              `(goal: diagnostics within 2000 ms of an edit)`);
}
main().catch(e => { console.error(e); process.exit(1); });
