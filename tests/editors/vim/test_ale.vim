" Vim 9 + ALE (Debian vim-ale) end-to-end test of editors/vim against the real hlo-lsp.
" Run (see run_vim.sh):
"   HLO_LSP=build/hlo-lsp ROOT=. OUT=out.txt vim -N -u NONE -i NONE -n -es -S test_ale.vim FILE </dev/null
" Only runtimepath is set up here: ALE must find ale_linters/hlo/hlo_lsp.vim by itself.
set nocompatible
let &runtimepath = $ROOT . '/editors/vim,/usr/share/vim-ale,' . &runtimepath . ',/usr/share/vim-ale/after'
filetype plugin on
syntax on
let g:ale_lint_on_enter = 1
let s:out = []
let s:failures = 0
function! s:check(name, ok, detail) abort
  if !a:ok | let s:failures += 1 | endif
  call add(s:out, (a:ok ? 'PASS ' : 'FAIL ') . a:name . ' ' . string(a:detail))
endfunction
function! s:wait(cond, ms) abort
  let l:t = 0
  while !eval(a:cond) && l:t < a:ms
    sleep 50m
    let l:t += 50
  endwhile
  return eval(a:cond)
endfunction
function! s:finish() abort
  call writefile(s:out + ['failures=' . s:failures], $OUT)
  execute 'cquit! ' . s:failures
endfunction

