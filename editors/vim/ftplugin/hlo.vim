" Buffer settings for HLO text.
if exists('b:did_ftplugin')
  finish
endif
let b:did_ftplugin = 1

setlocal commentstring=//\ %s
setlocal comments=s1:/*,mb:*,ex:*/,://
" Names hold . and - (add.1, fused-computation.3): * and gd take them whole.
setlocal iskeyword=@,48-57,_,.,-
" Computation bodies are the indented lines: indent folding is cheap on huge dumps.
setlocal foldmethod=indent foldlevel=99
" Dumps have lines of many kilobytes: don't wrap or colour past a sane width.
setlocal nowrap synmaxcol=3000

let b:undo_ftplugin = 'setlocal commentstring< comments< iskeyword< foldmethod< foldlevel< wrap< synmaxcol<'
