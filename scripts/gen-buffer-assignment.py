#!/usr/bin/env python3
"""Writes a buffer-assignment dump in XLA's exact format for a real module.

  scripts/gen-buffer-assignment.py MODULE.txt OUT_BASE [--no-peak]

writes OUT_BASE-buffer-assignment.txt (BufferAssignment::ToString, then
HloLiveRange::ToString) and OUT_BASE-memory-usage-report.txt
(MemoryUsageReport) for the ENTRY computation of MODULE: sizes from the
shapes (array bytes; 8 per tuple element, XLA's pointer table), one
allocation per entry parameter, constant and the root (output,
maybe-live-out), every other value bump-allocated in one preallocated temp
allocation; get-tuple-element, bitcast and non-root tuples alias their
operand and hold no value, as in XLA. The schedule is text order; a value
lives from its definition (parameters: 0) to its last use (the root: the
end). --no-peak leaves out "Live ranges at T (peak)" as XLA before 2025 did.
For tests and benches: XLA is not needed, the format is.
"""
import re
import sys

BYTES = {'pred': 1, 's8': 1, 'u8': 1, 's16': 2, 'u16': 2, 'f16': 2, 'bf16': 2,
         's32': 4, 'u32': 4, 'f32': 4, 's64': 8, 'u64': 8, 'f64': 8,
         'c64': 8, 'c128': 16, 'token': 0}
ALIASES = {'get-tuple-element', 'bitcast'}
LINE = re.compile(r'^\s*(ROOT\s+)?%?([\w.\-]+)\s*=\s*(.*)$')


def split_shape(rest):
    """'(f32[2]{0}, s32[]) tuple(...)' -> shape text, remainder."""
    if rest.startswith('('):
        depth = 0
        for i, c in enumerate(rest):
            depth += c == '('
            depth -= c == ')'
            if depth == 0:
                return rest[:i + 1], rest[i + 1:].lstrip()
    shape, _, tail = rest.partition(' ')
    return shape, tail


def strip_layout(shape):
    out, depth = [], 0
    for c in shape:
        if c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
        elif depth == 0:
            out.append(c)
    return ''.join(out)


def top_elements(shape):
    inner, parts, depth, cur = shape[1:-1], [], 0, ''
    for c in inner:
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        if c == ',' and depth == 0:
            parts.append(cur.strip())
            cur = ''
        else:
            cur += c
    if cur.strip():
        parts.append(cur.strip())
    return parts


def byte_size(shape):
    if shape.startswith('('):
        return 8 * len(top_elements(shape))
    m = re.match(r'(\w+)\[([^\]]*)\]', shape)
    if not m:
        return 0
    kind, dims = m.group(1), m.group(2)
    n = 1
    for d in filter(None, dims.split(',')):
        n *= int(re.sub(r'[^0-9]', '', d) or 0)
    if kind in ('s4', 'u4', 'f4e2m1fn'):
        return (n + 1) // 2
    return n * BYTES.get(kind, 1)


def human(n):
    if n < 1024:
        return f'{n}B'
    units, i, v = 'KMGTPE', 0, n
    while v >= 1024 * 1024:
        v //= 1024
        i += 1
    return (f'{v / 1024.0:.1f}' if i == 0 else f'{v / 1024.0:.2f}') + \
        units[i] + 'iB'


def entry_instructions(text):
    body, inside = [], False
    for line in text.splitlines():
        if line.startswith('ENTRY'):
            inside = True
            continue
        if inside and line.startswith('}'):
            break
        if inside:
            m = LINE.match(line)
            if m:
                shape, rest = split_shape(m.group(3))
                opcode = re.match(r'([\w\-]+)', rest).group(1)
                body.append(dict(root=bool(m.group(1)), name=m.group(2),
                                 shape=shape, opcode=opcode, text=line.strip(),
                                 operands=re.findall(r'%([\w.\-]+)', rest)))
    return body