try
  runtime plugin/ale.vim
  runtime plugin/hlo.vim
  let s:fixtures = $ROOT . '/tests/editors/fixtures'

  " filetype detection in Vim (its own *.txt rule says `text` first)
  let s:ft = {}
  for s:name in ['module_0001.jit_f.before_optimizations.txt', 'exported_model.txt', 'module_text.pbtxt',
        \ 'module_0001.jit_f.sm_9.0_gpu_after_optimizations-buffer-assignment.txt', 'notes.txt', 'undefined_operand.hlo']
    execute 'edit ' . fnameescape(s:fixtures . '/' . s:name)
    let s:ft[s:name] = &filetype
  endfor
  call s:check('filetype', s:ft['module_0001.jit_f.before_optimizations.txt'] ==# 'hlo'
        \ && s:ft['exported_model.txt'] ==# 'hlo' && s:ft['undefined_operand.hlo'] ==# 'hlo'
        \ && s:ft['module_text.pbtxt'] ==# 'hlo'
        \ && s:ft['notes.txt'] ==# 'text'
        \ && s:ft['module_0001.jit_f.sm_9.0_gpu_after_optimizations-buffer-assignment.txt'] ==# 'text', s:ft)

  " the linter is registered for hlo without any configuration
  let s:names = map(copy(ale#linter#Get('hlo')), 'v:val.name')
  call s:check('ALE linter registered', index(s:names, 'hlo_lsp') >= 0, s:names)

  " diagnostics from publishDiagnostics (undefined operand on line 5)
  execute 'edit ' . fnameescape(s:fixtures . '/undefined_operand.hlo')
  doautocmd BufEnter
  ALELint
  call s:wait('!empty(ale#engine#GetLoclist(bufnr("")))', 15000)
  let s:diags = ale#engine#GetLoclist(bufnr(''))
  call s:check('diagnostics', len(s:diags) == 1 && s:diags[0].lnum == 5 && s:diags[0].text =~# 'missing',
        \ map(copy(s:diags), '[v:val.lnum, v:val.col, v:val.text]'))

  " :ALEGoToDefinition from the use of %prod on line 14 to its definition on line 12
  execute 'edit ' . fnameescape(s:fixtures . '/module_0001.jit_f.before_optimizations.txt')
  doautocmd BufEnter
  ALELint
  call cursor(14, 1) | call search('%prod', 'c', 14) | normal! l
  ALEGoToDefinition
  call s:wait('line(".") != 14', 10000)
  call s:check('ALEGoToDefinition operand', line('.') == 12, getpos('.'))
  call cursor(14, 1) | call search('%add_reducer', 'c', 14) | normal! ll
  ALEGoToDefinition
  call s:wait('line(".") != 14', 10000)
  call s:check('ALEGoToDefinition computation', line('.') == 3, getpos('.'))

  " hover through ALE's public request API
  let s:hover = v:null
  function! s:OnHover(response) abort
    let s:hover = get(a:response, 'result', {})
  endfunction
  call cursor(14, 1) | call search('%prod', 'c', 14)
  call ale#lsp_linter#SendRequest(bufnr(''), 'hlo_lsp', [0, 'textDocument/hover',
        \ {'textDocument': {'uri': ale#util#ToURI(expand('%:p'))}, 'position': {'line': 13, 'character': col('.')}}],
        \ function('s:OnHover'))
  call s:wait('s:hover isnot v:null', 10000)
  call s:check('hover', string(s:hover) =~# 'multiply', s:hover)

  " syntax colouring works without any server
  call cursor(14, 1) | call search('reduce(', 'c', 14)
  call s:check('syntax', synIDattr(synID(14, col('.'), 1), 'name') ==# 'hloOpcode',
        \ synIDattr(synID(14, col('.'), 1), 'name'))

  " :HloStages (CLI-free in Vim: from the dump names)
  HloStages
  let s:stages = map(getqflist(), 'fnamemodify(bufname(v:val.bufnr), ":t")')
  call s:check(':HloStages', len(s:stages) == 4 && index(s:stages, 'module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt') >= 0, s:stages)
  cclose

  " :HloSearch fills the quickfix list (hlo-lsp search over the dump folder)
  HloSearch kind:computation add_reducer
  let s:hits = map(getqflist(), '[fnamemodify(bufname(v:val.bufnr), ":t"), v:val.lnum, v:val.text]')
  call s:check(':HloSearch', index(s:hits, ['module_0001.jit_f.before_optimizations.txt', 3, 'computation add_reducer']) >= 0, s:hits)

  " the compilation history, through ALE's connection to hlo-lsp (asynchronous): pass
  " dumps 0003 (algsimp: adds %one, renames %spread, swaps %out's operands), 0004 (dce)
  let s:algsimp = 'module_0001.jit_f.0003.simplification.after_algsimp.before_dce.txt'
  let s:dce = 'module_0001.jit_f.0004.simplification.after_dce.before_fusion.txt'
  execute 'edit ' . fnameescape(s:fixtures . '/module_0001.jit_f.before_optimizations.txt')
  HloNextPass
  call s:wait('expand("%:t") ==# s:algsimp', 10000)
  let s:went = [expand('%:t')]
  HloNextPass
  call s:wait('expand("%:t") ==# s:dce', 10000)
  call s:check(':HloNextPass', s:went[0] ==# s:algsimp && expand('%:t') ==# s:dce, s:went + [expand('%:t')])
  HloPrevPass
  call s:wait('expand("%:t") ==# s:algsimp', 10000)
  call s:check(':HloPrevPass', expand('%:t') ==# s:algsimp, expand('%:t'))

  function! s:Entries() abort
    return map(getqflist(), {_, i -> matchstr(bufname(i.bufnr), '\.\zs\d\{4}\ze\.') . ':' . i.lnum . ' ' . i.text})
  endfunction
  function! s:Has(entries, prefix) abort
    return !empty(filter(copy(a:entries), {_, e -> stridx(e, a:prefix) == 0}))
  endfunction
  call setqflist([], ' ', {'title': 'cleared'})
  HloDiff
  call s:wait('getqflist({"title": 1}).title =~# "^HloDiff"', 10000)
  let s:title = getqflist({'title': 1}).title
  let s:entries = s:Entries()
  call s:check(':HloDiff', s:title =~# 'before_optimizations.* -> .*0003' && s:Has(s:entries, '0003:14 + main one constant')
        \ && s:Has(s:entries, '0003:16 > main spread -> broadcast.1') && s:Has(s:entries, '0003:17 ~ main out operands'),
        \ [s:title, s:entries])
  cclose
  execute 'edit ' . fnameescape(s:fixtures . '/' . s:dce)
  call setqflist([], ' ', {'title': 'cleared'})
  execute 'HloDiff ' . fnameescape(s:fixtures . '/' . s:algsimp)
  call s:wait('getqflist({"title": 1}).title =~# "^HloDiff"', 10000)
  let s:title = getqflist({'title': 1}).title
  let s:entries = s:Entries()
  call s:check(':HloDiff FILE', s:title =~# '0003.* -> .*0004' && len(s:entries) == 1
        \ && s:Has(s:entries, '0003:14 - main one constant'), [s:title, s:entries])
  cclose
  " :HloGraph writes the SVG (through ALE's server, else the command line) and says where.
  let g:hlo_graph_open = 0
  execute 'edit ' . fnameescape(s:fixtures . '/' . s:algsimp)
  unlet! g:hlo_graph_svg
  HloGraph one
  call s:wait('exists("g:hlo_graph_svg")', 10000)
  let s:svg = exists('g:hlo_graph_svg') ? join(readfile(g:hlo_graph_svg), "\n") : ''
  call s:check(':HloGraph NAME', stridx(s:svg, '<svg') >= 0 && stridx(s:svg, 'id="node_one"') >= 0,
        \ get(g:, 'hlo_graph_svg', 'no file'))
  " :HloMemory on a pasted OOM report: each peak buffer at the instruction it names.
  execute 'edit ' . fnameescape($ROOT . '/tests/hlo/fixtures/memory/oom.log')
  HloMemory
  let s:title = getqflist({'title': 1}).title
  let s:entries = map(getqflist(), {_, i -> fnamemodify(bufname(i.bufnr), ':t') . ':' . i.lnum . ' ' . i.text})
  cclose
  call s:check(':HloMemory (OOM log)', s:title ==# 'HloMemory oom.log'
        \ && s:Has(s:entries, 'module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt:12 Buffer 2: 16 bytes add f32[4] -> main.5 add.1'),
        \ [s:title, s:entries])
  " :HloReplay (hlo-lsp replay --json in Vim): a scratch buffer with each output's
  " statistics, the first NaN in the quickfix list. The snapshot's arguments {0, 3}
  " make %q (line 5) divide 0 by 0.
  let s:nanmod = s:fixtures . '/module_0005.nanmod.before_optimizations.txt'
  let s:snapshot = s:fixtures . '/module_0005.nanmod.hlo_snapshot.pb'
  execute 'edit ' . fnameescape(s:nanmod)
  let s:complete = hlo#ReplayComplete('', 'HloReplay ', 10)
  call s:check(':HloReplay completion (no gpu in Vim by default)', index(s:complete, 'snapshot=' . s:snapshot) >= 0
        \ && index(s:complete, 'fake') >= 0 && index(s:complete, 'gpu') < 0, s:complete)
  call setqflist([], ' ', {'title': 'cleared'})
  execute 'HloReplay cpu snapshot=' . fnameescape(s:snapshot)
  call s:wait('bufnr("hlo-replay://module_0005.nanmod.before_optimizations.txt") > 0', 20000)
  let s:lines = getbufline(bufnr('hlo-replay://module_0005.nanmod.before_optimizations.txt'), 1, '$')
  call s:check(':HloReplay', !empty(filter(copy(s:lines), 'v:val =~# "^out0 \\+f32\\[2\\]"'))
        \ && !empty(filter(copy(s:lines), 'v:val =~# "^first NaN/Inf: %q divide at line 5"')), s:lines)
  let s:qf = getqflist()
  call s:check(':HloReplay NaN origin in the quickfix list', len(s:qf) == 1 && s:qf[0].lnum == 5
        \ && getqflist({'title': 1}).title =~# '^HloReplay', s:qf)
  " :HloReplayCancel stops an endless replay (the hlo-lsp replay job) at once.
  call writefile(['HloModule endless', '', '%c (p: s32[]) -> pred[] {', '  %p = s32[] parameter(0)',
        \ '  ROOT %t = pred[] constant(true)', '}', '', '%b (p: s32[]) -> s32[] {', '  %p = s32[] parameter(0)',
        \ '  %one = s32[] constant(1)', '  ROOT %n = s32[] add(%p, %one)', '}', '',
        \ 'ENTRY %e () -> s32[] {', '  %z = s32[] constant(0)', '  ROOT %w = s32[] while(%z), condition=%c, body=%b', '}'],
        \ 'endless.hlo')
  edit endless.hlo
  let s:t0 = reltime()
  HloReplay timeout=60
  sleep 500m
  HloReplayCancel
  call s:wait('bufnr("hlo-replay://endless.hlo") > 0', 10000)
  let s:lines = getbufline(bufnr('hlo-replay://endless.hlo'), 1, '$')
  call s:check(':HloReplayCancel', index(s:lines, 'outcome: cancelled (- s)') >= 0 && reltimefloat(reltime(s:t0)) < 10, [s:lines, reltimefloat(reltime(s:t0))])
catch
  call s:check('script', 0, v:exception . ' at ' . v:throwpoint)
endtry
call s:finish()
