" HLO commands for Vim and Neovim. In Neovim, when an hlo-lsp client is attached and
" advertises the command (executeCommandProvider), the request goes to the server
" (lua/hlo/init.lua); otherwise, and in Vim, the same action runs through the
" hlo-lsp command line, which implements convert, search and replay itself.

" The server/CLI executable: g:hlo_lsp_path, else $HLO_LSP, else hlo-lsp on PATH.
function! hlo#Executable() abort
  if !empty(get(g:, 'hlo_lsp_path', ''))
    return expand(g:hlo_lsp_path)
  endif
  return empty($HLO_LSP) ? 'hlo-lsp' : $HLO_LSP
endfunction

" Folder the language server and searches are rooted at: the dump folder of the file.
function! hlo#Root(bufnr) abort
  let l:name = bufname(a:bufnr)
  return empty(l:name) ? getcwd() : fnamemodify(l:name, ':p:h')
endfunction

function! s:Lsp(command, args) abort
  if !has('nvim')
    return 0
  endif
  return luaeval('require("hlo").execute(_A[1], _A[2])', [a:command, a:args])
endfunction

function! s:Uri(path) abort
  let l:path = fnamemodify(a:path, ':p')
  return 'file://' . substitute(l:path, '[^A-Za-z0-9/._~-]', '\=printf("%%%02X", char2nr(submatch(0)))', 'g')
endfunction

function! s:Run(argv) abort
  let l:out = system(join(map(copy(a:argv), 'shellescape(v:val)'), ' '))
  return [v:shell_error, l:out]
endfunction

" A read-only scratch buffer holding LINES, in a new split.
function! hlo#Scratch(name, lines, filetype) abort
  execute 'botright new'
  setlocal buftype=nofile bufhidden=wipe noswapfile
  silent! execute 'file ' . fnameescape(a:name)
  call setline(1, a:lines)
  if !empty(a:filetype)
    execute 'setlocal filetype=' . a:filetype
  endif
  setlocal nomodifiable readonly
endfunction