def main():
    module, base = sys.argv[1], sys.argv[2]
    peak_section = '--no-peak' not in sys.argv
    text = open(module, encoding='utf-8', errors='surrogateescape').read()
    insts = entry_instructions(text)
    if insts and not any(i['root'] for i in insts):
        insts[-1]['root'] = True
    end = len(insts)
    time = {i['name']: t for t, i in enumerate(insts)}
    last_use = {}
    uses = {}
    for t, inst in enumerate(insts):
        for k, op in enumerate(inst['operands']):
            if op in time:
                last_use[op] = t
                uses.setdefault(op, []).append(f'{inst["name"]}, operand {k}')
    allocs, temp, values = [], [], []
    param_no = 0
    for inst in insts:
        if inst['opcode'] in ALIASES or (inst['opcode'] == 'tuple'
                                         and not inst['root']):
            continue
        size = byte_size(strip_layout(inst['shape']))
        tuple_index = '{}' if inst['shape'].startswith('(') else ''
        value = dict(id=len(values), inst=inst, size=size, index=tuple_index)
        values.append(value)
        if inst['opcode'] == 'parameter':
            number = int(re.search(r'parameter\((\d+)\)', inst['text']).group(1))
            allocs.append((size, f', parameter {number}, shape |'
                           f'{strip_layout(inst["shape"])}| at ShapeIndex {{}}',
                           [(value, 0)]))
            param_no += 1
        elif inst['root']:
            allocs.append((size, f', output shape is |'
                           f'{strip_layout(inst["shape"])}|, maybe-live-out',
                           [(value, 0)]))
        elif inst['opcode'] == 'constant':
            allocs.append((size, ', constant', [(value, 0)]))
        else:
            temp.append(value)
    offset, packed = 0, []
    for value in temp:
        packed.append((value, offset))
        offset += value['size']
    if packed:
        allocs.append((offset, ', preallocated-temp', packed))
    out = ['BufferAssignment:\n']
    for index, (size, kinds, held) in enumerate(allocs):
        out.append(f'allocation {index}: size {size}{kinds}:\n')
        for value, off in held:
            i = value['inst']
            out.append(f' value: <{value["id"]} {i["name"]}{value["index"]} @0>'
                       f' (size={value["size"]},offset={off}): {i["shape"]}\n')
    total = sum(a[0] for a in allocs)
    out.append(f'\nTotal bytes used: {total} ({human(total)})\n')
    out.append('\nUsed values:\n')
    for value in values:
        i = value['inst']
        out.append(f'<{value["id"]} {i["name"]}{value["index"]} @0>\n'
                   f' positions:\n  {i["name"]}\n uses:\n')
        out.extend(f'  {u}\n' for u in uses.get(i['name'], []))
        out.append(f' from instruction: {i["text"]}\n')
    out.append(f'\n\nHloLiveRange (max {end}):\n  InstructionSequence:\n')
    out.extend(f'    {t}:{i["name"]}\n' for t, i in enumerate(insts))
    out.append('  BufferLiveRange:\n')
    ranges = []
    for value in values:
        i = value['inst']
        start = 0 if i['opcode'] == 'parameter' else time[i['name']]
        stop = end if i['root'] else max(last_use.get(i['name'], start), start)
        ranges.append((value, start, stop))
        out.append(f'    {i["name"]}{{}}:{start}-{stop}\n')
    if peak_section:
        events = sorted([(s, False, v['size']) for v, s, e in ranges] +
                        [(e + 1, True, v['size']) for v, s, e in ranges])
        usage = peak = peak_time = 0
        for t, is_end, size in events:
            usage += -size if is_end else size
            if usage > peak:
                peak, peak_time = usage, t
        out.append(f'  Live ranges at {peak_time} (peak):\n')
        live = sorted(((v['size'], v['inst']['name']) for v, s, e in ranges
                       if s <= peak_time <= e), key=lambda p: (-p[0], p[1]))
        cumulative = 0
        for size, name in live:
            cumulative += size
            out.append(f'    {name}{{}}: {size} bytes '
                       f'(cumulative: {cumulative} bytes)\n')
    with open(base + '-buffer-assignment.txt', 'w', encoding='utf-8',
              errors='surrogateescape') as f:
        f.write(''.join(out))
    report = [f'Total bytes used: {total} ({human(total)})\n',
              '\nAllocations sorted by size:\n\n',
              'cumulative_size; total_size - cumulative_size; allocation\n',
              '-' * 78 + '\n']
    order = sorted(range(len(allocs)), key=lambda k: (-allocs[k][0], k))
    cumulative = 0
    for k in order:
        cumulative += allocs[k][0]
        pct = 100.0 * cumulative / total if total else 0
        report.append(f'{human(cumulative):>10}({pct:3.0f}%); '
                      f'{human(total - cumulative):>10}; allocation {k}: size '
                      f'{human(allocs[k][0])}{allocs[k][1]}:\n')
    report.append('\n\nAllocations sorted by size with their values:\n')
    for k in order:
        report.append(f'allocation {k}: size {human(allocs[k][0])}'
                      f'{allocs[k][1]}:\n')
    with open(base + '-memory-usage-report.txt', 'w', encoding='utf-8') as f:
        f.write(''.join(report))


if __name__ == '__main__':
    main()
