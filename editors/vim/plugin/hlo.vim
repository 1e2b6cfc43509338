" HLO commands and binary proto dumps, for Vim and Neovim (Neovim's LSP client start
" is in plugin/hlo.lua; Vim users get the server through ALE: ale_linters/hlo/).
if exists('g:loaded_hlo')
  finish
endif
let g:loaded_hlo = 1

command! -nargs=? -complete=file HloConvert call hlo#Convert(<q-args>)
command! -nargs=+ HloSearch call hlo#Search(<q-args>)
command! -nargs=0 HloStages call hlo#Stages()
command! -nargs=0 HloPrevPass call hlo#StepPass('hlo.previousPass')
command! -nargs=0 HloNextPass call hlo#StepPass('hlo.nextPass')
command! -nargs=? -complete=file HloDiff call hlo#Diff(<q-args>)
command! -nargs=? HloGraph call hlo#Graph(<q-args>)
command! -nargs=? -complete=file HloMemory call hlo#Memory(<q-args>)
command! -nargs=* -complete=customlist,hlo#ReplayComplete HloReplay call hlo#Replay(<q-args>)
command! -nargs=0 HloReplayCancel call hlo#ReplayCancel()
command! -nargs=* HloBisect call hlo#Bisect(<q-args>)

" XLA's binary dumps (--xla_dump_hlo_as_proto, --xla_dump_hlo_snapshots) open as
" read-only HLO text converted by `hlo-lsp convert`. Other *.pb files are left alone.
augroup hlo_proto
  autocmd!
  autocmd BufReadCmd *.hlo.pb,*.hlo.pb.gz,*.hlo_snapshot.pb,*.hlo_unoptimized_snapshot.pb
        \ call hlo#ReadProto(expand('<afile>:p'))
augroup END