" Read a binary proto dump as HLO text into the current buffer (BufReadCmd).
function! hlo#ReadProto(path) abort
  let [l:rc, l:out] = s:Run([hlo#Executable(), 'convert', a:path, '--to', 'text'])
  setlocal modifiable noreadonly
  silent %delete _
  if l:rc != 0
    call setline(1, ['// hlo-lsp convert failed (exit ' . l:rc . ') for ' . a:path]
          \ + map(split(l:out, "\n"), '"// " . v:val'))
  else
    call setline(1, split(l:out, "\n"))
  endif
  " The buffer shows the converted text: writing it back would destroy the proto.
  setlocal buftype=nowrite nomodified readonly nomodifiable noswapfile
  setlocal filetype=hlo
endfunction

" :HloConvert: a proto buffer shows its text in a scratch buffer; an HLO text buffer is
" exported to an HloProto next to it (X.txt -> X.pb).
function! hlo#Convert(...) abort
  let l:path = a:0 && !empty(a:1) ? fnamemodify(a:1, ':p') : expand('%:p')
  if empty(l:path)
    echohl ErrorMsg | echo 'HloConvert: no file' | echohl None | return
  endif
  let l:to_text = l:path =~# '\.pb\(\.gz\)\=$'
  if s:Lsp(l:to_text ? 'hlo.convertToText' : 'hlo.exportProto', {'uri': s:Uri(l:path)})
    return
  endif
  if l:to_text
    let [l:rc, l:out] = s:Run([hlo#Executable(), 'convert', l:path, '--to', 'text'])
    if l:rc == 0
      call hlo#Scratch('hlo-proto://' . substitute(l:path, '\.pb\(\.gz\)\=$', '', '') . '.txt', split(l:out, "\n"), 'hlo')
    endif
  else
    let l:dest = substitute(l:path, '\(\.hlo\)\=\(\.txt\)\=$', '', '') . '.pb'
    let [l:rc, l:out] = s:Run([hlo#Executable(), 'convert', l:path, '--to', 'proto', '-o', l:dest])
    if l:rc == 0
      echo 'HloConvert: wrote ' . l:dest
    endif
  endif
  if l:rc != 0
    echohl ErrorMsg | echo 'HloConvert failed (exit ' . l:rc . '): ' . l:out | echohl None
  endif
endfunction

" :HloSearch QUERY: matches under the dump folder, in the quickfix list.
function! hlo#Search(query) abort
  if empty(a:query)
    echohl ErrorMsg | echo 'usage: HloSearch QUERY' | echohl None | return
  endif
  if s:Lsp('hlo.search', {'query': a:query, 'root': hlo#Root('')})
    return
  endif
  let l:root = hlo#Root('')
  let [l:rc, l:out] = s:Run([hlo#Executable(), 'search', '--dir', l:root, a:query])
  if l:rc > 1
    echohl ErrorMsg | echo 'HloSearch failed: ' . l:out | echohl None | return
  endif
  let l:efm = &errorformat
  try
    let &errorformat = '%f:%l:%c: %m'
    cgetexpr split(l:out, "\n")
  finally
    let &errorformat = l:efm
  endtry
  call setqflist([], 'a', {'title': 'HloSearch ' . a:query})
  if l:rc == 1
    echo 'HloSearch: no match for ' . a:query
  else
    copen
  endif
endfunction

" XLA dump name parts: [prefix.]module_NNNN[.name].<stage>.txt
function! s:DumpKey(tail) abort
  return matchstr(a:tail, '^\(\d\+\.\)\=module_\d\+\.')
endfunction

" :HloStages: the other stages of this module (same module_NNNN in the dump folder).
function! hlo#Stages() abort
  let l:path = expand('%:p')
  if s:Lsp('hlo.moduleFiles', {'uri': s:Uri(l:path)})
    return
  endif
  let l:key = s:DumpKey(fnamemodify(l:path, ':t'))
  if empty(l:key)
    echohl ErrorMsg | echo 'HloStages: not an XLA dump name (module_NNNN...)' | echohl None | return
  endif
  let l:items = []
  for l:f in sort(glob(fnamemodify(l:path, ':h') . '/' . l:key . '*', 0, 1))
    let l:tail = fnamemodify(l:f, ':t')
    if l:tail =~# '-\(buffer-assignment\|memory-usage-report\)\.' || l:tail !~# '\.\(txt\|pb\|pb\.gz\)$'
      continue
    endif
    let l:stage = substitute(l:tail[len(l:key):], '\.\(txt\|hlo\.pb\|pb\|pb\.gz\)$', '', '')
    call add(l:items, {'filename': l:f, 'lnum': 1, 'text': l:stage})
  endfor
  call setqflist([], ' ', {'title': 'HloStages ' . l:key, 'items': l:items})
  copen
endfunction

" --- Replay: :HloReplay [cpu|gpu] [fake] [snapshot=FILE] [timeout=SECONDS] ---

" Whether a GPU answered: the attached server's initialize result in Neovim
" (experimental.gpu), else g:hlo_gpu (Vim has no server to ask; default: no). The
" GPU choices are offered only where it is true.
function! hlo#GpuAvailable() abort
  if has('nvim') && luaeval('require("hlo").client(0) ~= nil')
    return luaeval('require("hlo").gpu_available()')
  endif
  return get(g:, 'hlo_gpu', 0)
endfunction

" The module's snapshots (`hlo-lsp files --json`, kind "snapshot").
function! hlo#Snapshots(path) abort
  let [l:rc, l:out] = s:Run([hlo#Executable(), 'files', a:path, '--json'])
  if l:rc != 0
    return []
  endif
  let l:files = filter(get(json_decode(l:out), 'files', []), {_, f -> get(f, 'kind', '') ==# 'snapshot'})
  return map(l:files, {_, f -> fnamemodify(f.path, ':p')})
endfunction

" :HloReplay's words as hlo.replay's arguments {uri, platform, fakeData?, snapshot?,
" timeout}; {'error': ...} for a word it does not know.
function! hlo#ReplayArgs(path, words) abort
  let l:args = {'uri': s:Uri(a:path), 'platform': 'cpu', 'timeout': get(g:, 'hlo_replay_timeout', 600)}
  for l:w in a:words
    if l:w ==# 'cpu' || l:w ==# 'gpu'
      let l:args.platform = l:w
    elseif l:w ==# 'fake'
      let l:args.fakeData = v:true
    elseif l:w =~# '^snapshot='
      let l:args.snapshot = s:Uri(fnamemodify(l:w[9:], ':p'))
    elseif l:w =~# '^timeout=\d\+$'
      let l:args.timeout = str2nr(l:w[8:])
    else
      return {'error': 'HloReplay: unknown argument ' . l:w . ' (cpu|gpu, fake, snapshot=FILE, timeout=SECONDS)'}
    endif
  endfor
  return l:args
endfunction

function! s:Num(v) abort
  return type(a:v) == v:t_float ? printf('%.6g', a:v) : type(a:v) == v:t_number ? string(a:v) : '-'
endfunction

" The results as lines: summary, each output's shape, statistics and first values, the
" first instruction that made a NaN or an Inf. RESULT: hlo/replayResult's answer, or
" `hlo-lsp replay --json`'s (outputs' `preview`, `first_nonfinite`).
function! hlo#ReplayLines(result) abort
  let l:r = a:result
  let l:lines = [get(l:r, 'summary', printf('replay of %s on %s: %s', get(l:r, 'module', '?'),
        \ get(l:r, 'platform', '?'), get(l:r, 'outcome', '?')))]
  call add(l:lines, printf('outcome: %s (%s s)', get(l:r, 'outcome', '?'), s:Num(get(l:r, 'seconds', v:null))))
  if !empty(get(l:r, 'error', ''))
    call add(l:lines, 'error: ' . l:r.error)
  endif
  call add(l:lines, '')
  if !empty(get(l:r, 'outputs', []))
    call add(l:lines, printf('%-8s %-20s %12s %12s %12s %6s %6s', 'output', 'shape', 'min', 'max', 'mean', 'NaN', 'Inf'))
  endif
  for l:o in get(l:r, 'outputs', [])
    call add(l:lines, printf('%-8s %-20s %12s %12s %12s %6s %6s', l:o.name, get(l:o, 'shape', ''),
          \ s:Num(get(l:o, 'min', v:null)), s:Num(get(l:o, 'max', v:null)), s:Num(get(l:o, 'mean', v:null)),
          \ s:Num(get(l:o, 'nan', v:null)), s:Num(get(l:o, 'inf', v:null))))
    call add(l:lines, '  first values: ' . substitute(get(l:o, 'value', get(l:o, 'preview', '')), '\n', ' ', 'g'))
  endfor
  call add(l:lines, '')
  let l:origin = s:Origin(l:r)
  if type(l:origin) == v:t_dict
    call add(l:lines, printf('first NaN/Inf: %%%s %s at line %d: %s NaN, %s Inf (quickfix list)', l:origin.name,
          \ get(l:origin, 'opcode', ''), l:origin.line, s:Num(get(l:origin, 'nan', 0)), s:Num(get(l:origin, 'inf', 0))))
  elseif get(l:r, 'outcome', '') ==# 'ok'
    call add(l:lines, 'first NaN/Inf: none produced')
  endif
  for l:n in get(l:r, 'notes', [])
    call add(l:lines, 'note: ' . l:n)
  endfor
  return l:lines
endfunction

function! s:Origin(r) abort
  let l:o = get(a:r, 'firstNonFinite', get(a:r, 'first_nonfinite', v:null))
  return type(l:o) == v:t_dict ? l:o : v:null
endfunction

" Shows a replay of PATH: the scratch buffer hlo-replay://NAME, and the NaN origin as
" the quickfix list's entry (title "HloReplay NAME").
function! hlo#ShowReplay(path, result) abort
  let s:replay_job = v:null
  let l:r = type(a:result) == v:t_dict ? a:result : {'summary': string(a:result)}
  let l:name = 'hlo-replay://' . fnamemodify(a:path, ':t')
  if bufexists(l:name)
    execute 'silent! bwipeout ' . bufnr(l:name)
  endif
  call hlo#Scratch(l:name, hlo#ReplayLines(l:r), '')
  let l:origin = s:Origin(l:r)
  if type(l:origin) == v:t_dict
    call setqflist([], ' ', {'title': 'HloReplay ' . fnamemodify(a:path, ':t'),
          \ 'items': [{'filename': a:path, 'lnum': l:origin.line,
          \            'text': printf('first NaN/Inf: %%%s %s (%s NaN, %s Inf)', l:origin.name,
          \                           get(l:origin, 'opcode', ''), s:Num(get(l:origin, 'nan', 0)), s:Num(get(l:origin, 'inf', 0)))}]})
  endif
endfunction

let s:replay_job = v:null
let s:replay_cancelled = 0

" :HloReplay [cpu|gpu] [fake] [snapshot=FILE] [timeout=SECONDS]: runs this module in the
" background (hlo.replay on Neovim's attached server, else `hlo-lsp replay --json`):
" with a snapshot's arguments, or fake ones; time limit g:hlo_replay_timeout (600 s).
" :HloReplayCancel stops it.
function! hlo#Replay(...) abort
  let l:path = expand('%:p')
  let l:args = hlo#ReplayArgs(l:path, split(a:0 ? a:1 : ''))
  if has_key(l:args, 'error')
    return s:Error(l:args.error)
  endif
  if l:args.platform ==# 'gpu' && !hlo#GpuAvailable()
    return s:Error('HloReplay: no GPU answered on this machine (let g:hlo_gpu = 1 to try anyway)')
  endif
  if s:Lsp('hlo.replay', l:args)
    return
  endif
  let l:argv = [hlo#Executable(), 'replay', l:path, '--platform', l:args.platform, '--json', '--stats',
        \ '--timeout', string(l:args.timeout)]
  if get(l:args, 'fakeData', v:false)
    let l:argv += ['--force-fake-data']
  endif
  if has_key(l:args, 'snapshot')
    let l:argv += ['--snapshot', s:Path(l:args.snapshot)]
  endif
  let l:out = []
  echomsg 'HloReplay: running ' . fnamemodify(l:path, ':t') . ' (:HloReplayCancel stops it)'
  if has('nvim')
    let s:replay_job = jobstart(l:argv, {'stdout_buffered': v:true,
          \ 'on_stdout': {j, data, e -> extend(l:out, data)},
          \ 'on_exit': {j, code, e -> s:ReplayDone(l:path, l:out, code)}})
  else
    " close_cb: all of stdout has been read (exit_cb may come before it).
    let s:replay_job = job_start(l:argv, {'out_cb': {ch, line -> add(l:out, line)}, 'err_io': 'null',
          \ 'close_cb': {ch -> s:ReplayDone(l:path, l:out, -1)}})
  endif
endfunction

function! s:ReplayDone(path, out, code) abort
  let l:text = join(a:out, "\n")
  let l:r = v:null
  try
    let l:r = json_decode(l:text)
  catch
  endtry
  if type(l:r) != v:t_dict
    let l:r = s:replay_cancelled
          \ ? {'summary': 'replay cancelled', 'outcome': 'cancelled'}
          \ : {'summary': 'hlo-lsp replay: no report', 'outcome': 'failed', 'error': l:text}
  endif
  let s:replay_cancelled = 0
  call hlo#ShowReplay(a:path, l:r)
endfunction

" :HloReplayCancel: stops the running replay (Neovim's server: cancels hlo/replayResult,
" which kills the server's replay child; else the hlo-lsp replay job).
function! hlo#ReplayCancel() abort
  if has('nvim') && luaeval('require("hlo").cancel_replay()')
    return
  endif
  if s:replay_job is v:null
    return s:Error('HloReplayCancel: no replay is running')
  endif
  let s:replay_cancelled = 1
  if has('nvim')
    call jobstop(s:replay_job)
  else
    call job_stop(s:replay_job, 'kill')
  endif
endfunction

" Completion of :HloReplay: the platforms (gpu only where a GPU answered), fake, and
" snapshot=FILE for each of the module's snapshots.
function! hlo#ReplayComplete(lead, line, pos) abort
  let l:words = ['cpu'] + (hlo#GpuAvailable() ? ['gpu'] : []) + ['fake', 'timeout=']
  let l:words += map(hlo#Snapshots(expand('%:p')), {_, p -> 'snapshot=' . fnameescape(p)})
  return filter(l:words, {_, w -> stridx(w, a:lead) == 0})
endfunction

" --- The compilation history of a module: :HloPrevPass, :HloNextPass, :HloDiff ---

function! s:Path(uri) abort
  let l:path = substitute(a:uri, '^file://', '', '')
  return substitute(l:path, '%\(\x\x\)', '\=nr2char(str2nr(submatch(1), 16))', 'g')
endfunction

function! s:Error(msg) abort
  echohl ErrorMsg | echomsg a:msg | echohl None
endfunction

" Position of a dump in its module's pipeline, from its name: before_optimizations,
" then the pass dumps by step (NNNN.PIPELINE.after_PASS...), then the other stages.
function! s:Rank(path) abort
  let l:tail = fnamemodify(a:path, ':t')
  if l:tail =~# 'before_optimizations\.txt$'
    return 0
  endif
  let l:step = matchstr(l:tail, '\.\zs\d\{4}\ze\.[^.]\+\.after_')
  return empty(l:step) ? 1000000 : 1 + str2nr(l:step, 10)
endfunction

" The answer of `hlo-lsp files --json` turned into hlo.previousPass/nextPass's, and
" `hlo-lsp diff --json`'s into hlo.diff's: for when no server is running.
function! s:Cli(command, args) abort
  let l:path = s:Path(a:args.uri)
  if a:command ==# 'hlo.graph'
    let l:svg = tempname() . '.svg'
    let l:argv = [hlo#Executable(), 'graph', l:path, '-o', l:svg]
    if !empty(get(a:args, 'name', ''))
      let l:argv += ['--around', a:args.name, '--depth', string(get(a:args, 'depth', 2))]
    endif
    let [l:rc, l:out] = s:Run(l:argv)
    if l:rc != 0
      call s:Error('hlo-lsp graph failed (exit ' . l:rc . '): ' . l:out)
      return v:null
    endif
    return {'svg': join(readfile(l:svg, 'b'), "\n"), 'cut': l:out =~# 'cut:'}
  endif
  if a:command ==# 'hlo.bisect'
    let [l:rc, l:out] = s:Run([hlo#Executable(), 'replay', '--bisect', l:path,
          \ '--timeout', string(get(a:args, 'timeout', 600))])
    return s:BisectFromCli(l:rc, l:out)
  endif
  if a:command ==# 'hlo.diff'
    let l:other = s:Path(a:args.otherUri)
    let [l:rc, l:out] = s:Run([hlo#Executable(), 'diff', l:path, l:other, '--json'])
    if l:rc > 1
      call s:Error('hlo-lsp diff failed (exit ' . l:rc . '): ' . l:out)
      return v:null
    endif
    return extend(json_decode(l:out), {'a': a:args.uri, 'b': a:args.otherUri})
  endif
  let [l:rc, l:out] = s:Run([hlo#Executable(), 'files', l:path, '--json'])
  if l:rc != 0
    call s:Error('hlo-lsp files failed (exit ' . l:rc . '): ' . l:out)
    return v:null
  endif
  let l:dumps = filter(get(json_decode(l:out), 'files', []),
        \ {_, f -> index(['stage', 'pass'], get(f, 'kind', '')) >= 0 && f.path =~# '\.txt$'})
  let l:paths = sort(map(l:dumps, {_, f -> fnamemodify(f.path, ':p')}),
        \ {x, y -> s:Rank(x) - s:Rank(y)})
  let l:i = index(l:paths, fnamemodify(l:path, ':p')) + (a:command ==# 'hlo.nextPass' ? 1 : -1)
  return l:i < 0 || l:i >= len(l:paths) ? v:null : {'uri': s:Uri(l:paths[l:i])}
endfunction

function! s:OnAleResponse(command, args, Done, response) abort
  call a:Done(has_key(a:response, 'error') ? s:Cli(a:command, a:args)
        \ : get(a:response, 'result', v:null))
endfunction

" Calls Done(answer) for server COMMAND {args}: through Neovim's client, through
" ALE's connection to hlo-lsp in Vim (asynchronously), else the command line.
function! s:Command(command, args, Done) abort
  if has('nvim')
    let l:r = luaeval('require("hlo").run_command(_A[1], _A[2])', [a:command, a:args])
    if get(l:r, 'handled', v:false)
      return a:Done(get(l:r, 'result', v:null))
    endif
  elseif exists(':ALELint') == 2
    try
      if ale#lsp_linter#SendRequest(bufnr(''), 'hlo_lsp',
            \ [0, 'workspace/executeCommand', {'command': a:command, 'arguments': [a:args]}],
            \ function('s:OnAleResponse', [a:command, a:args, a:Done]))
        return
      endif
    catch /^Linter/
    endtry
  endif
  call a:Done(s:Cli(a:command, a:args))
endfunction

" Opens the dump hlo.previousPass / hlo.nextPass answered for FROM (path).
function! hlo#OpenDump(from, command, result) abort
  if type(a:result) == v:t_dict && !empty(get(a:result, 'uri', ''))
    execute 'edit ' . fnameescape(s:Path(a:result.uri))
  else
    echomsg printf('%s: %s is the %s HLO dump of its module', a:command =~# 'next' ? 'HloNextPass' : 'HloPrevPass',
          \ fnamemodify(a:from, ':t'), a:command =~# 'next' ? 'last' : 'first')
  endif
endfunction

" :HloPrevPass / :HloNextPass: open the HLO text dump before / after this one.
function! hlo#StepPass(command) abort
  let l:path = expand('%:p')
  call s:Command(a:command, {'uri': s:Uri(l:path)}, function('hlo#OpenDump', [l:path, a:command]))
endfunction

function! s:Line(value) abort
  return type(a:value) == v:t_number && a:value > 0 ? a:value : 1
endfunction

" 1-based line of computation NAME's header in PATH.
function! s:ComputationLine(path, name) abort
  let l:re = '^\s*\(ENTRY\s\+\)\=%\=\V' . escape(a:name, '\') . '\m\s*[({]'
  let l:lines = filereadable(a:path) ? readfile(a:path) : []
  let l:i = match(l:lines, l:re)
  return l:i < 0 ? 1 : l:i + 1
endfunction

" The hlo.diff answer as a quickfix list: one entry per difference, at its line in B
" (removed ones at their line in A), titled with both files.
function! hlo#ShowDiff(result) abort
  if type(a:result) != v:t_dict
    return
  endif
  let [l:a, l:b] = [s:Path(a:result.a), s:Path(a:result.b)]
  let l:items = []
  let l:comps = get(a:result, 'computations', {})
  let l:comps = type(l:comps) == v:t_dict ? l:comps : {}
  for l:name in get(l:comps, 'added', [])
    call add(l:items, {'filename': l:b, 'lnum': s:ComputationLine(l:b, l:name), 'text': '+ computation ' . l:name})
  endfor
  for l:name in get(l:comps, 'removed', [])
    call add(l:items, {'filename': l:a, 'lnum': s:ComputationLine(l:a, l:name), 'text': '- computation ' . l:name})
  endfor
  for l:i in get(a:result, 'added', [])
    call add(l:items, {'filename': l:b, 'lnum': s:Line(get(l:i, 'line')),
          \ 'text': printf('+ %s %s %s %s', l:i.computation, l:i.name, get(l:i, 'opcode', ''), get(l:i, 'shape', ''))})
  endfor
  for l:i in get(a:result, 'removed', [])
    call add(l:items, {'filename': l:a, 'lnum': s:Line(get(l:i, 'line')),
          \ 'text': printf('- %s %s %s %s', l:i.computation, l:i.name, get(l:i, 'opcode', ''), get(l:i, 'shape', ''))})
  endfor
  for l:r in get(a:result, 'renamed', [])
    let l:in_b = type(get(l:r, 'line', v:null)) == v:t_number || type(get(l:r, 'oldLine', v:null)) != v:t_number
    call add(l:items, {'filename': l:in_b ? l:b : l:a, 'lnum': s:Line(get(l:r, l:in_b ? 'line' : 'oldLine')),
          \ 'text': printf('> %s %s -> %s', l:r.computation, l:r.from, l:r.to)})
  endfor
  for l:c in get(a:result, 'changed', [])
    let l:in_b = type(get(l:c, 'line', v:null)) == v:t_number || type(get(l:c, 'oldLine', v:null)) != v:t_number
    call add(l:items, {'filename': l:in_b ? l:b : l:a, 'lnum': s:Line(get(l:c, l:in_b ? 'line' : 'oldLine')),
          \ 'text': printf('~ %s %s %s: %s -> %s', l:c.computation, l:c.name, l:c.field, l:c.old, l:c.new)})
  endfor
  let l:title = 'HloDiff ' . fnamemodify(l:a, ':t') . ' -> ' . fnamemodify(l:b, ':t')
  call setqflist([], ' ', {'title': l:title, 'items': l:items})
  if empty(l:items)
    echomsg l:title . ': no structural differences'
  else
    copen
  endif
endfunction

function! s:DiffWithPrevious(path, previous) abort
  if type(a:previous) != v:t_dict || empty(get(a:previous, 'uri', ''))
    return hlo#OpenDump(a:path, 'hlo.previousPass', v:null)
  endif
  call s:Command('hlo.diff', {'uri': a:previous.uri, 'otherUri': s:Uri(a:path)}, function('hlo#ShowDiff'))
endfunction

" :HloDiff [FILE]: the structural diff of this dump against FILE (the one earlier in
" the pipeline is side A), or against the previous pass dump, in the quickfix list.
function! hlo#Diff(...) abort
  let l:path = expand('%:p')
  if a:0 && !empty(a:1)
    let l:other = fnamemodify(a:1, ':p')
    let [l:a, l:b] = s:Rank(l:other) > s:Rank(l:path) ? [l:path, l:other] : [l:other, l:path]
    call s:Command('hlo.diff', {'uri': s:Uri(l:a), 'otherUri': s:Uri(l:b)}, function('hlo#ShowDiff'))
  else
    call s:Command('hlo.previousPass', {'uri': s:Uri(l:path)}, function('s:DiffWithPrevious', [l:path]))
  endif
endfunction

" Server commands run from Neovim code lenses (vim.lsp.commands): show the answer.
function! hlo#CommandResult(command, args, result) abort
  if a:command ==# 'hlo.diff'
    call hlo#ShowDiff(type(a:result) == v:t_dict
          \ ? extend({'a': a:args.uri, 'b': a:args.otherUri}, a:result) : a:result)
  elseif a:command =~# '^hlo\.\(previous\|next\)Pass$'
    call hlo#OpenDump(s:Path(a:args.uri), a:command, a:result)
  elseif a:command ==# 'hlo.bisect'
    call hlo#ShowBisect(a:result)
  endif
endfunction

" --- :HloBisect [fake] [snapshot=FILE] [timeout=SECONDS]: the pass that changed the result ---

" hlo.bisect's answer: the dump before the pass, the one after it and the first
" differing instruction in the quickfix list (title "HloBisect MODULE"), the summary
" echoed; g:hlo_bisect keeps the answer.
function! hlo#ShowBisect(result) abort
  if type(a:result) != v:t_dict
    return
  endif
  let g:hlo_bisect = a:result
  let l:label = get(a:result, 'label', '')
  let l:items = []
  if !empty(get(a:result, 'beforeUri', ''))
    call add(l:items, {'filename': s:Path(a:result.beforeUri), 'lnum': 1, 'text': 'before ' . l:label})
  endif
  if !empty(get(a:result, 'afterUri', ''))
    let l:what = get(a:result, 'outcome', '') ==# 'changed' ? 'after ' . l:label . ': the result changed'
          \ : get(a:result, 'outcome', '') ==# 'signature' ? l:label . ': the entry signature changed'
          \ : get(a:result, 'error', l:label)
    call add(l:items, {'filename': s:Path(a:result.afterUri), 'lnum': 1, 'text': l:what})
  endif
  let l:i = get(a:result, 'instruction', v:null)
  if type(l:i) == v:t_dict && !empty(get(a:result, 'afterUri', ''))
    call add(l:items, {'filename': s:Path(a:result.afterUri), 'lnum': s:Line(get(l:i, 'line')),
          \ 'text': printf('first differing instruction %%%s %s: %s', l:i.name, get(l:i, 'opcode', ''), get(l:i, 'detail', ''))})
  endif
  for l:m in get(a:result, 'mismatches', [])
    call add(l:items, {'text': 'mismatch: ' . l:m, 'valid': 0})
  endfor
  call setqflist([], ' ', {'title': 'HloBisect ' . get(a:result, 'module', ''), 'items': l:items})
  if !empty(l:items)
    copen
    wincmd p
  endif
  echomsg 'HloBisect: ' . get(a:result, 'summary', '')
endfunction

" `hlo-lsp replay --bisect`'s lines as hlo.bisect's answer, for when no server runs
" (the command line bisects on fake data only).
function! s:BisectFromCli(rc, out) abort
  let l:r = {'outcome': a:rc == 0 ? 'unchanged' : a:rc == 3 ? 'failed' : 'refused', 'mismatches': []}
  for l:line in split(a:out, "\n")
    let l:m = matchlist(l:line, '^first difference: \(.*\) (\(.*\)), against \(.*\)$')
    if !empty(l:m)
      let [l:r.outcome, l:r.label, l:r.afterUri, l:r.beforeUri] = ['changed', l:m[1], s:Uri(l:m[2]), s:Uri(l:m[3])]
    endif
    let l:m = matchlist(l:line, '^  the dump before it: \(.*\)$')
    if !empty(l:m)
      let l:r.beforeUri = s:Uri(l:m[1])
    endif
    let l:m = matchlist(l:line, '^stop: the entry signature changes at \(.*\) (\(.*\)):')
    if !empty(l:m)
      let [l:r.outcome, l:r.label, l:r.afterUri] = ['signature', l:m[1], s:Uri(l:m[2])]
    endif
    if l:line =~# '^mismatch: '
      call add(l:r.mismatches, l:line[10:])
    endif
  endfor
  let l:r.summary = l:r.outcome ==# 'changed' ? l:r.label . ' changed the result: ' . get(l:r.mismatches, 0, '')
        \ : l:r.outcome ==# 'unchanged' ? 'no pass changed the result' : trim(a:out)
  return l:r
endfunction

" :HloBisect: runs this module's stage and pass dumps in order on the same arguments
" (hlo.bisect on the server, else `hlo-lsp replay --bisect`) and shows hlo#ShowBisect.
function! hlo#Bisect(...) abort
  let l:path = expand('%:p')
  let l:args = hlo#ReplayArgs(l:path, split(a:0 ? a:1 : ''))
  if has_key(l:args, 'error') || l:args.platform !=# 'cpu'
    return s:Error('HloBisect: arguments are fake, snapshot=FILE, timeout=SECONDS (it runs on the CPU)')
  endif
  call remove(l:args, 'platform')
  echomsg 'HloBisect: running the dumps of ' . fnamemodify(l:path, ':t')
  if !s:Lsp('hlo.bisect', l:args)
    call s:Command('hlo.bisect', l:args, function('hlo#ShowBisect'))
  endif
endfunction

" Writes hlo.graph's SVG to a temporary file, says where, and opens it with the
" system viewer (xdg-open or open; g:hlo_graph_open = 0 only writes it).
function! hlo#ShowGraph(result) abort
  if type(a:result) != v:t_dict || empty(get(a:result, 'svg', ''))
    return
  endif
  let l:path = tempname() . '.svg'
  call writefile(split(a:result.svg, "\n", 1), l:path, 'b')
  let g:hlo_graph_svg = l:path
  let l:viewer = executable('xdg-open') ? 'xdg-open' : executable('open') ? 'open' : ''
  if get(g:, 'hlo_graph_open', 1) && !empty(l:viewer)
    if has('nvim')
      call jobstart([l:viewer, l:path], {'detach': v:true})
    elseif exists('*job_start')
      call job_start([l:viewer, l:path])
    endif
  endif
  echomsg printf('HloGraph: wrote %s%s%s', l:path,
        \ get(a:result, 'cut', v:false) ? ' (cut at 500 instructions)' : '',
        \ empty(l:viewer) ? '' : get(g:, 'hlo_graph_open', 1) ? ' and opened it' : '')
endfunction

" :HloGraph [NAME]: the dataflow graph of this file's ENTRY, or around instruction
" NAME (2 edges either way), as SVG (hlo.graph, else `hlo-lsp graph`).
function! hlo#Graph(...) abort
  let l:args = {'uri': s:Uri(expand('%:p')), 'depth': 2}
  if a:0 && !empty(a:1)
    let l:args.name = substitute(a:1, '^%', '', '')
  endif
  call s:Command('hlo.graph', l:args, function('hlo#ShowGraph'))
endfunction

" :HloMemory [FILE]: `hlo-lsp memory FILE --json` (FILE: this buffer by default: a
" module dump, its -buffer-assignment.txt, or a log holding XLA's OOM report).
" An OOM log's peak buffers go to the quickfix list, each at the instruction it
" names in the optimized module (and at its own line in the log when unmatched);
" otherwise totals, allocations and the peak set open in a scratch buffer.
function! hlo#Memory(...) abort
  let l:path = a:0 && !empty(a:1) ? fnamemodify(a:1, ':p') : expand('%:p')
  if empty(l:path)
    echohl ErrorMsg | echo 'HloMemory: no file' | echohl None | return
  endif
  let [l:rc, l:out] = s:Run([hlo#Executable(), 'memory', l:path, '--json'])
  if l:rc != 0
    echohl ErrorMsg | echo 'HloMemory: ' . trim(l:out) | echohl None | return
  endif
  let l:m = json_decode(l:out)
  if get(l:m, 'source', '') ==# 'oom-log'
    let l:module = get(l:m, 'module', v:null)
    let l:items = []
    for l:b in get(l:m, 'buffers', [])
      let l:what = printf('Buffer %d: %d bytes %s %s', l:b.number, l:b.size,
            \ get(l:b, 'entry_parameter', v:false) ? 'entry parameter' : l:b.label, l:b.shape)
      let l:matches = get(l:b, 'matches', [])
      if empty(l:matches) || type(l:module) != v:t_string
        call add(l:items, {'filename': l:path, 'lnum': get(l:b, 'line', 1), 'text': l:what . ' (no instruction found)'})
      endif
      for l:x in l:matches
        call add(l:items, {'filename': l:module, 'lnum': l:x.line,
              \ 'text': printf('%s -> %s %s', l:what, l:x.computation, l:x.name)})
      endfor
    endfor
    call setqflist([], ' ', {'title': 'HloMemory ' . fnamemodify(l:path, ':t'), 'items': l:items})
    copen
    return
  endif
  let [l:rc, l:text] = s:Run([hlo#Executable(), 'memory', l:path])
  call hlo#Scratch('hlo-memory://' . fnamemodify(l:path, ':t'), split(l:text, "\n"), '')
endfunction
