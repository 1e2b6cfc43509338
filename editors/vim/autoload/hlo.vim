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

" :HloReplay [cpu|gpu]: runs the module in the background; output in a scratch buffer.
function! hlo#Replay(...) abort
  let l:platform = a:0 && !empty(a:1) ? a:1 : 'cpu'
  let l:path = expand('%:p')
  if s:Lsp('hlo.replay', {'uri': s:Uri(l:path), 'platform': l:platform})
    return
  endif
  let l:argv = [hlo#Executable(), 'replay', l:path, '--platform', l:platform, '--stats']
  call hlo#Scratch('hlo-replay://' . fnamemodify(l:path, ':t') . '.' . l:platform,
        \ ['$ ' . join(l:argv, ' ')], '')
  setlocal modifiable
  let l:buf = bufnr('')
  if has('nvim')
    call jobstart(l:argv, {'on_stdout': function('s:NvimAppend', [l:buf]),
          \ 'on_stderr': function('s:NvimAppend', [l:buf]),
          \ 'on_exit': {j, code, e -> s:Append(l:buf, ['[exit ' . code . ']'])}})
  else
    call job_start(l:argv, {'out_io': 'buffer', 'out_buf': l:buf, 'err_io': 'out',
          \ 'exit_cb': {j, code -> s:Append(l:buf, ['[exit ' . code . ']'])}})
  endif
endfunction

function! s:NvimAppend(buf, job, data, event) abort
  call s:Append(a:buf, filter(copy(a:data), '!empty(v:val)'))
endfunction

function! s:Append(buf, lines) abort
  if bufexists(a:buf) && !empty(a:lines)
    call setbufvar(a:buf, '&modifiable', 1)
    call appendbufline(a:buf, '$', a:lines)
  endif
endfunction
