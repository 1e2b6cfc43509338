#!/bin/bash
# Builds one large HLO module (default 100 MB) from corpus modules, for the
# LSP benchmark: the largest `%`-style modules are repeated with every
# `%name` suffixed per copy (so names stay unique), their ENTRY marks dropped,
# and one small ENTRY appended.
# Usage: bench/make-large-module.sh OUT.hlo [MEGABYTES] [CORPUS_DUMPS_DIR]
set -euo pipefail
out="${1:?usage: make-large-module.sh OUT.hlo [MEGABYTES] [CORPUS_DUMPS_DIR]}"
mb="${2:-100}"
corpus="${3:-$(cd "$(dirname "$0")/../.." && pwd)/shared/corpus/dumps}"
[ -d "$corpus" ] || { echo "corpus not found: $corpus" >&2; exit 2; }
python3 - "$out" "$mb" "$corpus" <<'PY'
import os, re, sys
out, mb, corpus = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sources = []
for root, _, files in os.walk(corpus):
    for f in files:
        p = os.path.join(root, f)
        if f.endswith(('.hlo', '.txt')):
            sources.append((os.path.getsize(p), p))
sources.sort(reverse=True)
bodies = []
for _, p in sources[:8]:
    text = open(p, encoding='utf-8', errors='replace').read()
    if not text.startswith('HloModule') or '%' not in text:
        continue
    m = re.search(r'^(ENTRY )?%\S+ .*\{\s*$', text, re.M)  # first computation
    if not m:
        continue
    bodies.append(re.sub(r'^ENTRY ', '', text[m.start():], flags=re.M))
if not bodies:
    sys.exit('no usable modules in ' + corpus)
name = re.compile(r'%([A-Za-z_][\w.\-]*)')
target = mb * 1000 * 1000
written = 0
with open(out, 'w') as f:
    f.write('HloModule bench_large\n\n')
    copy = 0
    while written < target:
        for i, body in enumerate(bodies):
            suffix = '.k%d_%d' % (copy, i)
            chunk = name.sub(lambda m: '%' + m.group(1) + suffix, body)
            f.write(chunk.rstrip('\n') + '\n\n')
            written += len(chunk)
            if written >= target:
                break
        copy += 1
    f.write('ENTRY %bench_entry () -> f32[] {\n  ROOT %bench_root = f32[] constant(0)\n}\n')
print('%s: %.1f MB from %d modules x %d copies' % (out, os.path.getsize(out) / 1e6, len(bodies), copy))
PY
