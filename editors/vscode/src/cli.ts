// The hlo-lsp command line, for what the running server does not offer (yet):
// `convert`, `search --json`, `replay --json`, `diff --json`, and stage listing from
// XLA dump names.
import * as vscode from 'vscode';
import { execFile } from 'child_process';
import * as path from 'path';
import * as fs from 'fs';

export interface CliResult { code: number; stdout: string; stderr: string }

function stageRank(f: { stage: string; step?: number }): number {
  if (/before_optimizations$/.test(f.stage)) return 0;
  if (f.step !== undefined) return 1 + f.step;
  return 1e9;
}

export class ServerCli {
  constructor(private readonly exe: () => string, private readonly log: vscode.LogOutputChannel) {}

  run(args: string[], timeoutMs = 600_000): Promise<CliResult> {
    return new Promise((resolve, reject) => {
      this.log.info(`run: ${this.exe()} ${args.join(' ')}`);
      execFile(this.exe(), args, { maxBuffer: 4 * 1024 * 1024 * 1024, timeout: timeoutMs, encoding: 'utf8' },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
          if (err && typeof err.code !== 'number') reject(new Error(`${this.exe()}: ${err.message}`));
          else resolve({ code, stdout, stderr });
        });
    });
  }

  // Proto to text on stdout, or into OUT (large files: no 4 GB string in memory).
  async convert(input: string, to: 'text' | 'proto', out?: string): Promise<string> {
    const args = ['convert', input, '--to', to];
    if (out) args.push('-o', out);
    const r = await this.run(args);
    if (r.code !== 0) throw new Error(`hlo-lsp convert failed (exit ${r.code}): ${r.stderr.trim()}`);
    return r.stdout;
  }

  async search(folder: string, query: string) {
    const r = await this.run(['search', '--dir', folder, '--json', '--limit', '200', query]);
    if (r.code > 1) throw new Error(`hlo-lsp search failed (exit ${r.code}): ${r.stderr.trim()}`);
    return r.stdout.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  }

  async replay(file: string, platform: 'cpu' | 'gpu' | 'compare',
    opts: { snapshot?: string; fakeData?: boolean; timeout?: number } = {}): Promise<unknown> {
    const args = platform === 'compare'
      ? ['replay', file, '--platform', 'gpu', '--compare', 'cpu', '--json', '--stats']
      : ['replay', file, '--platform', platform, '--json', '--stats'];
    if (opts.snapshot) args.push('--snapshot', vscode.Uri.parse(opts.snapshot).fsPath);
    if (opts.fakeData) args.push('--force-fake-data');
    if (opts.timeout !== undefined) args.push('--timeout', String(opts.timeout));
    const r = await this.run(args);
    try {
      return { exitCode: r.code, ...JSON.parse(r.stdout) };
    } catch {
      return { exitCode: r.code, summary: r.code === 0 ? 'done' : `exit ${r.code}`, output: r.stdout, stderr: r.stderr };
    }
  }

  // `hlo-lsp memory FILE --json`: a module's buffer assignment or an OOM log's buffers.
  async memory(file: string): Promise<object | undefined> {
    const r = await this.run(['memory', file, '--json']);
    return r.code === 0 ? JSON.parse(r.stdout) : undefined;
  }

  // Structural diff of two files (exit 0: equal, 1: they differ).
  async diff(a: string, b: string): Promise<object> {
    const r = await this.run(['diff', a, b, '--json']);
    if (r.code > 1) throw new Error(`hlo-lsp diff failed (exit ${r.code}): ${r.stderr.trim()}`);
    return JSON.parse(r.stdout);
  }

  // XLA dump names: [prefix.]module_NNNN[.name].<stage>.txt; same module = same key.
  async moduleFilesByName(uri: vscode.Uri): Promise<{ uri: string; stage: string; step?: number }[]> {
    const dir = path.dirname(uri.fsPath);
    const key = /^(\d+\.)?module_\d+\./.exec(path.basename(uri.fsPath))?.[0];
    if (!key) return [];
    const strip = (n: string) => n.slice(key.length).replace(/\.(txt|hlo\.pb|hlo\.pb\.gz|pb|pb\.gz)$/, '');
    // The module name is the first segment when the stage has more than one.
    const own = strip(path.basename(uri.fsPath)).split('.');
    const moduleName = own.length > 1 ? own[0] + '.' : '';
    const names = await fs.promises.readdir(dir);
    return names
      .filter((n) => n.startsWith(key) && /\.(txt|pb|pb\.gz)$/.test(n) && !/-(buffer-assignment|memory-usage-report)\./.test(n))
      .map((n) => {
        let stage = strip(n);
        if (moduleName && stage.startsWith(moduleName)) stage = stage.slice(moduleName.length);
        const step = /^(\d{4})\./.exec(stage)?.[1];
        return { uri: vscode.Uri.file(path.join(dir, n)).toString(), stage, step: step ? Number(step) : undefined };
      })
      // pipeline order: before optimizations, the pass dumps by step, then after
      .sort((a, b) => stageRank(a) - stageRank(b) || a.stage.localeCompare(b.stage));
  }
}
