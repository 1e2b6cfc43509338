#!/usr/bin/env node
// Summarizes the server's own timing lines (HLO_LSP_TRACE=1 on stderr):
// per method, p50/p99/max of the queue wait and of the run time, to tell
// a client-side p99 outlier that waited from one that ran long.
//   HLO_LSP_TRACE=1 node bench/lsp_bench.js hlo-lsp big.hlo 500 2>trace.log
//   node bench/trace_summary.js trace.log [samples]
// samples: lsp_bench.js's LSP_BENCH_SAMPLES file; then each round trip is
// also split by the server's read and write times (same clock): in (client
// send -> server read), server (read -> written), out (written -> client
// got it), per method.
'use strict';
const fs = require('fs');
const [file, samplesFile] = process.argv.slice(2);
if (!file) { console.error('usage: trace_summary.js <trace.log>'); process.exit(2); }
// Per method and, where the line says it, per thread (reader or pool).
const re = /^hlo-lsp trace: (\S+) (\S+) wait ([\d.]+) ms run ([\d.]+) ms send ([\d.]+) ms(?:.* on (\w+))?(?: at (\d+) (\d+))?/;
const by = new Map();
const serverAt = new Map();  // "method id" -> [read ns, written ns]
for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
  let m = re.exec(line);
  if (!m) continue;
  if (m[7]) serverAt.set(`${m[1]} ${m[2]}`, [BigInt(m[7]), BigInt(m[8])]);
  m = [m[0], m[1], m[3], m[4], m[5], m[6]];
  const key = m[5] ? `${m[1]} on ${m[5]}` : m[1];
  if (!by.has(key)) by.set(key, { wait: [], run: [], send: [] });
  const e = by.get(key);
  e.wait.push(Number(m[2]));
  e.run.push(Number(m[3]));
  e.send.push(Number(m[4]));
}
const pct = (v, p) => {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p / 100 * s.length))];
};
const fmt = v => `p50 ${pct(v, 50).toFixed(3)} p99 ${pct(v, 99).toFixed(3)} max ${Math.max(...v).toFixed(3)}`;
for (const [method, e] of by) {
  console.log(`${method}: n=${e.wait.length} wait ${fmt(e.wait)} | run ${fmt(e.run)} | send ${fmt(e.send)} (ms)`);
}
if (samplesFile) {
  const split = new Map();  // method -> {in, server, out} in ms
  for (const line of fs.readFileSync(samplesFile, 'utf8').split('\n')) {
    const [method, id, t0, t1] = line.split(' ');
    const at = serverAt.get(`${method} ${id}`);
    if (!at) continue;
    if (!split.has(method)) split.set(method, { in: [], server: [], out: [] });
    const e = split.get(method);
    const ms = (a, b) => Number(b - a) / 1e6;
    e.in.push(ms(BigInt(t0), at[0]));
    e.server.push(ms(at[0], at[1]));
    e.out.push(ms(at[1], BigInt(t1)));
  }
  for (const [method, e] of split) {
    console.log(`${method} round trip: n=${e.in.length} in ${fmt(e.in)} | server ${fmt(e.server)} | out ${fmt(e.out)} (ms)`);
  }
}
