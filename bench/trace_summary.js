#!/usr/bin/env node
// Summarizes the server's own timing lines (HLO_LSP_TRACE=1 on stderr):
// per method, p50/p99/max of the queue wait and of the run time, to tell
// a client-side p99 outlier that waited from one that ran long.
//   HLO_LSP_TRACE=1 node bench/lsp_bench.js hlo-lsp big.hlo 500 2>trace.log
//   node bench/trace_summary.js trace.log
'use strict';
const fs = require('fs');
const file = process.argv[2];
if (!file) { console.error('usage: trace_summary.js <trace.log>'); process.exit(2); }
// Per method and, where the line says it, per thread (reader or pool).
const re = /^hlo-lsp trace: (\S+) \S+ wait ([\d.]+) ms run ([\d.]+) ms send ([\d.]+) ms(?:.* on (\w+))?/;
const by = new Map();
for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
  const m = re.exec(line);
  if (!m) continue;
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
