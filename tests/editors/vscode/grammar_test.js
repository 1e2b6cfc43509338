// The TextMate grammar (editors/vscode/syntaxes/hlo.tmLanguage.json) tokenised with
// VS Code's own engine (vscode-textmate + oniguruma): colouring without the server.
// usage: node grammar_test.js      (exit 0 iff every check passed; 77 = packages missing)
const fs = require('fs');
const path = require('path');
const root = path.resolve(__dirname, '../../..');
const modules = path.join(root, 'editors/vscode/node_modules');
let tm, onig;
try {
  tm = require(path.join(modules, 'vscode-textmate'));
  onig = require(path.join(modules, 'vscode-oniguruma'));
} catch (e) {
  console.log('SKIP: vscode-textmate not installed in editors/vscode (scripts/editor-test-deps.sh)');
  process.exit(77);
}

(async () => {
  const wasm = fs.readFileSync(path.join(modules, 'vscode-oniguruma/release/onig.wasm')).buffer;
  await onig.loadWASM(wasm);
  const registry = new tm.Registry({
    onigLib: Promise.resolve({ createOnigScanner: (p) => new onig.OnigScanner(p), createOnigString: (s) => new onig.OnigString(s) }),
    loadGrammar: async () => tm.parseRawGrammar(
      fs.readFileSync(path.join(root, 'editors/vscode/syntaxes/hlo.tmLanguage.json'), 'utf8'), 'hlo.tmLanguage.json'),
  });
  const grammar = await registry.loadGrammar('source.hlo');
  const fixture = (name) => fs.readFileSync(path.join(root, 'tests/editors/fixtures', name), 'utf8').replace(/\n$/, '');
  const text = [
    fixture('module_0001.jit_f.before_optimizations.txt'),
    fixture('exported_model.txt'),
    '  ROOT %keep_going = pred[] compare(s32[] %counter, s32[] %limit), direction=LT, window={size=3x3 pad=0_1x1_0}',
  ].join('\n');
  // scope of every token, by "line:text" (first occurrence wins)
  const scopes = new Map();
  let state = tm.INITIAL;
  text.split('\n').forEach((line, i) => {
    const r = grammar.tokenizeLine(line, state);
    for (const t of r.tokens) {
      const key = `${i + 1}:${line.slice(t.startIndex, t.endIndex)}`;
      if (!scopes.has(key)) scopes.set(key, t.scopes[t.scopes.length - 1]);
    }
    state = r.ruleStack;
  });
  const expect = [
    ['1:HloModule', 'keyword.other.module.hlo'],
    ['1:jit_f', 'entity.name.namespace.hlo'],
    ['3:%add_reducer', 'entity.name.function.hlo'],
    ['3:f32', 'storage.type.hlo'],
    ['6:ROOT', 'keyword.other.root.hlo'],
    ['6:add', 'keyword.control.opcode.hlo'],
    ['9:ENTRY', 'keyword.other.entry.hlo'],
    ['12:%prod', 'entity.name.variable.hlo'],
    ['12:multiply', 'keyword.control.opcode.hlo'],
    ['12:[4]', 'constant.numeric.dimensions.hlo'],
    ['12:{0}', 'storage.modifier.layout.hlo'],
    ['12:metadata', 'variable.parameter.attribute.hlo'],
    ['12:"', 'string.quoted.double.hlo'],
    ['14:reduce', 'keyword.control.opcode.hlo'],
    ['14:%prod', 'variable.other.hlo'],
    ['14:dimensions', 'variable.parameter.attribute.hlo'],
    ['14:%add_reducer', 'variable.other.hlo'],
    ['14:0', 'constant.numeric.hlo'],
    ['18:// exported by a notebook; no dump name, but the first token says HLO', 'comment.line.double-slash.hlo'],
    ['19:/*', 'comment.block.hlo'],
    ['25:LT', 'constant.language.enum.hlo'],
    ['25:3x3', 'constant.numeric.window.hlo'],
    ['25:0_1x1_0', 'constant.numeric.padding.hlo'],
    ['25:pred', 'storage.type.hlo'],
  ];
  let failures = 0;
  for (const [key, want] of expect) {
    const got = scopes.get(key);
    const ok = got === want;
    if (!ok) failures++;
    console.log(JSON.stringify({ check: key, ok, want, got }));
  }
  console.log(JSON.stringify({ summary: true, failures }));
  process.exit(failures ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
