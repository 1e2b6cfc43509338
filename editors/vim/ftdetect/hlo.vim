" HLO file detection (languageId/filetype `hlo`), as fixed in the project's contracts:
" *.hlo, *.hlo.txt, XLA dump names whose stage is HLO text (not the
" -buffer-assignment / -memory-usage-report companions), and any .txt/.pbtxt whose
" first token is `HloModule`. `set filetype` (not `setf`): Vim's own *.txt rule
" has already said `text` by the time ftdetect scripts run.

function! s:HloDumpName(name) abort
  let l:tail = fnamemodify(a:name, ':t')
  if l:tail =~# '-\(buffer-assignment\|memory-usage-report\)\.txt$'
    return 0
  endif
  " before_optimizations.txt, after_optimizations.txt, with any platform prefix
  " (sm_9.0_gpu_after_optimizations.txt), and pass dumps *.after_X.before_Y.txt
  return l:tail =~# '\(before\|after\)_optimizations\.txt$'
        \ || l:tail =~# '\.after_[^/]*\.before_[^/]*\.txt$'
endfunction

" First token, skipping blank lines and comments, within the first 50 lines.
function! s:HloFirstToken() abort
  let l:in_block = 0
  for l:line in getline(1, 50)
    if l:in_block
      if l:line !~# '\*/'
        continue
      endif
      let l:line = substitute(l:line, '^.\{-}\*/', '', '')
      let l:in_block = 0
    endif
    let l:line = substitute(l:line, '/\*.\{-}\*/', '', 'g')
    if l:line =~# '/\*'
      let l:in_block = 1
      let l:line = substitute(l:line, '/\*.*$', '', '')
    endif
    let l:line = substitute(l:line, '//.*$', '', '')
    if l:line =~# '\S'
      return matchstr(l:line, '^\s*\zs[^ \t,]\+')
    endif
  endfor
  return ''
endfunction

function! s:HloDetect(name) abort
  if a:name =~# '\.hlo\(\.txt\)\=$' || s:HloDumpName(a:name)
    set filetype=hlo
  elseif a:name =~# '\.\(txt\|pbtxt\)$' && s:HloFirstToken() ==# 'HloModule'
    set filetype=hlo
  endif
endfunction

autocmd BufNewFile,BufRead *.hlo,*.txt,*.pbtxt call s:HloDetect(expand('<afile>'))
