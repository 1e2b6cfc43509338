" ALE linter for HLO: hlo-lsp over stdio. ALE loads this file by itself for the `hlo`
" filetype when editors/vim is on the runtimepath. Settings:
"   g:ale_hlo_hlo_lsp_executable  (default: g:hlo_lsp_path, $HLO_LSP, else hlo-lsp)
"   g:ale_hlo_hlo_lsp_options     (extra arguments)
"   g:hlo_verify                  (the server's hlo.verify setting: 'auto', 'off', or
"                                  XLA verifier option names, a list or a comma list)

call ale#Set('hlo_hlo_lsp_executable', '')
call ale#Set('hlo_hlo_lsp_options', '')

function! ale_linters#hlo#hlo_lsp#GetExecutable(buffer) abort
  let l:exe = ale#Var(a:buffer, 'hlo_hlo_lsp_executable')
  return empty(l:exe) ? hlo#Executable() : l:exe
endfunction

function! ale_linters#hlo#hlo_lsp#GetCommand(buffer) abort
  return '%e' . ale#Pad(ale#Var(a:buffer, 'hlo_hlo_lsp_options'))
endfunction

" The server's settings at start: hlo.verify when g:hlo_verify is set.
function! ale_linters#hlo#hlo_lsp#GetInitializationOptions(buffer) abort
  return exists('g:hlo_verify') ? {'verify': g:hlo_verify} : {}
endfunction

" ALE starts no LSP linter without a project root. A dump folder has no marker files:
" use the nearest .git folder's parent, else the file's own folder.
function! ale_linters#hlo#hlo_lsp#GetProjectRoot(buffer) abort
  let l:git = ale#path#FindNearestDirectory(a:buffer, '.git')
  return !empty(l:git) ? fnamemodify(l:git, ':h:h') : hlo#Root(a:buffer)
endfunction

call ale#linter#Define('hlo', {
\   'name': 'hlo_lsp',
\   'lsp': 'stdio',
\   'executable': function('ale_linters#hlo#hlo_lsp#GetExecutable'),
\   'command': function('ale_linters#hlo#hlo_lsp#GetCommand'),
\   'project_root': function('ale_linters#hlo#hlo_lsp#GetProjectRoot'),
\   'initialization_options': function('ale_linters#hlo#hlo_lsp#GetInitializationOptions'),
\   'language': 'hlo',
\})
