" Vim syntax for XLA HLO text (module dumps, pass dumps, .hlo files). Works without
" the language server; Neovim also gets semantic tokens from hlo-lsp when it runs.
if exists('b:current_syntax')
  finish
endif
let s:cpo_save = &cpo
set cpo&vim
syn case match
syn sync minlines=200

" Comments and strings (metadata op_name, source_file, backend_config text).
syn keyword hloTodo contained TODO FIXME XXX NOTE
syn match hloComment "//.*$" contains=hloTodo,@Spell
syn region hloComment start="/\*" end="\*/" contains=hloTodo,@Spell
syn region hloString start=/"/ skip=/\\./ end=/"/ contains=@Spell
syn region hloString start=/'/ skip=/\\./ end=/'/

" Numbers: ints, decimals, -inf/nan, window/pad/dim-label tokens like 3x3, 1_1x0_0.
syn match hloNumber "-\=\<\d\+\(\.\d*\)\=\([eE][-+]\=\d\+\)\=\>"
syn match hloNumber "\<\d\+\(x\d\+\)\+\>"
syn match hloNumber "-\=\<\d\+_-\=\d\+\(_\d\+\)\=\(x-\=\d\+_-\=\d\+\(_\d\+\)\=\)*\>"
syn match hloNumber "-\=\<\(inf\|nan\)\>"

" Keywords and constants.
syn keyword hloKeyword HloModule ENTRY ROOT FileNames FunctionNames FileLocations StackFrames
syn keyword hloBoolean true false
syn keyword hloConstant maximal replicated manual last_tile_dim_replicate last_tile_dims shard_as shard_like unreduced

" Attribute names: an identifier directly followed by '=' (the lexer's rule), then
" enum values such as direction=LT, kind=kLoop.
syn match hloAttribute "\<[A-Za-z_][A-Za-z0-9_.-]*\ze="
syn match hloEnum "=\zs\(k\u\w*\|[A-Z][A-Z0-9_]*\)\>"

" Types and shapes: f32[8,16]{1,0}, (s32[], f32[4]), token[], bf16[2,<=4].
syn match hloType "\<\(pred\|[su]\(1\|2\|4\|8\|16\|32\|64\)\|f\(16\|32\|64\)\|bf16\|c\(64\|128\)\|f8e[0-9a-z]\+\|f4e2m1fn\|token\|opaque\|tuple\)\ze\[" nextgroup=hloDims
syn match hloDims "\[[0-9,<=? ]*\]" contained nextgroup=hloLayout
syn match hloLayout "{[^{}=\"]*}" contained

" Opcodes: a known opcode directly followed by '('.
syn match hloOpcode "\<\(abs\|acos\|acosh\|add\|add-dependency\|after-all\|all-gather\|all-gather-done\|all-gather-start\|all-reduce\|all-reduce-done\|all-reduce-start\|all-to-all\|and\|asin\|asinh\|async-done\|async-start\|async-update\|atan\|atan2\|atanh\|batch-norm-grad\|batch-norm-inference\|batch-norm-training\|bitcast\|bitcast-convert\|broadcast\|call\|cbrt\|ceil\|cholesky\|clamp\|collective-broadcast\|collective-permute\|collective-permute-done\|collective-permute-start\|collective-reduce\|compare\|complex\|concatenate\|conditional\|constant\|convert\|convolution\|copy\|copy-done\|copy-start\|cosh\|cosine\|count-leading-zeros\|cross-replica-sum\|custom-call\|divide\|domain\|dot\|dynamic-reshape\|dynamic-slice\|dynamic-update-slice\|erf\|exponential\|exponential-minus-one\|fft\|floor\|fusion\|gather\|generate-token\|get-dimension-size\|get-tuple-element\|imag\|infeed\|iota\|is-finite\|log\|log-plus-one\|logistic\|map\|maximum\|minimum\|mulhi\|multiply\|negate\|not\|opt-barrier\|optimization-barrier\|or\|outfeed\|pad\|parameter\|partition-id\|popcnt\|power\|ragged-all-to-all\|ragged-dot\|real\|recv\|recv-done\|reduce\|reduce-precision\|reduce-scatter\|reduce-window\|remainder\|replica-id\|reshape\|reverse\|rng\|rng-bit-generator\|rng-get-and-update-state\|round-nearest-afz\|round-nearest-even\|rsqrt\|scaled-dot\|scan\|scatter\|select\|select-and-scatter\|send\|send-done\|set-dimension-size\|shift-left\|shift-right-arithmetic\|shift-right-logical\|shuffle\|sign\|sine\|sinh\|slice\|sort\|sqrt\|stochastic-convert\|subtract\|tan\|tanh\|topk\|trace\|transpose\|triangular-solve\|tuple\|tuple-select\|while\|xor\)\ze("

" Names: %instruction, %computation, bare parameter names in signatures (p0: ...).
syn match hloName "%[A-Za-z_][A-Za-z0-9_.-]*"
syn match hloDefinition "^\s*\(ROOT\s\+\)\=\zs%\=[A-Za-z_][A-Za-z0-9_.-]*\ze\s*=\s"
syn match hloComputation "^\s*\(ENTRY\s\+\)\=\zs%\=[A-Za-z_][A-Za-z0-9_.-]*\ze\s*("
syn match hloModuleName "\<HloModule\s\+\zs[A-Za-z_][A-Za-z0-9_.-]*"

hi def link hloComment Comment
hi def link hloTodo Todo
hi def link hloString String
hi def link hloNumber Number
hi def link hloKeyword Keyword
hi def link hloBoolean Boolean
hi def link hloConstant Constant
hi def link hloAttribute Identifier
hi def link hloEnum Constant
hi def link hloType Type
hi def link hloDims Number
hi def link hloLayout Special
hi def link hloOpcode Statement
hi def link hloName Identifier
hi def link hloDefinition Function
hi def link hloComputation Function
hi def link hloModuleName Function

let b:current_syntax = 'hlo'
let &cpo = s:cpo_save
unlet s:cpo_save
