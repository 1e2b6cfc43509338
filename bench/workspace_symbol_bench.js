#!/usr/bin/env node
// workspace/symbol through a real client (vscode-jsonrpc, the library of
// VS Code's client) against one `rg` search of the same folder, side by
// side. Prints numbers; asserts nothing (issue 23's goal: p50 100x faster
// than rg).
//   node bench/workspace_symbol_bench.js path/to/hlo-lsp DUMP_DIR [samples] [--resolve]
// --resolve: the client announces workspace.symbol.resolveSupport for
// location.range (as VS Code does), so ranges come from workspaceSymbol/resolve,
// timed too (one per sample, as an editor resolves the symbol picked).
// Needs tests/e2e's node packages (cd tests/e2e && npm ci) and rg.
'use strict';
const cp = require('child_process');
const path = require('path');
const { pathToFileURL } = require('url');
const rpc = require(require.resolve('vscode-jsonrpc/node', {
  paths: [path.join(__dirname, '..', 'tests', 'e2e')],
}));

const args = process.argv.slice(2);
const resolve = args.includes('--resolve');
const [server, dir, samplesArg] = args.filter(a => a !== '--resolve');
if (!server || !dir) {
  console.error('usage: workspace_symbol_bench.js <hlo-lsp> <dump dir> [samples]');
  process.exit(2);
}
const samples = Number(samplesArg || 200);

function pct(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p / 100 * s.length))];
}

// Median wall time of 3 runs of `rg` for the literal over the folder.
function rgMs(literal) {
  const times = [];
  for (let i = 0; i < 3; i++) {
    const t0 = process.hrtime.bigint();
    cp.spawnSync('rg', ['-n', '-F', literal, dir], { stdio: 'ignore' });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return pct(times, 50);
}

// Server CPU time (user + system) so far, in ms: next to the wall-clock
// numbers, what a request costs without the machine's other load.
function cpuMs(pid) {
  try {
    const f = require('fs').readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;  // clock ticks of 10 ms
  } catch { return NaN; }
}

async function main() {
  const child = cp.spawn(server, [], { stdio: ['pipe', 'pipe', 'inherit'] });
  const conn = rpc.createMessageConnection(
      new rpc.StreamMessageReader(child.stdout),
      new rpc.StreamMessageWriter(child.stdin));
  let indexed;
  const done = new Promise(r => { indexed = r; });
  conn.onNotification('$/progress', p => {
    if (p.value && p.value.kind === 'end') indexed();
  });
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onRequest('client/registerCapability', () => null);
  conn.listen();
  const t0 = process.hrtime.bigint();
  await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: pathToFileURL(path.resolve(dir)).href,
    capabilities: {
      window: { workDoneProgress: true },
      workspace: resolve ? { symbol: { resolveSupport: { properties: ['location.range'] } } } : {},
    },
  });
  conn.sendNotification('initialized', {});
  await done;
  console.log(`indexed ${dir} in ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(0)} ms`);
  // An exact name (taken from the folder), and the broad words of issue 23.
  const named = await conn.sendRequest('workspace/symbol', { query: 'add' });
  const name = named.length ? named[0].name : 'add';
  for (const query of [name, 'fusion', 'reduce', 'param']) {
    const times = [];
    const resolveTimes = [];
    let results = 0;
    const cpu0 = cpuMs(child.pid);
    for (let i = 0; i < samples; i++) {
      const s = process.hrtime.bigint();
      const r = await conn.sendRequest('workspace/symbol', { query });
      times.push(Number(process.hrtime.bigint() - s) / 1e6);
      results = r.length;
      if (resolve && r.length) {
        const s2 = process.hrtime.bigint();
        await conn.sendRequest('workspaceSymbol/resolve', r[i % r.length]);
        resolveTimes.push(Number(process.hrtime.bigint() - s2) / 1e6);
      }
    }
    const cpu = (cpuMs(child.pid) - cpu0) / samples;
    const rg = rgMs(query);
    console.log(`${query.padEnd(24)} ${String(results).padStart(4)} results  ` +
                `p50 ${pct(times, 50).toFixed(2)} ms  p99 ${pct(times, 99).toFixed(2)} ms  ` +
                `rg ${rg.toFixed(0)} ms  rg/p50 ${(rg / pct(times, 50)).toFixed(0)}x  ` +
                `server CPU ${cpu.toFixed(2)} ms/request` +
                (resolveTimes.length ? `  resolve p50 ${pct(resolveTimes, 50).toFixed(2)} ms` : ''));
  }
  await conn.sendRequest('shutdown');
  conn.sendNotification('exit');
  child.on('exit', () => process.exit(0));
}

main().catch(e => { console.error(e); process.exit(1); });
