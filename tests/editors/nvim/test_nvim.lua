-- Neovim end-to-end test of editors/vim against the real hlo-lsp. Run (see run_nvim.sh):
--   HLO_LSP=build/hlo-lsp FIXTURES=tests/editors/fixtures WORK=/tmp/x LSP_OUT=out.jsonl \
--   nvim --headless --clean --cmd 'set rtp^=editors/vim' -u tests/editors/nvim/test_nvim.lua
-- Nothing is configured here: the plugin must find the server ($HLO_LSP) and attach itself.
local dir = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
package.path = dir .. '/?.lua;' .. package.path
local H = require('harness')
local fixtures = assert(os.getenv('FIXTURES'), 'set FIXTURES')
local work = assert(os.getenv('WORK'), 'set WORK')
local before = fixtures .. '/module_0001.jit_f.before_optimizations.txt'

local function edit(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  return vim.api.nvim_get_current_buf()
end

local function qf_files()
  return vim.tbl_map(function(i) return vim.fn.fnamemodify(vim.fn.bufname(i.bufnr), ':t') end,
    vim.fn.getqflist())
end

vim.schedule(function() H.run(function()
  vim.cmd('filetype plugin on')
  vim.cmd('syntax on')

  -- File detection, as contracts.md says.
  local expect = {
    ['module_0001.jit_f.before_optimizations.txt'] = 'hlo',
    ['module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt'] = 'hlo',
    ['module_0001.jit_f.0003.simplification.after_algsimp.before_dce.txt'] = 'hlo',
    ['undefined_operand.hlo'] = 'hlo',
    ['exported_model.txt'] = 'hlo',
    ['module_text.pbtxt'] = 'hlo',
    ['module_0001.jit_f.sm_9.0_gpu_after_optimizations-buffer-assignment.txt'] = 'text',
    ['notes.txt'] = 'text',
  }
  local got = {}
  for name, _ in pairs(expect) do
    edit(fixtures .. '/' .. name)
    got[name] = vim.bo.filetype
  end
  H.check('filetype detection', vim.deep_equal(got, expect), got)

  -- Syntax colouring without the server: groups under the cursor.
  local buf = edit(before)
  local function group_at(lnum, pattern)
    local col = H.col(buf, lnum, pattern)
    return vim.fn.synIDattr(vim.fn.synID(lnum, col + 1, 1), 'name')
  end
  local groups = {
    opcode = group_at(14, 'reduce('), type = group_at(14, 'f32[4]'), name = group_at(14, '%prod'),
    attribute = group_at(14, 'dimensions'), string = group_at(12, '"jit(f)/mul"'),
    keyword = group_at(1, 'HloModule'), entry = group_at(9, 'ENTRY'),
  }
  H.check('syntax groups', groups.opcode == 'hloOpcode' and groups.type == 'hloType'
    and groups.name == 'hloName' and groups.attribute == 'hloAttribute'
    and groups.string == 'hloString' and groups.keyword == 'hloKeyword'
    and groups.entry == 'hloKeyword', groups)

  -- The plugin starts hlo-lsp by itself on the hlo filetype.
  local client = H.wait_attached(buf, 15000)
  H.check('attached', client ~= nil and client.name == 'hlo-lsp', client and client.name)
  if not client then return end

  -- Definition: %prod used on line 14 is defined on line 12; to_apply=%add_reducer on line 3.
  local def, err = H.request(buf, 'textDocument/definition', H.pos(buf, 13, H.col(buf, 14, '%prod') + 2))
  local loc = def and (def[1] or def)
  H.check('definition of an operand', loc and (loc.range or loc.targetRange).start.line == 11,
    { result = def, err = err })
  def, err = H.request(buf, 'textDocument/definition', H.pos(buf, 13, H.col(buf, 14, '%add_reducer') + 3))
  loc = def and (def[1] or def)
  H.check('definition of a computation', loc and (loc.range or loc.targetRange).start.line == 2,
    { result = def, err = err })

  local hov, herr = H.request(buf, 'textDocument/hover', H.pos(buf, 13, H.col(buf, 14, '%prod') + 2))
  local htext = hov and (hov.contents.value or vim.inspect(hov.contents)) or ''
  H.check('hover', htext:find('multiply', 1, true) ~= nil and htext:find('f32[4]', 1, true) ~= nil,
    { text = htext, err = herr })

  local syms, serr = H.request(buf, 'textDocument/documentSymbol',
    { textDocument = { uri = vim.uri_from_bufnr(buf) } })
  local names = {}
  local function walk(list)
    for _, s in ipairs(list or {}) do names[#names + 1] = s.name walk(s.children) end
  end
  walk(syms)
  H.check('documentSymbol', vim.tbl_contains(names, 'jit_f') and vim.tbl_contains(names, 'main')
    and vim.tbl_contains(names, 'add_reducer'), { names = names, err = serr })

  -- The user-facing path: vim.lsp.buf.definition() moves the cursor.
  vim.api.nvim_win_set_cursor(0, { 14, H.col(buf, 14, '%prod') + 2 })
  vim.lsp.buf.definition()
  vim.wait(5000, function() return vim.api.nvim_win_get_cursor(0)[1] == 12 end, 50)
  H.check('vim.lsp.buf.definition jumps', vim.api.nvim_win_get_cursor(0)[1] == 12,
    vim.api.nvim_win_get_cursor(0))

  -- :HloStages lists this module's other stages, not the buffer-assignment companion.
  vim.cmd('HloStages')
  local stages = qf_files()
  vim.cmd('cclose')
  H.check(':HloStages', #stages == 4
    and vim.tbl_contains(stages, 'module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt')
    and vim.tbl_contains(stages, 'module_0001.jit_f.0003.simplification.after_algsimp.before_dce.txt')
    and not vim.tbl_contains(stages, 'module_0001.jit_f.sm_9.0_gpu_after_optimizations-buffer-assignment.txt'),
    stages)

  -- :HloSearch fills the quickfix list with the definition of add_reducer.
  edit(before)
  -- The server answers hlo.search asynchronously: wait for the list to be
  -- replaced by the search's own (the stages list above has another title).
  -- The search waits for the first index of the plugin's root, the git
  -- checkout: seconds on a loaded machine under the sanitizers.
  vim.fn.setqflist({}, 'r', { title = 'cleared', items = {} })
  vim.cmd('HloSearch kind:computation add_reducer')
  vim.wait(60000, function()
    return (vim.fn.getqflist({ title = 1 }).title or ''):find('HloSearch', 1, true) ~= nil
        and #vim.fn.getqflist() > 0
  end, 50)
  local hits = vim.fn.getqflist()
  vim.cmd('cclose')
  local found = false
  for _, item in ipairs(hits) do
    if vim.fn.bufname(item.bufnr):find('before_optimizations', 1, true) and item.lnum == 3 then found = true end
  end
  H.check(':HloSearch', found, vim.tbl_map(function(i) return vim.fn.bufname(i.bufnr) .. ':' .. i.lnum .. ' ' .. i.text end, hits))

  -- The compilation history: before_optimizations, pass dumps 0003 (algsimp: adds %one,
  -- renames %spread to %broadcast.1, swaps %out's operands) and 0004 (dce: removes %one),
  -- then sm_9.0_gpu_after_optimizations.
  local algsimp = 'module_0001.jit_f.0003.simplification.after_algsimp.before_dce.txt'
  local dce = 'module_0001.jit_f.0004.simplification.after_dce.before_fusion.txt'
  local after = 'module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt'
  local function current() return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ':t') end
  edit(before)
  vim.cmd('HloNextPass')
  local went = { current() }
  vim.cmd('HloNextPass')
  went[#went + 1] = current()
  H.check(':HloNextPass', went[1] == algsimp and went[2] == dce, went)
  vim.cmd('HloPrevPass')
  H.check(':HloPrevPass', current() == algsimp, current())
  edit(fixtures .. '/' .. after)
  vim.cmd('HloNextPass')
  H.check(':HloNextPass at the last stage stays', current() == after, current())

  local function qf_entries()
    return vim.tbl_map(function(i)
      local name = vim.fn.fnamemodify(vim.fn.bufname(i.bufnr), ':t')
      return (name:match('%.(%d%d%d%d)%.') or name) .. ':' .. i.lnum .. ' ' .. i.text
    end, vim.tbl_filter(function(i) return i.bufnr > 0 end, vim.fn.getqflist()))
  end
  local function has(list, prefix)
    for _, e in ipairs(list) do if e:sub(1, #prefix) == prefix then return true end end
    return false
  end
  local abuf = edit(fixtures .. '/' .. algsimp)
  H.wait_attached(abuf, 10000)
  vim.cmd('HloDiff')
  local title = vim.fn.getqflist({ title = 1 }).title or ''
  local entries = qf_entries()
  vim.cmd('cclose')
  H.check(':HloDiff (previous pass)', title:find('before_optimizations', 1, true) and title:find('0003', 1, true)
    and has(entries, '0003:14 + main one constant') and has(entries, '0003:16 > main spread -> broadcast.1')
    and has(entries, '0003:17 ~ main out operands'), { title = title, entries = entries })
  edit(fixtures .. '/' .. dce)
  vim.cmd('HloDiff ' .. vim.fn.fnameescape(fixtures .. '/' .. algsimp))
  title = vim.fn.getqflist({ title = 1 }).title or ''
  entries = qf_entries()
  vim.cmd('cclose')
  H.check(':HloDiff FILE (removed at its line in A)', title:find('0003', 1, true) and title:find('0004', 1, true)
    and #entries == 1 and has(entries, '0003:14 - main one constant'), { title = title, entries = entries })

  -- :HloGraph writes hlo.graph's SVG (the server's: the buffer is attached) and says where.
  vim.g.hlo_graph_open = 0
  edit(fixtures .. '/' .. algsimp)
  vim.g.hlo_graph_svg = nil
  vim.cmd('HloGraph')
  local svg = vim.g.hlo_graph_svg and table.concat(vim.fn.readfile(vim.g.hlo_graph_svg), '\n') or ''
  H.check(':HloGraph', svg:find('<svg', 1, true) ~= nil and svg:find('id="node_out"', 1, true) ~= nil,
    { path = vim.g.hlo_graph_svg, head = svg:sub(1, 200) })
  vim.g.hlo_graph_svg = nil
  vim.cmd('HloGraph one')
  svg = vim.g.hlo_graph_svg and table.concat(vim.fn.readfile(vim.g.hlo_graph_svg), '\n') or ''
  H.check(':HloGraph NAME', svg:find('id="node_one"', 1, true) ~= nil, { path = vim.g.hlo_graph_svg })

  -- :HloMemory on a pasted OOM report: each peak buffer at the instruction it names.
  edit(fixtures .. '/../../hlo/fixtures/memory/oom.log')
  vim.cmd('HloMemory')
  title = vim.fn.getqflist({ title = 1 }).title or ''
  entries = qf_entries()
  vim.cmd('cclose')
  local optimized = 'module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt'
  H.check(':HloMemory (OOM log)', title == 'HloMemory oom.log'
    and has(entries, optimized .. ':13 Buffer 1: 32 bytes fusion f32[8] -> main.5 fusion')
    and has(entries, optimized .. ':10 Buffer 3: 16 bytes entry parameter f32[4] -> main.5 x'),
    { title = title, entries = entries })

  -- A code lens click (vim.lsp.codelens.run, choosing "next pass") opens the next dump.
  abuf = edit(fixtures .. '/' .. algsimp)
  vim.lsp.codelens.refresh()
  vim.wait(10000, function()
    for _, l in ipairs(vim.lsp.codelens.get(abuf)) do
      if l.command and l.command.title:find('next pass', 1, true) then return true end
    end
    return false
  end, 50)
  local titles = vim.tbl_map(function(l) return l.command and l.command.title end, vim.lsp.codelens.get(abuf))
  -- Runs the lens of the cursor line whose title has TEXT (vim.ui.select picks it).
  local function run_lens(text)
    local select = vim.ui.select
    vim.ui.select = function(items, opts, choose)
      for _, item in ipairs(items) do
        if opts.format_item(item):find(text, 1, true) then return choose(item) end
      end
      choose(nil)
    end
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    vim.lsp.codelens.run()
    vim.ui.select = select
  end
  run_lens('next pass')
  vim.wait(10000, function() return current() == dce end, 50)
  H.check('code lens "next pass" opens the dump', current() == dce, { now = current(), lenses = titles })
  -- The stages lens (hlo.moduleFiles) fills the quickfix list instead of doing nothing.
  edit(fixtures .. '/' .. algsimp)
  vim.fn.setqflist({}, 'r', { title = 'cleared', items = {} })
  run_lens('other stages')
  vim.wait(10000, function() return vim.fn.getqflist({ title = 1 }).title == 'HloStages' end, 50)
  H.check('code lens "other stages" lists them', vim.fn.getqflist({ title = 1 }).title == 'HloStages'
    and #vim.fn.getqflist() == 4, qf_files())
  vim.cmd('cclose')

  -- Diagnostics from the server for an undefined operand.
  local bad = edit(fixtures .. '/undefined_operand.hlo')
  H.wait_attached(bad, 10000)
  vim.wait(10000, function() return #vim.diagnostic.get(bad) > 0 end, 50)
  local diags = vim.diagnostic.get(bad)
  H.check('diagnostics', #diags == 1 and diags[1].lnum == 4 and diags[1].message:find('missing', 1, true) ~= nil,
    vim.tbl_map(function(d) return { lnum = d.lnum, col = d.col, msg = d.message } end, diags))

  -- :HloReplay: the results in a scratch buffer, the first NaN in the quickfix list.
  -- The module (a fixture) divides its argument by itself; its snapshot's arguments are
  -- {0, 3}, so %q (line 5) makes one NaN.
  local nanmod = fixtures .. '/module_0005.nanmod.before_optimizations.txt'
  local snapshot = fixtures .. '/module_0005.nanmod.hlo_snapshot.pb'
  local nbuf = edit(nanmod)
  H.wait_attached(nbuf, 10000)
  local completion = vim.fn['hlo#ReplayComplete']('', 'HloReplay ', 10)
  local gpu = require('hlo').gpu_available(nbuf)
  H.check(':HloReplay completion: snapshots, fake, gpu only with a GPU',
    vim.tbl_contains(completion, 'snapshot=' .. snapshot) and vim.tbl_contains(completion, 'fake')
    and vim.tbl_contains(completion, 'gpu') == gpu, { completion = completion, gpu = gpu })
  local function replay_buffer(name, timeout)
    local found
    vim.wait(timeout or 20000, function()
      found = vim.fn.bufnr('hlo-replay://' .. name)
      return found > 0 and #vim.api.nvim_buf_get_lines(found, 0, -1, false) > 3
    end, 50)
    return found > 0 and vim.api.nvim_buf_get_lines(found, 0, -1, false) or {}
  end
  local function grep(lines, pattern)
    for _, l in ipairs(lines) do if l:find(pattern) then return l end end
  end
  vim.fn.setqflist({}, 'r', { title = 'cleared', items = {} })
  vim.cmd('HloReplay cpu snapshot=' .. vim.fn.fnameescape(snapshot))
  local lines = replay_buffer('module_0005.nanmod.before_optimizations.txt')
  local qf = vim.fn.getqflist()
  H.check(':HloReplay snapshot=: outputs with statistics and the NaN origin',
    grep(lines, 'arguments: snapshot') and grep(lines, '^out0%s+f32%[2%]%s+1%s+1%s+1%s+1%s+0')
    and grep(lines, 'first values') and grep(lines, '^first NaN/Inf: %%q divide at line 5: 1 NaN'), lines)
  H.check(':HloReplay: the NaN origin in the quickfix list', #qf == 1 and qf[1].lnum == 5
    and vim.fn.fnamemodify(vim.fn.bufname(qf[1].bufnr), ':t') == 'module_0005.nanmod.before_optimizations.txt'
    and (vim.fn.getqflist({ title = 1 }).title or ''):find('HloReplay', 1, true) ~= nil,
    vim.tbl_map(function(i) return vim.fn.bufname(i.bufnr) .. ':' .. i.lnum .. ' ' .. i.text end, qf))
  vim.cmd('bwipeout! hlo-replay://module_0005.nanmod.before_optimizations.txt')
  edit(nanmod)
  vim.cmd('HloReplay fake timeout=30')
  lines = replay_buffer('module_0005.nanmod.before_optimizations.txt')
  H.check(':HloReplay fake', grep(lines, 'arguments: fake data') ~= nil, lines)
  vim.cmd('bwipeout! hlo-replay://module_0005.nanmod.before_optimizations.txt')
  local bad_args = pcall(vim.cmd, 'HloReplay bogus')
  H.check(':HloReplay rejects an unknown word', vim.fn.bufnr('hlo-replay://module_0005.nanmod.before_optimizations.txt') < 0,
    bad_args)

  -- :HloReplayCancel stops an endless run: the server kills its child and says so.
  local endless = work .. '/endless.hlo'
  vim.fn.writefile({ 'HloModule endless', '', '%c (p: s32[]) -> pred[] {', '  %p = s32[] parameter(0)',
    '  ROOT %t = pred[] constant(true)', '}', '', '%b (p: s32[]) -> s32[] {', '  %p = s32[] parameter(0)',
    '  %one = s32[] constant(1)', '  ROOT %n = s32[] add(%p, %one)', '}', '',
    'ENTRY %e () -> s32[] {', '  %z = s32[] constant(0)', '  ROOT %w = s32[] while(%z), condition=%c, body=%b', '}' }, endless)
  local ebuf = edit(endless)
  H.wait_attached(ebuf, 10000)
  vim.cmd('HloReplay')
  vim.wait(10000, function() return require('hlo').replay ~= nil end, 50)
  vim.wait(300)
  local started = os.time()
  vim.cmd('HloReplayCancel')
  lines = replay_buffer('endless.hlo', 15000)
  H.check(':HloReplayCancel', grep(lines, 'outcome: cancelled') and grep(lines, 'failed: cancelled')
    and os.time() - started < 10, lines)
  vim.cmd('silent! bwipeout! hlo-replay://endless.hlo')

  -- :HloBisect over generated pass dumps of module m: from pass 2 on the result is
  -- doubled instead of negated. The quickfix list holds the dump before pass 2, the one
  -- after it and its first differing instruction (%r, line 6); the summary is echoed.
  local seq = work .. '/bisect'
  vim.fn.mkdir(seq, 'p')
  local function mod(root)
    return { 'HloModule m', 'ENTRY e {', '  p = f32[4] parameter(0)', '  z = f32[] constant(0)',
      '  zb = f32[4] broadcast(z), dimensions={}', '  ROOT r = ' .. root, '}' }
  end
  local function pass(k) return string.format('module_0007.m.%04d.opt.after_pass%d.before_pass%d.txt', k, k, k + 1) end
  vim.fn.writefile(mod('f32[4] negate(p)'), seq .. '/module_0007.m.before_optimizations.txt')
  for k = 1, 3 do vim.fn.writefile(mod(k >= 2 and 'f32[4] add(p, p)' or 'f32[4] subtract(zb, p)'), seq .. '/' .. pass(k)) end
  local function bisect_qf()
    vim.wait(60000, function() return (vim.fn.getqflist({ title = 1 }).title or '') == 'HloBisect m' end, 50)
    return vim.tbl_map(function(i)
      return (i.bufnr > 0 and vim.fn.fnamemodify(vim.fn.bufname(i.bufnr), ':t') or '') .. ':' .. i.lnum .. ' ' .. i.text
    end, vim.fn.getqflist())
  end
  local bbuf = edit(seq .. '/' .. pass(3))
  local bclient = H.wait_attached(bbuf, 10000)
  vim.fn.setqflist({}, 'r', { title = 'cleared', items = {} })
  vim.cmd('HloBisect fake')
  local items = bisect_qf()
  H.check(':HloBisect: both dumps and the first differing instruction in the quickfix list',
    items[1] == pass(1) .. ':1 before step 2 after pass2 (opt)' and (items[2] or ''):find('^' .. vim.pesc(pass(2)) .. ':1 after')
    and (items[3] or ''):find('^' .. vim.pesc(pass(2)) .. ':6 first differing instruction %%r add') ~= nil, items)
  local messages = vim.fn.execute('messages')
  H.check(':HloBisect echoes the summary', messages:find('HloBisect: step 2 after pass2 (opt) changed the result', 1, true)
    ~= nil, messages:sub(-400))
  -- The code action's command (vim.lsp.commands) shows the same answer.
  vim.fn.setqflist({}, 'r', { title = 'cleared', items = {} })
  if bclient then
    vim.lsp.commands['hlo.bisect']({ command = 'hlo.bisect', arguments = { { uri = vim.uri_from_bufnr(bbuf) } } },
      { client_id = bclient.id, bufnr = bbuf })
  end
  local via_action = bisect_qf()
  H.check('code action "Find the pass that changed the result" fills the quickfix list',
    #via_action == #items and via_action[3] == items[3], via_action)
  vim.cmd('cclose')

  -- A binary proto dump opens as read-only HLO text (converted by hlo-lsp).
  local pb = work .. '/module_0002.jit_f.before_optimizations.hlo.pb'
  if vim.fn.filereadable(pb) == 1 then
    local pbuf = edit(pb)
    local first = vim.api.nvim_buf_get_lines(pbuf, 0, 1, false)[1] or ''
    H.check('proto opens as text', vim.bo[pbuf].filetype == 'hlo' and first:find('^HloModule jit_f') ~= nil
      and not vim.bo[pbuf].modifiable, { first = first, ft = vim.bo[pbuf].filetype })
    local pclient = H.wait_attached(pbuf, 10000)
    local psyms = pclient and H.request(pbuf, 'textDocument/documentSymbol',
      { textDocument = { uri = vim.uri_from_bufnr(pbuf) } })
    -- :HloConvert on the proto: its text in a scratch buffer (server, else hlo-lsp convert)
    vim.cmd('HloConvert ' .. vim.fn.fnameescape(pb))
    local sbuf = vim.api.nvim_get_current_buf()
    local shead = vim.api.nvim_buf_get_lines(sbuf, 0, 1, false)[1] or ''
    H.check(':HloConvert', sbuf ~= pbuf and vim.bo[sbuf].filetype == 'hlo' and shead:find('^HloModule jit_f') ~= nil
      and vim.api.nvim_buf_get_name(sbuf):find('hlo-proto://', 1, true) ~= nil,
      { name = vim.api.nvim_buf_get_name(sbuf), head = shead, ft = vim.bo[sbuf].filetype })
    vim.cmd('close')
    H.check('proto text gets the server', psyms ~= nil and #psyms > 0 and psyms[1].name == 'jit_f',
      psyms and vim.tbl_map(function(s) return s.name end, psyms))
  else
    H.check('proto fixture', false, 'missing ' .. pb)
  end
end) end)
