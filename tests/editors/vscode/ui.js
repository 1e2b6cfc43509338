// Keyboard-driven UI test of the HLO extension in real VS Code (code-server) through
// headless chromium. usage: node ui.js URL OUTDIR   (exit 0 iff every check passed)
// Saves hover.png, symbols.png, stages.png, diff.png, graph.png, diagnostics.png, proto.png,
// replay-pick.png and replay.png
// in OUTDIR.
const { chromium } = require('playwright-core');
const fs = require('fs');
const [url, outDir] = process.argv.slice(2);
let failures = 0;
let page;
const check = (name, ok, detail) => {
  if (!ok) failures++;
  console.log(JSON.stringify({ check: name, ok: !!ok, detail }));
};

(async () => {
  fs.mkdirSync(outDir, { recursive: true });
  const t0 = Date.now();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 820 } });
  page.on('pageerror', (e) => console.error('pageerror', String(e).slice(0, 200)));
  await page.goto(url);
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  check('workbench loaded', true, `${Date.now() - t0} ms`);
  await page.waitForTimeout(1500);

  // Opens a quick input with KEYS and types TEXT into it: after any quick pick
  // still closing is gone (it would take the text), and until the new input
  // holds TEXT.
  const quickInput = async (keys, text) => {
    const widget = page.locator('.quick-input-widget');
    const input = page.locator('.quick-input-widget input');
    for (let attempt = 0; attempt < 3; attempt++) {
      await widget.waitFor({ state: 'hidden', timeout: 5000 }).catch(() => page.keyboard.press('Escape'));
      await page.keyboard.press(keys);
      await input.waitFor({ state: 'visible' });
      await page.keyboard.type(text);
      for (let i = 0; i < 8; i++) {
        if ((await input.inputValue().catch(() => '')).endsWith(text)) return;
        await page.waitForTimeout(250);
      }
      await page.keyboard.press('Escape');
    }
    throw new Error(`quick input ${keys} did not take "${text}"`);
  };
  // Opens NAME with Quick Open until its tab is the active one. Quick Open
  // lists recently opened files at once and the file search's rows later,
  // refilling the list as they come: Enter on the row focused a moment
  // before could open the recent file instead (CI, twice). A click on the
  // row that names the file takes that file; the tab says whether it did.
  const openFile = async (name) => {
    const stem = name.replace(/\.[^.]+$/, '');  // a .pb opens as its .txt view
    for (let attempt = 1; ; attempt++) {
      await quickInput('Control+P', name);
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first();
      await row.waitFor({ state: 'visible', timeout: 20000 });
      await page.waitForTimeout(300);  // let the search's rows settle
      await row.click();
      await page.waitForSelector('.monaco-editor .view-lines', { timeout: 20000 });
      if (await poll(async () => (await activeTab()).includes(stem), 20)) {
        await page.waitForTimeout(500);
        return;
      }
      if (attempt === 3) return;  // the caller's check reports it
      console.log(`quick open of ${name} did not open it; trying again`);
      await page.keyboard.press('Escape');
    }
  };
  const gotoLine = async (spec) => {
    await quickInput('Control+G', spec);
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
  };
  const poll = async (fn, tries = 40, ms = 250) => {
    let v;
    for (let i = 0; i < tries; i++) { v = await fn(); if (v) return v; await page.waitForTimeout(ms); }
    return v;
  };
  const activeTab = async () => (await page.locator('.tab.active').first().textContent()) || '';
  const selection = page.locator('[id="status.editor.selection"]');

  await openFile('module_0001.jit_f.before_optimizations.txt');
  const mode = await poll(async () => {
    const t = (await page.locator('[id="status.editor.mode"]').textContent()) || '';
    return /HLO/.test(t) ? t : undefined;
  });
  check('language mode', /HLO/.test(mode || ''), (mode || '').trim());

  // Our status bar item turns to the check mark once the server runs.
  const statusLabels = await poll(async () => {
    const labels = await page.locator('.statusbar-item a[aria-label]').evaluateAll(
      (els) => els.map((e) => e.getAttribute('aria-label')).filter((l) => /hlo-lsp/.test(l)));
    return labels.some((l) => /hlo-lsp \d/.test(l)) ? labels : undefined;
  });
  check('status bar item', !!statusLabels, statusLabels);

  // Colouring: the opcode, the type, a name and an attribute on line 14 get different colours.
  await gotoLine('14:1');
  const colours = await page.evaluate(() => {
    const out = {};
    for (const span of document.querySelectorAll('.monaco-editor .view-line span span')) {
      const t = span.textContent.trim();
      if (['reduce', 'f32', '%prod', 'dimensions', 'ENTRY', 'HloModule'].includes(t) && !out[t]) {
        out[t] = getComputedStyle(span).color;
      }
    }
    return out;
  });
  const distinct = new Set(['reduce', 'f32', '%prod', 'dimensions'].map((k) => colours[k]).filter(Boolean));
  check('syntax colours', distinct.size >= 3, colours);

  // Go to definition (F12) from the use of %prod on line 14 to its definition on line 12.
  await gotoLine('14:38');
  await page.keyboard.press('F12');
  const pos = await poll(async () => {
    const t = (await selection.textContent()) || '';
    return /Ln 12\b/.test(t) ? t : undefined;
  });
  check('go to definition', /Ln 12\b/.test(pos || ''), (pos || (await selection.textContent()) || '').trim());

  // Hover: Ctrl+K Ctrl+I at the same use.
  await gotoLine('14:38');
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+I');
  const hover = page.locator('.monaco-hover:not(.hidden) .monaco-hover-content, .monaco-hover .hover-contents').first();
  let htext = '';
  try { await hover.waitFor({ state: 'visible', timeout: 10000 }); htext = await hover.innerText(); } catch (e) { htext = String(e).slice(0, 100); }
  check('hover', /multiply/.test(htext) && /f32\[4\]/.test(htext), htext.slice(0, 200));
  await page.screenshot({ path: `${outDir}/hover.png` });
  await page.keyboard.press('Escape');

  // Outline: Ctrl+Shift+O lists computations and instructions.
  await page.keyboard.press('Control+Shift+O');
  await page.waitForTimeout(1500);
  const syms = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
  check('document symbols', syms.some((s) => /^\W*add_reducer/.test(s)) && syms.some((s) => /^\W*main/.test(s)),
    syms.map((s) => s.replace(/\s+/g, ' ')).slice(0, 12));
  await page.screenshot({ path: `${outDir}/symbols.png` });
  await page.keyboard.press('Escape');

  // Command palette: HLO: Open Another Stage of This Module, then pick the GPU stage.
  await quickInput('F1', 'HLO: Open Another Stage');
  await page.waitForTimeout(800);
  await page.keyboard.press('Enter');
  // The list fills in as it renders: wait for both kinds of row (a stage
  // and a pass dump), keeping what was last seen for the failure message.
  let stageRows = [];
  const stages = await poll(async () => {
    stageRows = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
    return stageRows.some((r) => /gpu_after_optimizations/.test(r)) &&
      stageRows.some((r) => /pipeline|after_algsimp/.test(r)) ? stageRows : undefined;
  });
  check('stages quick pick', !!stages, stageRows.map((s) => s.replace(/\s+/g, ' ')));
  await page.screenshot({ path: `${outDir}/stages.png` });
  await page.keyboard.type('gpu_after');
  await page.waitForTimeout(300);
  await page.keyboard.press('Enter');
  const tab = await poll(async () => {
    const t = (await page.locator('.tab.active').first().textContent()) || '';
    return /gpu_after_optimizations/.test(t) ? t : undefined;
  });
  check('stage opened', !!tab, tab);

  // A pass dump shows the history lenses; HLO: Diff with Previous Pass opens the diff
  // editor and the HLO Diff view with the pass's edits.
  const algsimp = 'module_0001.jit_f.0003.simplification.after_algsimp.before_dce.txt';
  await openFile(algsimp);
  check('pass dump opened', await poll(async () => (await activeTab()).includes(algsimp), 20), await activeTab());
  await page.screenshot({ path: `${outDir}/pass-dump.png` });
  const lensText = await poll(async () => {
    const t = (await page.locator('.codelens-decoration').allInnerTexts()).join(' | ');
    return /next pass/.test(t) && /diff with previous/.test(t) ? t : undefined;
  }, 60, 250);
  check('history code lenses', !!lensText, lensText);
  await quickInput('F1', 'HLO: Diff with Previous Pass');
  await page.waitForTimeout(800);
  await page.keyboard.press('Enter');
  const diffRows = await poll(async () => {
    const rows = await page.locator('.pane-body .monaco-list-row').allInnerTexts();
    const shown = await page.locator('.monaco-diff-editor').count();
    return shown > 0 && rows.some((r) => /broadcast\.1/.test(r)) ? rows : undefined;
  });
  check('diff view and diff editor', !!diffRows, (diffRows || []).map((r) => r.replace(/\s+/g, ' ')).slice(0, 8));
  await page.screenshot({ path: `${outDir}/diff.png` });

  // HLO: Show Graph: the webview shows the ENTRY's SVG (Graphviz); a click on a node
  // (%one, line 14) goes to its definition.
  await openFile(algsimp);
  await quickInput('F1', 'HLO: Show Graph');
  await page.waitForTimeout(800);
  await page.keyboard.press('Enter');
  const graphFrame = page.frameLocator('iframe.webview').frameLocator('iframe#active-frame');
  const nodeIds = await poll(async () => {
    try {
      const ids = await graphFrame.locator('g.node').evaluateAll((gs) => gs.map((g) => g.id));
      return ids.includes('node_one') && ids.includes('node_out') ? ids : undefined;
    } catch (e) { return undefined; }
  }, 80);
  check('graph webview shows the SVG', !!nodeIds, nodeIds);
  await page.waitForTimeout(500);
  await page.screenshot({ path: `${outDir}/graph.png` });
  if (nodeIds) {
    await graphFrame.locator('g#node_one').click();
    const at = await poll(async () => {
      const t = (await page.locator('[id="status.editor.selection"]').textContent()) || '';
      return /Ln 14\b/.test(t) ? t : undefined;
    }, 40);
    check('graph node click goes to the definition', !!at, at);
  }

  // Diagnostics: the undefined operand gets a squiggle.
  await openFile('undefined_operand.hlo');
  const squiggle = await poll(async () => (await page.locator('.monaco-editor .squiggly-error').count()) > 0, 60, 500);
  check('diagnostic squiggle', squiggle);
  await gotoLine('5:52');
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+I');
  await page.waitForTimeout(1000);
  await page.screenshot({ path: `${outDir}/diagnostics.png` });

  // A binary proto dump opens (default custom editor) as read-only HLO text.
  await openFile('module_0002.jit_f.before_optimizations.hlo.pb');
  const protoTab = await poll(async () => {
    const t = (await page.locator('.tab.active').first().textContent()) || '';
    return /before_optimizations\.hlo\.txt/.test(t) ? t : undefined;
  }, 80);
  const protoMode = (await page.locator('[id="status.editor.mode"]').textContent()) || '';
  const protoText = await page.locator('.monaco-editor .view-lines').first().innerText();
  check('proto dump opens as HLO text', !!protoTab && /HLO/.test(protoMode) && /HloModule\sjit_f/.test(protoText),
    { tab: protoTab, mode: protoMode.trim(), head: protoText.slice(0, 60) });
  await page.screenshot({ path: `${outDir}/proto.png` });

  // HLO: Replay on CPU: no GPU items in the palette here; the quick pick offers the
  // module's snapshot and fake data; the results view shows each output's statistics and
  // the first NaN as a link that opens its instruction (%q, line 5).
  await openFile('module_0005.nanmod.before_optimizations.txt');
  await quickInput('F1', 'HLO: Replay');
  let paletteRows = [];
  await poll(async () => {
    paletteRows = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
    return paletteRows.some((r) => /Replay on CPU/.test(r));
  }, 20);
  check('palette: replay on CPU, no GPU items without a GPU', paletteRows.some((r) => /Replay on CPU/.test(r)) &&
    !paletteRows.some((r) => /Replay on GPU|and Compare/.test(r)), paletteRows.map((r) => r.replace(/\s+/g, ' ')));
  await page.keyboard.type(' on CPU');
  await page.waitForTimeout(500);
  await page.keyboard.press('Enter');
  let pickRows = [];
  const picked = await poll(async () => {
    pickRows = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
    return pickRows.some((r) => /hlo_snapshot/.test(r)) && pickRows.some((r) => /Fake data/.test(r));
  });
  check('replay quick pick: the snapshot and fake data', !!picked, pickRows.map((r) => r.replace(/\s+/g, ' ')));
  await page.screenshot({ path: `${outDir}/replay-pick.png` });
  await page.keyboard.type('hlo_snapshot');
  await page.waitForTimeout(300);
  await page.keyboard.press('Enter');
  const resultFrame = async () => {
    for (const f of page.frames()) {
      try { if (await f.$('#origin')) return f; } catch (e) { /* detached */ }
    }
    return undefined;
  };
  const origin = await poll(async () => {
    const f = await resultFrame();
    const t = f ? await f.$eval('#origin', (e) => e.innerText) : '';
    return /%q/.test(t) ? { f, t } : undefined;
  }, 80);
  const outputs = origin ? await origin.f.$eval('#outputs', (e) => e.innerText) : '';
  check('replay results view: outputs and the NaN origin', origin && /line 5/.test(origin.t) && /f32\[2\]/.test(outputs),
    { origin: origin && origin.t, outputs });
  await page.waitForTimeout(500);
  await page.screenshot({ path: `${outDir}/replay.png` });
  if (origin) {
    await origin.f.click('#origin a');
    const at = await poll(async () => {
      const t = (await selection.textContent()) || '';
      return /Ln 5\b/.test(t) ? t : undefined;
    }, 40);
    check('NaN origin link opens the instruction', !!at, at || (await selection.textContent()));
  }

  console.log(JSON.stringify({ summary: true, failures, ms: Date.now() - t0 }));
  await browser.close();
  process.exit(failures ? 1 : 0);
})().catch(async (e) => {
  console.error(e);
  try { await page.screenshot({ path: `${outDir}/failure.png` }); } catch (_) { /* page gone */ }
  process.exit(1);
});
