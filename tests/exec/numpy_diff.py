#!/usr/bin/python3
"""Differential test: `hlo-lsp replay --args IN.npz --out OUT.npz` against NumPy.

Usage: numpy_diff.py HLO_LSP_BINARY WORKDIR [CASE...]
Each case is an HLO module, seeded NumPy arguments and a NumPy reference
written independently of exec/. Outputs compare with the contract's rule: an
element differs only when off by more than 1e-3 absolute AND 1e-3 relative;
NaN equals NaN. Exit 0 all pass, 1 some differ, 77 when NumPy is missing.
"""
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("numpy_diff: no numpy (apt-get install python3-numpy)")
    sys.exit(77)

CASES = []


def case(hlo):
    def register(fn):
        CASES.append((fn.__name__, hlo, fn))
        return fn
    return register


def f32(rng, *shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


@case("""HloModule elementwise_f32
ENTRY e {
  x = f32[4,5] parameter(0)
  y = f32[4,5] parameter(1)
  add = f32[4,5] add(x, y)
  sub = f32[4,5] subtract(x, y)
  mul = f32[4,5] multiply(x, y)
  div = f32[4,5] divide(x, y)
  max = f32[4,5] maximum(x, y)
  min = f32[4,5] minimum(x, y)
  tanh = f32[4,5] tanh(x)
  exp = f32[4,5] exponential(x)
  abs = f32[4,5] abs(y)
  sqrt = f32[4,5] sqrt(abs)
  neg = f32[4,5] negate(x)
  ROOT t = (f32[4,5], f32[4,5], f32[4,5], f32[4,5], f32[4,5], f32[4,5], f32[4,5], f32[4,5], f32[4,5], f32[4,5]) tuple(add, sub, mul, div, max, min, tanh, exp, sqrt, neg)
}
""")
def elementwise_f32(rng):
    x, y = f32(rng, 4, 5), f32(rng, 4, 5)
    x[0, 0] = np.nan          # NaN propagates through max/min
    y[1, 1] = np.nan
    y[2, 2] = 0.0             # x/0 = +-inf
    x[3, 3] = np.inf
    with np.errstate(all="ignore"):
        return [x, y], [x + y, x - y, x * y, x / y, np.maximum(x, y),
                        np.minimum(x, y), np.tanh(x), np.exp(x),
                        np.sqrt(np.abs(y)), -x]


def _int_div(a, b):
    # XLA: x/0 = -1, INT_MIN/-1 = INT_MIN, else truncation toward zero.
    if b == 0:
        return -1
    if a == -2**31 and b == -1:
        return a
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _int_rem(a, b):
    # XLA: x%0 = x, INT_MIN%-1 = 0, else the sign of the dividend.
    if b == 0:
        return a
    if a == -2**31 and b == -1:
        return 0
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


@case("""HloModule integer_edges
ENTRY e {
  x = s32[8] parameter(0)
  y = s32[8] parameter(1)
  div = s32[8] divide(x, y)
  rem = s32[8] remainder(x, y)
  shl = s32[8] shift-left(x, y)
  sra = s32[8] shift-right-arithmetic(x, y)
  srl = s32[8] shift-right-logical(x, y)
  ROOT t = (s32[8], s32[8], s32[8], s32[8], s32[8]) tuple(div, rem, shl, sra, srl)
}
""")
def integer_edges(rng):
    x = np.array([7, -7, -2**31, 5, -9, 100, -1, 12345], np.int32)
    y = np.array([2, 2, -1, 0, 4, 33, 31, -3], np.int32)
    xs, ys = x.tolist(), y.tolist()
    div = [_int_div(a, b) for a, b in zip(xs, ys)]
    rem = [_int_rem(a, b) for a, b in zip(xs, ys)]
    u = [a & 0xFFFFFFFF for a in xs]
    # Shifts by a count outside [0, 32): 0, or the sign for arithmetic.
    shl = [(ua << b) & 0xFFFFFFFF if 0 <= b < 32 else 0 for ua, b in zip(u, ys)]
    sra = [a >> b if 0 <= b < 32 else (-1 if a < 0 else 0) for a, b in zip(xs, ys)]
    srl = [ua >> b if 0 <= b < 32 else 0 for ua, b in zip(u, ys)]
    to32 = lambda v: np.array(v, np.int64).astype(np.uint32).view(np.int32)   # bits as s32
    return [x, y], [np.array(div, np.int32), np.array(rem, np.int32),
                    to32(shl), np.array(sra, np.int32), to32(srl)]


@case("""HloModule broadcast
ENTRY e {
  x = f32[3] parameter(0)
  ROOT b = f32[2,3,4] broadcast(x), dimensions={1}
}
""")
def broadcast(rng):
    x = f32(rng, 3)
    return [x], [np.broadcast_to(x[None, :, None], (2, 3, 4))]


@case("""HloModule transpose
ENTRY e {
  x = f32[2,3,4] parameter(0)
  ROOT t = f32[4,2,3] transpose(x), dimensions={2,0,1}
}
""")
def transpose(rng):
    x = f32(rng, 2, 3, 4)
    return [x], [np.transpose(x, (2, 0, 1))]


@case("""HloModule reshape
ENTRY e {
  x = f32[2,3,4] parameter(0)
  ROOT r = f32[6,4] reshape(x)
}
""")
def reshape(rng):
    x = f32(rng, 2, 3, 4)
    return [x], [x.reshape(6, 4)]


@case("""HloModule slice
ENTRY e {
  x = f32[5,6] parameter(0)
  ROOT s = f32[2,2] slice(x), slice={[1:5:2], [0:6:3]}
}
""")
def slice_(rng):
    x = f32(rng, 5, 6)
    return [x], [x[1:5:2, 0:6:3]]


@case("""HloModule concatenate
ENTRY e {
  x = f32[2,3] parameter(0)
  y = f32[2,2] parameter(1)
  ROOT c = f32[2,5] concatenate(x, y), dimensions={1}
}
""")
def concatenate(rng):
    x, y = f32(rng, 2, 3), f32(rng, 2, 2)
    return [x, y], [np.concatenate([x, y], axis=1)]


@case("""HloModule pad
ENTRY e {
  x = f32[2,3] parameter(0)
  v = f32[] constant(-7)
  ROOT p = f32[5,6] pad(x, v), padding=1_2x0_1_1
}
""")
def pad(rng):
    x = f32(rng, 2, 3)
    out = np.full((5, 6), -7, np.float32)
    out[1:3, 0:5:2] = x     # low 1 / high 2; interior 1 / high 1
    return [x], [out]


@case("""HloModule reduce
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[4,5] parameter(0)
  zero = f32[] constant(0)
  ninf = f32[] constant(-inf)
  sum = f32[4] reduce(x, zero), dimensions={1}, to_apply=add
  mx = f32[5] reduce(x, ninf), dimensions={0}, to_apply=max
  all = f32[] reduce(x, zero), dimensions={0,1}, to_apply=add
  ROOT t = (f32[4], f32[5], f32[]) tuple(sum, mx, all)
}
""")
def reduce(rng):
    x = f32(rng, 4, 5)
    return [x], [x.sum(axis=1), x.max(axis=0), np.array(x.sum(), np.float32)]


@case("""HloModule dot
ENTRY e {
  x = f32[2,3,4] parameter(0)
  y = f32[2,4,5] parameter(1)
  ROOT d = f32[2,3,5] dot(x, y), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}
""")
def dot(rng):
    x, y = f32(rng, 2, 3, 4), f32(rng, 2, 4, 5)
    return [x, y], [np.einsum("bik,bkj->bij", x, y)]


@case("""HloModule dot_odd_dims
ENTRY e {
  x = f32[4,2,3] parameter(0)
  y = f32[3,5,2] parameter(1)
  ROOT d = f32[2,4,5] dot(x, y), lhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_batch_dims={2}, rhs_contracting_dims={0}
}
""")
def dot_odd_dims(rng):
    x, y = f32(rng, 4, 2, 3), f32(rng, 3, 5, 2)
    return [x, y], [np.einsum("ibk,kjb->bij", x, y)]


def _conv2d_nhwc(x, w, stride, pad):
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    xp = np.zeros((n, h + pad[0][0] + pad[0][1], wd + pad[1][0] + pad[1][1], c), np.float64)
    xp[:, pad[0][0]:pad[0][0] + h, pad[1][0]:pad[1][0] + wd, :] = x
    oh = (xp.shape[1] - kh) // stride[0] + 1
    ow = (xp.shape[2] - kw) // stride[1] + 1
    out = np.zeros((n, oh, ow, o), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, i * stride[0]:i * stride[0] + kh, j * stride[1]:j * stride[1] + kw, :]
            out[:, i, j, :] = np.einsum("nhwc,hwco->no", patch, w)
    return out.astype(np.float32)


@case("""HloModule conv2d
ENTRY e {
  x = f32[2,5,5,2] parameter(0)
  w = f32[3,3,2,4] parameter(1)
  ROOT c = f32[2,3,5,4] convolution(x, w), window={size=3x3 stride=2x1 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
}
""")
def conv2d(rng):
    x, w = f32(rng, 2, 5, 5, 2), f32(rng, 3, 3, 2, 4)
    return [x, w], [_conv2d_nhwc(x, w, (2, 1), ((1, 1), (1, 1)))]


@case("""HloModule conv2d_nchw
ENTRY e {
  x = f32[1,3,6,4] parameter(0)
  w = f32[2,3,2,3] parameter(1)
  ROOT c = f32[1,2,5,2] convolution(x, w), window={size=2x3 stride=1x1}, dim_labels=bf01_oi01->bf01
}
""")
def conv2d_nchw(rng):
    x, w = f32(rng, 1, 3, 6, 4), f32(rng, 2, 3, 2, 3)
    out = _conv2d_nhwc(x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0), (1, 1), ((0, 0), (0, 0)))
    return [x, w], [out.transpose(0, 3, 1, 2)]


@case("""HloModule gather
ENTRY e {
  x = f32[5,4] parameter(0)
  i = s32[4,1] parameter(1)
  ROOT g = f32[4,4] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}
}
""")
def gather(rng):
    x = f32(rng, 5, 4)
    i = np.array([[4], [0], [2], [7]], np.int32)   # 7 clamps to 4
    return [x, i], [x[np.clip(i[:, 0], 0, 4)]]


@case("""HloModule gather_2d_window
ENTRY e {
  x = f32[6,7] parameter(0)
  i = s32[3,2] parameter(1)
  ROOT g = f32[3,2,3] gather(x, i), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,3}
}
""")
def gather_2d_window(rng):
    x = f32(rng, 6, 7)
    i = np.array([[0, 0], [3, 2], [5, 6]], np.int32)   # last clamps to (4, 4)
    out = []
    for r, c in i.tolist():
        r, c = min(max(r, 0), 4), min(max(c, 0), 4)
        out.append(x[r:r + 2, c:c + 3])
    return [x, i], [np.stack(out)]


@case("""HloModule scatter_add
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[5,3] parameter(0)
  i = s32[5,1] parameter(1)
  u = f32[5,3] parameter(2)
  ROOT s = f32[5,3] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
""")
def scatter_add(rng):
    x, u = f32(rng, 5, 3), f32(rng, 5, 3)
    i = np.array([[1], [3], [1], [0], [9]], np.int32)   # duplicates add; 9 is skipped
    out = x.astype(np.float64)
    for k, idx in enumerate(i[:, 0].tolist()):
        if 0 <= idx < 5:
            out[idx] += u[k]
    return [x, i, u], [out.astype(np.float32)]


@case("""HloModule sort
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY e {
  k = f32[3,6] parameter(0)
  v = s32[3,6] iota(), iota_dimension=1
  ROOT s = (f32[3,6], s32[3,6]) sort(k, v), dimensions={1}, is_stable=true, to_apply=lt
}
""")
def sort(rng):
    k = np.round(f32(rng, 3, 6), 1)   # ties exercise stability
    k[0, :3] = 0.5
    order = np.argsort(k, axis=1, kind="stable")
    return [k], [np.take_along_axis(k, order, axis=1), order.astype(np.int32)]


@case("""HloModule iota
ENTRY e {
  a = s32[3,4] iota(), iota_dimension=1
  b = f32[3,4] iota(), iota_dimension=0
  ROOT t = (s32[3,4], f32[3,4]) tuple(a, b)
}
""")
def iota(rng):
    return [], [np.broadcast_to(np.arange(4, dtype=np.int32), (3, 4)),
                np.broadcast_to(np.arange(3, dtype=np.float32)[:, None], (3, 4))]


def _to_bf16_and_back(x):
    u = x.view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000   # nearest, ties to even
    return rounded.astype(np.uint32).view(np.float32)


@case("""HloModule convert_bf16
ENTRY e {
  x = f32[16] parameter(0)
  b = bf16[16] convert(x)
  ROOT y = f32[16] convert(b)
}
""")
def convert_bf16(rng):
    x = f32(rng, 16, lo=-100, hi=100)
    # Exact ties: 1 + 2^-8 rounds to 1 (even), 1 + 3*2^-8 rounds up.
    x[0] = np.float32(1 + 2**-8)
    x[1] = np.float32(1 + 3 * 2**-8)
    x[2] = np.float32(3e38)
    return [x], [_to_bf16_and_back(x)]


@case("""HloModule convert_int
ENTRY e {
  x = f32[8] parameter(0)
  i = s32[8] convert(x)
  b = pred[8] convert(x)
  ROOT t = (s32[8], pred[8]) tuple(i, b)
}
""")
def convert_int(rng):
    x = np.array([1.7, -1.7, 0.0, -0.5, 2.5, 1e3, -3.99, 0.25], np.float32)
    return [x], [np.trunc(x).astype(np.int32), x != 0]


@case("""HloModule select_compare
ENTRY e {
  x = f32[3,4] parameter(0)
  y = f32[3,4] parameter(1)
  gt = pred[3,4] compare(x, y), direction=GT
  ne = pred[3,4] compare(x, y), direction=NE
  s = f32[3,4] select(gt, x, y)
  lo = f32[] constant(-0.5)
  hi = f32[] constant(0.5)
  c = f32[3,4] clamp(lo, x, hi)
  ROOT t = (pred[3,4], pred[3,4], f32[3,4], f32[3,4]) tuple(gt, ne, s, c)
}
""")
def select_compare(rng):
    x, y = f32(rng, 3, 4), f32(rng, 3, 4)
    y[0, 0] = x[0, 0]
    x[1, 1] = np.nan   # NaN compares unordered: GT false, NE true
    with np.errstate(all="ignore"):
        return [x, y], [x > y, x != y, np.where(x > y, x, y), np.clip(x, -0.5, 0.5)]


@case("""HloModule while_sum
cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  fi = f32[] convert(i)
  bi = f32[4] broadcast(fi), dimensions={}
  sum = f32[4] add(acc, bi)
  ROOT t = (s32[], f32[4]) tuple(next, sum)
}
ENTRY e {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, x)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
}
""")
def while_sum(rng):
    x = f32(rng, 4)
    return [x], [x + np.float32(0 + 1 + 2 + 3 + 4)]


@case("""HloModule dynamic_slices
ENTRY e {
  x = f32[5,6] parameter(0)
  u = f32[2,3] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ds = f32[2,3] dynamic-slice(x, i, j), dynamic_slice_sizes={2,3}
  dus = f32[5,6] dynamic-update-slice(x, u, i, j)
  ROOT t = (f32[2,3], f32[5,6]) tuple(ds, dus)
}
""")
def dynamic_slices(rng):
    x, u = f32(rng, 5, 6), f32(rng, 2, 3)
    i, j = np.int32(4), np.int32(-1)   # clamp to (3, 0)
    ci, cj = 3, 0
    dus = x.copy()
    dus[ci:ci + 2, cj:cj + 3] = u
    return [x, u, np.array(i), np.array(j)], [x[ci:ci + 2, cj:cj + 3], dus]


@case("""HloModule elementwise_more
ENTRY e {
  x = f32[12] parameter(0)
  y = f32[12] parameter(1)
  rem = f32[12] remainder(x, y)
  pow = f32[12] power(x, y)
  atan2 = f32[12] atan2(x, y)
  rne = f32[12] round-nearest-even(x)
  raz = f32[12] round-nearest-afz(x)
  fl = f32[12] floor(x)
  ce = f32[12] ceil(x)
  sg = f32[12] sign(x)
  fin = pred[12] is-finite(x)
  ROOT t = (f32[12], f32[12], f32[12], f32[12], f32[12], f32[12], f32[12], f32[12], pred[12]) tuple(rem, pow, atan2, rne, raz, fl, ce, sg, fin)
}
""")
def elementwise_more(rng):
    x = np.array([2.5, -2.5, 0.5, -0.5, 3.7, -0.0, 1.5, np.inf, np.nan, 7.0, -7.0, 0.0], np.float32)
    y = np.array([2.0, 2.0, 3.0, -0.25, 1.1, 1.0, 0.0, 1.0, 1.0, -3.0, 2.5, 0.0], np.float32)
    with np.errstate(all="ignore"):
        raz = np.where(np.isfinite(x), np.sign(x) * np.floor(np.abs(x) + 0.5), x).astype(np.float32)
        return [x, y], [np.fmod(x, y), np.power(x, y), np.arctan2(x, y), np.round(x), raz,
                        np.floor(x), np.ceil(x), np.sign(x), np.isfinite(x)]


@case("""HloModule small_ints
ENTRY e {
  x = u8[6] parameter(0)
  y = u8[6] parameter(1)
  a = u8[6] add(x, y)
  m = u8[6] multiply(x, y)
  s = u8[6] subtract(x, y)
  bx = s8[6] convert(x)
  n = s8[6] negate(bx)
  pc = u8[6] popcnt(x)
  cl = u8[6] count-leading-zeros(x)
  an = u8[6] and(x, y)
  xo = u8[6] xor(x, y)
  nt = u8[6] not(x)
  ROOT t = (u8[6], u8[6], u8[6], s8[6], s8[6], u8[6], u8[6], u8[6], u8[6], u8[6]) tuple(a, m, s, bx, n, pc, cl, an, xo, nt)
}
""")
def small_ints(rng):
    x = np.array([200, 0, 255, 128, 7, 1], np.uint8)
    y = np.array([100, 5, 255, 2, 9, 0], np.uint8)
    bx = x.view(np.int8)
    pc = np.array([bin(v).count("1") for v in x.tolist()], np.uint8)
    cl = np.array([8 - v.bit_length() for v in x.tolist()], np.uint8)
    with np.errstate(all="ignore"):
        return [x, y], [x + y, x * y, x - y, bx, -bx, pc, cl, x & y, x ^ y, ~x]


@case("""HloModule f16_f64
ENTRY e {
  x = f16[5] parameter(0)
  y = f64[5] parameter(1)
  h = f16[5] multiply(x, x)
  c = f64[5] convert(h)
  d = f64[5] add(c, y)
  back = f16[5] convert(y)
  ROOT t = (f16[5], f64[5], f16[5]) tuple(h, d, back)
}
""")
def f16_f64(rng):
    x = np.array([1.5, -300.0, 0.001, 2.0, 70000 ** 0.5], np.float16)
    y = np.array([1e-9, 1e10, -3.25, 65504.0, 1e6], np.float64)
    with np.errstate(all="ignore"):
        h = x * x
        return [x, y], [h, h.astype(np.float64) + y, y.astype(np.float16)]


@case("""HloModule reverse_negpad
ENTRY e {
  x = f32[4,5] parameter(0)
  r = f32[4,5] reverse(x), dimensions={0,1}
  z = f32[] constant(0)
  p = f32[3,7] pad(x, z), padding=-1_0x1_1
  ROOT t = (f32[4,5], f32[3,7]) tuple(r, p)
}
""")
def reverse_negpad(rng):
    x = f32(rng, 4, 5)
    p = np.zeros((3, 7), np.float32)
    p[:, 1:6] = x[1:]
    return [x], [x[::-1, ::-1], p]


@case("""HloModule reduce_window
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[5,6] parameter(0)
  z = f32[] constant(0)
  ninf = f32[] constant(-inf)
  s = f32[4,3] reduce-window(x, z), window={size=2x2 stride=1x2}, to_apply=add
  m = f32[3,3] reduce-window(x, ninf), window={size=3x3 stride=2x2 pad=1_1x1_0}, to_apply=max
  ROOT t = (f32[4,3], f32[3,3]) tuple(s, m)
}
""")
def reduce_window(rng):
    x = f32(rng, 5, 6)
    s = np.array([[x[i:i + 2, 2 * j:2 * j + 2].sum() for j in range(3)] for i in range(4)], np.float32)
    xp = np.full((7, 7), -np.inf, np.float32)
    xp[1:6, 1:7] = x
    m = np.array([[xp[2 * i:2 * i + 3, 2 * j:2 * j + 3].max() for j in range(3)] for i in range(3)], np.float32)
    return [x], [s, m]


@case("""HloModule argmax_variadic_reduce
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  pick = pred[] or(gt, tie)
  v = f32[] select(pick, av, bv)
  i = s32[] select(pick, ai, bi)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[4,7] parameter(0)
  idx = s32[4,7] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[4], s32[4]) reduce(x, idx, ninf, zero), dimensions={1}, to_apply=argmax
}
""")
def argmax_variadic_reduce(rng):
    x = f32(rng, 4, 7)
    return [x], [x.max(axis=1), x.argmax(axis=1).astype(np.int32)]


@case("""HloModule dot_int_and_matvec
ENTRY e {
  a = s32[3,4] parameter(0)
  b = s32[4,2] parameter(1)
  x = f32[6,5] parameter(2)
  v = f32[5] parameter(3)
  d = s32[3,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  mv = f32[6] dot(x, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  outer = f32[6,5] dot(mv, v), lhs_contracting_dims={}, rhs_contracting_dims={}
  ROOT t = (s32[3,2], f32[6], f32[6,5]) tuple(d, mv, outer)
}
""")
def dot_int_and_matvec(rng):
    a = rng.integers(-50, 50, (3, 4)).astype(np.int32)
    b = rng.integers(-50, 50, (4, 2)).astype(np.int32)
    x, v = f32(rng, 6, 5), f32(rng, 5)
    mv = x @ v
    return [a, b, x, v], [a @ b, mv, np.outer(mv, v)]


@case("""HloModule bitcast_convert
ENTRY e {
  x = f32[4] parameter(0)
  u = u32[4] bitcast-convert(x)
  s = s32[4] bitcast-convert(x)
  ROOT t = (u32[4], s32[4]) tuple(u, s)
}
""")
def bitcast_convert(rng):
    x = np.array([1.0, -2.0, np.inf, 0.1], np.float32)
    return [x], [x.view(np.uint32), x.view(np.int32)]


@case("""HloModule conditional_call
double {
  p = f32[3] parameter(0)
  ROOT d = f32[3] add(p, p)
}
negate {
  p = f32[3] parameter(0)
  ROOT n = f32[3] negate(p)
}
ENTRY e {
  x = f32[3] parameter(0)
  k = s32[] parameter(1)
  c = f32[3] conditional(k, x, x), branch_computations={double, negate}
  b = pred[] parameter(2)
  c2 = f32[3] conditional(b, x, x), true_computation=double, false_computation=negate
  c3 = f32[3] call(c2), to_apply=negate
  ROOT t = (f32[3], f32[3], f32[3]) tuple(c, c2, c3)
}
""")
def conditional_call(rng):
    x = f32(rng, 3)
    # An out-of-range branch index runs the last branch.
    return [x, np.array(7, np.int32), np.array(False)], [-x, -x, x]


@case("""HloModule conv_grouped_dilated
ENTRY e {
  x = f32[2,6,6,4] parameter(0)
  w = f32[3,3,2,6] parameter(1)
  g = f32[2,4,4,6] convolution(x, w), window={size=3x3 rhs_dilate=1x1}, dim_labels=b01f_01io->b01f, feature_group_count=2
  y = f32[1,3,3,1] parameter(2)
  k = f32[2,2,1,1] parameter(3)
  t = f32[1,6,6,1] convolution(y, k), window={size=2x2 pad=1_1x1_1 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f
  d = f32[1,1,1,1] convolution(y, k), window={size=2x2 rhs_dilate=2x2}, dim_labels=b01f_01io->b01f
  ROOT r = (f32[2,4,4,6], f32[1,6,6,1], f32[1,1,1,1]) tuple(g, t, d)
}
""")
def conv_grouped_dilated(rng):
    x, w = f32(rng, 2, 6, 6, 4), f32(rng, 3, 3, 2, 6)
    g = np.concatenate([_conv2d_nhwc(x[..., 2 * k:2 * k + 2], w[..., 3 * k:3 * k + 3], (1, 1), ((0, 0), (0, 0)))
                        for k in range(2)], axis=-1)
    y, k = f32(rng, 1, 3, 3, 1), f32(rng, 2, 2, 1, 1)
    yd = np.zeros((1, 5, 5, 1), np.float32)
    yd[:, ::2, ::2, :] = y                   # lhs_dilate inserts zeros
    t = _conv2d_nhwc(yd, k, (1, 1), ((1, 1), (1, 1)))
    kd = np.zeros((3, 3, 1, 1), np.float32)
    kd[::2, ::2] = k                         # rhs_dilate spreads the kernel
    d = _conv2d_nhwc(y, kd, (1, 1), ((0, 0), (0, 0)))
    return [x, w, y, k], [g, t, d]


@case("""HloModule scatter_2d_update_window
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[5,6] parameter(0)
  i = s32[3,2] parameter(1)
  u = f32[3,2,2] parameter(2)
  ROOT s = f32[5,6] scatter(x, i, u), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=add
}
""")
def scatter_2d_update_window(rng):
    x, u = f32(rng, 5, 6), f32(rng, 3, 2, 2)
    i = np.array([[0, 0], [3, 4], [4, 1]], np.int32)   # the last window would leave the operand: skipped
    out = x.copy()
    for k, (r, c) in enumerate(i.tolist()):
        if 0 <= r <= 3 and 0 <= c <= 4:
            out[r:r + 2, c:c + 2] += u[k]
    return [x, i, u], [out]


@case("""HloModule sort_descending_nan
gt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GT, type=TOTALORDER
}
ENTRY e {
  k = f32[8] parameter(0)
  ROOT s = f32[8] sort(k), dimensions={0}, to_apply=gt
}
""")
def sort_descending_nan(rng):
    k = np.array([0.5, np.nan, -1.0, 3.0, -np.inf, 0.0, 2.0, np.inf], np.float32)
    # Total order: +NaN is above +inf.
    return [k], [np.array([np.nan, np.inf, 3.0, 2.0, 0.5, 0.0, -1.0, -np.inf], np.float32)]


@case("""HloModule unary_math
ENTRY e {
  x = f32[10] parameter(0)
  a = f32[10] exponential-minus-one(x)
  b = f32[10] log-plus-one(x)
  c = f32[10] logistic(x)
  d = f32[10] cbrt(x)
  r = f32[10] rsqrt(x)
  s = f32[10] sine(x)
  co = f32[10] cosine(x)
  l = f32[10] log(x)
  ROOT t = (f32[10], f32[10], f32[10], f32[10], f32[10], f32[10], f32[10], f32[10]) tuple(a, b, c, d, r, s, co, l)
}
""")
def unary_math(rng):
    x = f32(rng, 10, lo=0.01, hi=3)
    x[0] = 1e-6
    return [x], [np.expm1(x), np.log1p(x), 1 / (1 + np.exp(-x)), np.cbrt(x), 1 / np.sqrt(x),
                 np.sin(x), np.cos(x), np.log(x)]


@case("""HloModule convert_saturating
ENTRY e {
  x = f32[6] parameter(0)
  i = s32[6] convert(x)
  u = u8[6] convert(x)
  ROOT t = (s32[6], u8[6]) tuple(i, u)
}
""")
def convert_saturating(rng):
    # XLA clamps float->int conversions and maps NaN to 0.
    x = np.array([3e9, -3e9, np.nan, 300.0, -5.0, 42.9], np.float32)
    i = np.array([2**31 - 1, -2**31, 0, 300, -5, 42], np.int32)
    u = np.array([255, 0, 0, 255, 0, 42], np.uint8)
    return [x], [i, u]


@case("""HloModule bf16_arith
ENTRY e {
  x = f32[6] parameter(0)
  y = f32[6] parameter(1)
  bx = bf16[6] convert(x)
  by = bf16[6] convert(y)
  s = bf16[6] add(bx, by)
  ROOT r = f32[6] convert(s)
}
""")
def bf16_arith(rng):
    x, y = f32(rng, 6, lo=-10, hi=10), f32(rng, 6, lo=-10, hi=10)
    s = _to_bf16_and_back(_to_bf16_and_back(x) + _to_bf16_and_back(y))
    return [x, y], [s]


@case("""HloModule cumsum_window
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[3,7] parameter(0)
  z = f32[] constant(0)
  ROOT c = f32[3,7] reduce-window(x, z), window={size=1x7 pad=0_0x6_0}, to_apply=add
}
""")
def cumsum_window(rng):
    x = f32(rng, 3, 7)
    return [x], [np.cumsum(x, axis=1)]


@case("""HloModule map_clamp_tensor
mul_add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  m = f32[] multiply(a, b)
  ROOT s = f32[] add(m, a)
}
ENTRY e {
  x = f32[2,3] parameter(0)
  y = f32[2,3] parameter(1)
  m = f32[2,3] map(x, y), dimensions={0,1}, to_apply=mul_add
  lo = f32[2,3] parameter(2)
  c = f32[2,3] clamp(lo, x, y)
  ROOT t = (f32[2,3], f32[2,3]) tuple(m, c)
}
""")
def map_clamp_tensor(rng):
    x, y = f32(rng, 2, 3), f32(rng, 2, 3, lo=0.5, hi=2)
    lo = f32(rng, 2, 3, lo=-2, hi=0)
    return [x, y, lo], [x * y + x, np.minimum(np.maximum(x, lo), y)]


@case("""HloModule layouts
ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  y = f32[2,3]{1,0} parameter(1)
  a = f32[2,3]{0,1} add(x, y)
  t = f32[3,2]{1,0} transpose(a), dimensions={1,0}
  c = f32[3,2]{0,1} copy(t)
  r = f32[6]{0} reshape(c)
  ROOT o = (f32[2,3]{0,1}, f32[3,2]{0,1}, f32[6]{0}) tuple(a, c, r)
}
""")
def layouts(rng):
    x, y = f32(rng, 2, 3), f32(rng, 2, 3)
    a = x + y
    return [x, y], [a, a.T, a.T.reshape(6)]


@case("""HloModule wide_ints
ENTRY e {
  x = s64[5] parameter(0)
  y = s64[5] parameter(1)
  m = s64[5] multiply(x, y)
  d = s64[5] divide(x, y)
  u = u32[5] parameter(2)
  v = u32[5] parameter(3)
  ud = u32[5] divide(u, v)
  lt = pred[5] compare(u, v), direction=LT
  p = s32[5] parameter(4)
  q = s32[5] parameter(5)
  pw = s32[5] power(p, q)
  ROOT t = (s64[5], s64[5], u32[5], pred[5], s32[5]) tuple(m, d, ud, lt, pw)
}
""")
def wide_ints(rng):
    x = np.array([3_000_000_000, -7, 2**40, -2**62, 9], np.int64)
    y = np.array([3, 2, -2**20, 2, -4], np.int64)
    u = np.array([4_000_000_000, 7, 0, 5, 2**31], np.uint32)
    v = np.array([3, 2, 1, 4_000_000_000, 2**31 + 1], np.uint32)
    p = np.array([2, -3, 5, 0, 1], np.int32)
    q = np.array([10, 3, 0, 0, 100], np.int32)
    d = np.array([_trunc_div(a, b) for a, b in zip(x.tolist(), y.tolist())], np.int64)
    return [x, y, u, v, p, q], [x * y, d, u // v, u < v, p ** q]


def _trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


@case("""HloModule pred_args_scalars
ENTRY e {
  b = pred[4] parameter(0)
  c = pred[] parameter(1)
  x = f32[4] parameter(2)
  y = f32[] parameter(3)
  by = f32[4] broadcast(y), dimensions={}
  s = f32[4] select(b, x, by)
  nb = pred[4] not(b)
  o = pred[4] or(nb, b)
  cs = f32[4] select(c, s, x)
  ROOT t = (f32[4], pred[4], f32[]) tuple(cs, o, y)
}
""")
def pred_args_scalars(rng):
    b = np.array([True, False, True, False])
    x = f32(rng, 4)
    y = np.array(2.5, np.float32)
    return [b, np.array(True), x, y], [np.where(b, x, y), np.ones(4, bool), y]


@case("""HloModule select_and_scatter
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4,6] parameter(0)
  s = f32[2,3] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[4,6] select-and-scatter(x, s, z), window={size=2x2 stride=2x2}, select=ge, scatter=add
}
""")
def select_and_scatter(rng):
    x, s = f32(rng, 4, 6), f32(rng, 2, 3)
    out = np.zeros((4, 6), np.float32)
    for i in range(2):
        for j in range(3):
            win = x[2 * i:2 * i + 2, 2 * j:2 * j + 2]
            r, c = np.unravel_index(np.argmax(win), win.shape)   # first max in row-major order
            out[2 * i + r, 2 * j + c] += s[i, j]
    return [x, s], [out]


@case("""HloModule gather_batching
ENTRY e {
  x = f32[3,5,4] parameter(0)
  i = s32[3,2,1] parameter(1)
  ROOT g = f32[3,2,4] gather(x, i), offset_dims={2}, collapsed_slice_dims={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, start_index_map={1}, index_vector_dim=2, slice_sizes={1,1,4}
}
""")
def gather_batching(rng):
    x = f32(rng, 3, 5, 4)
    i = np.array([[[0], [4]], [[2], [2]], [[1], [3]]], np.int32)
    out = np.stack([x[b, i[b, :, 0]] for b in range(3)])
    return [x, i], [out]


@case("""HloModule reduce_precision
ENTRY e {
  x = f32[8] parameter(0)
  ROOT r = f32[8] reduce-precision(x), exponent_bits=8, mantissa_bits=7
}
""")
def reduce_precision(rng):
    x = f32(rng, 8, lo=-1000, hi=1000)
    x[0] = np.float32(1 + 2**-8)
    return [x], [_to_bf16_and_back(x)]


@case("""HloModule bf16_output
ENTRY e {
  x = f32[5] parameter(0)
  ROOT b = bf16[5] convert(x)
}
""")
def bf16_output(rng):
    x = f32(rng, 5, lo=-50, hi=50)
    # Stored as its unsigned bit pattern (with out0.dtype = bf16).
    return [x], [(_to_bf16_and_back(x).view(np.uint32) >> 16).astype(np.uint16)]


@case("""HloModule empty_and_degenerate
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[0,3] parameter(0)
  z = f32[] constant(0)
  r = f32[3] reduce(x, z), dimensions={0}, to_apply=add
  y = f32[1,4,1] parameter(1)
  s = f32[4] reshape(y)
  c = f32[3,4,1] concatenate(y, y, y), dimensions={0}
  b = f32[2,2] broadcast(z), dimensions={}
  ROOT t = (f32[3], f32[4], f32[3,4,1], f32[2,2]) tuple(r, s, c, b)
}
""")
def empty_and_degenerate(rng):
    x, y = np.zeros((0, 3), np.float32), f32(rng, 1, 4, 1)
    return [x, y], [np.zeros(3, np.float32), y.reshape(4), np.tile(y, (3, 1, 1)),
                    np.zeros((2, 2), np.float32)]


@case("""HloModule scatter_overwrite_max
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
second {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
ENTRY e {
  x = f32[6] parameter(0)
  i = s32[3] parameter(1)
  u = f32[3] parameter(2)
  m = f32[6] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=max
  o = f32[6] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=second
  ROOT t = (f32[6], f32[6]) tuple(m, o)
}
""")
def scatter_overwrite_max(rng):
    x, u = f32(rng, 6), f32(rng, 3)
    i = np.array([5, 0, -1], np.int32)   # -1 is out of bounds: skipped
    m, o = x.copy(), x.copy()
    for k, idx in enumerate(i.tolist()):
        if 0 <= idx < 6:
            m[idx] = max(m[idx], u[k])
            o[idx] = u[k]
    return [x, i, u], [m, o]


@case("""HloModule int_edges_unary
ENTRY e {
  x = s32[4] parameter(0)
  a = s32[4] abs(x)
  n = s32[4] negate(x)
  c = s32[4] count-leading-zeros(x)
  s = s32[4] sign(x)
  f = f32[4] parameter(1)
  g = f32[4] parameter(2)
  mx = f32[4] maximum(f, g)
  eq = pred[4] compare(f, g), direction=EQ
  ex = f32[4] exponential(f)
  ROOT t = (s32[4], s32[4], s32[4], s32[4], pred[4], f32[4]) tuple(a, n, c, s, eq, ex)
}
""")
def int_edges_unary(rng):
    x = np.array([-2**31, 0, -5, 1 << 20], np.int32)
    f = np.array([-0.0, 100.0, 1.0, -100.0], np.float32)
    g = np.array([0.0, 1.0, 1.0, 2.0], np.float32)
    clz = np.array([0, 32, 0, 11], np.int32)
    with np.errstate(all="ignore"):
        return [x, f, g], [np.abs(x), -x, clz, np.sign(x).astype(np.int32), f == g, np.exp(f)]


@case("""HloModule big_reduce_sum
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[64,4096] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[64] reduce(x, z), dimensions={1}, to_apply=add
}
""")
def big_reduce_sum(rng):
    x = f32(rng, 64, 4096, lo=0, hi=1)
    return [x], [x.astype(np.float64).sum(axis=1).astype(np.float32)]


@case("""HloModule dot_bf16_preferred
ENTRY e {
  x = f32[3,8] parameter(0)
  y = f32[8,2] parameter(1)
  bx = bf16[3,8] convert(x)
  by = bf16[8,2] convert(y)
  ROOT d = f32[3,2] dot(bx, by), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
""")
def dot_bf16_preferred(rng):
    x, y = f32(rng, 3, 8), f32(rng, 8, 2)
    return [x, y], [_to_bf16_and_back(x) @ _to_bf16_and_back(y)]


@case("""HloModule conv_batch_group
ENTRY e {
  x = f32[4,5,5,3] parameter(0)
  w = f32[3,3,3,2] parameter(1)
  ROOT c = f32[2,3,3,2] convolution(x, w), window={size=3x3}, dim_labels=b01f_01io->b01f, batch_group_count=2
}
""")
def conv_batch_group(rng):
    # batch_group_count=2: the batch splits into 2 contiguous groups; output
    # feature group g (2/2 = 1 feature each) sees batch group g only.
    x, w = f32(rng, 4, 5, 5, 3), f32(rng, 3, 3, 3, 2)
    outs = []
    for g in range(2):
        xb = x[2 * g:2 * g + 2]
        outs.append(_conv2d_nhwc(xb, w[..., g:g + 1], (1, 1), ((0, 0), (0, 0))))
    return [x, w], [np.concatenate(outs, axis=-1)]


@case("""HloModule scan_fusion_nested
fused {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  m = f32[4] multiply(a, b)
  ROOT s = f32[4] add(m, a)
}
cond {
  s = (s32[], f32[5,4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[5,4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  buf = f32[5,4] get-tuple-element(s), index=1
  v = f32[4] get-tuple-element(s), index=2
  f = f32[4] fusion(v, v), kind=kLoop, calls=fused
  row = f32[1,4] reshape(f)
  z = s32[] constant(0)
  nb = f32[5,4] dynamic-update-slice(buf, row, i, z)
  one = s32[] constant(1)
  ni = s32[] add(i, one)
  half = f32[] constant(0.5)
  hb = f32[4] broadcast(half), dimensions={}
  nv = f32[4] multiply(f, hb)
  ROOT t = (s32[], f32[5,4], f32[4]) tuple(ni, nb, nv)
}
ENTRY e {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  zb = f32[] constant(0)
  buf = f32[5,4] broadcast(zb), dimensions={}
  init = (s32[], f32[5,4], f32[4]) tuple(zero, buf, x)
  w = (s32[], f32[5,4], f32[4]) while(init), condition=cond, body=body
  b = f32[5,4] get-tuple-element(w), index=1
  v = f32[4] get-tuple-element(w), index=2
  inner = (f32[4], s32[]) tuple(v, zero)
  ROOT out = (f32[5,4], (f32[4], s32[])) tuple(b, inner)
}
""")
def scan_fusion_nested(rng):
    x = f32(rng, 4, lo=-1, hi=1)
    buf = np.zeros((5, 4), np.float32)
    v = x
    for i in range(5):
        f = v * v + v
        buf[i] = f
        v = f * np.float32(0.5)
    # Nested tuples flatten depth first: out0, out1 (v), out2 (zero).
    return [x], [buf, v, np.array(0, np.int32)]


@case("""HloModule dot_two_contracting
ENTRY e {
  x = f32[3,4,5] parameter(0)
  y = f32[5,4,2] parameter(1)
  ROOT d = f32[3,2] dot(x, y), lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}
}
""")
def dot_two_contracting(rng):
    x, y = f32(rng, 3, 4, 5), f32(rng, 5, 4, 2)
    return [x, y], [np.einsum("ikl,lkj->ij", x, y)]


@case("""HloModule transpose4d_reduce_middle
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[2,3,4,5] parameter(0)
  t = f32[5,3,2,4] transpose(x), dimensions={3,1,0,2}
  z = f32[] constant(0)
  r = f32[5,4] reduce(t, z), dimensions={1,2}, to_apply=add
  s = f32[2,2,2,2] slice(x), slice={[0:2], [1:3], [0:4:2], [1:5:3]}
  ROOT o = (f32[5,3,2,4], f32[5,4], f32[2,2,2,2]) tuple(t, r, s)
}
""")
def transpose4d_reduce_middle(rng):
    x = f32(rng, 2, 3, 4, 5)
    t = np.transpose(x, (3, 1, 0, 2))
    return [x], [t, t.sum(axis=(1, 2)), x[0:2, 1:3, 0:4:2, 1:5:3]]


@case("""HloModule sort_dim0_int
lt {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY e {
  k = s32[5,3] parameter(0)
  ROOT s = s32[5,3] sort(k), dimensions={0}, to_apply=lt
}
""")
def sort_dim0_int(rng):
    k = rng.integers(-1000, 1000, (5, 3)).astype(np.int32)
    return [k], [np.sort(k, axis=0)]


@case("""HloModule unsigned_edges
ENTRY e {
  u = u32[5] parameter(0)
  v = u32[5] parameter(1)
  d = u32[5] divide(u, v)
  r = u32[5] remainder(u, v)
  p = s32[5] parameter(2)
  q = s32[5] parameter(3)
  pw = s32[5] power(p, q)
  sl = s32[5] shift-left(p, q)
  m = s8[5] parameter(4)
  mm = s8[5] multiply(m, m)
  ROOT t = (u32[5], u32[5], s32[5], s32[5], s8[5]) tuple(d, r, pw, sl, mm)
}
""")
def unsigned_edges(rng):
    u = np.array([7, 0, 4_000_000_000, 9, 1], np.uint32)
    v = np.array([0, 0, 7, 3, 1], np.uint32)
    # XLA: unsigned x/0 = all ones, x%0 = x; an integer to a negative power
    # is 0 except for bases 1 and -1; a negative shift count shifts out.
    p = np.array([2, 1, -1, -1, 3], np.int32)
    q = np.array([-1, -5, -3, -2, -1], np.int32)
    m = np.array([100, -128, 12, -7, 127], np.int8)
    d = np.array([0xFFFFFFFF, 0xFFFFFFFF, 4_000_000_000 // 7, 3, 1], np.uint32)
    r = np.array([7, 0, 4_000_000_000 % 7, 0, 0], np.uint32)
    pw = np.array([0, 1, -1, 1, 0], np.int32)
    with np.errstate(all="ignore"):
        return [u, v, p, q, m], [d, r, pw, np.zeros(5, np.int32), m * m]


@case("""HloModule f16_edges
ENTRY e {
  x = f32[6] parameter(0)
  h = f16[6] convert(x)
  ROOT y = f32[6] convert(h)
}
""")
def f16_edges(rng):
    x = np.array([70000.0, 1e-7, 65519.0, 65520.0, -3e-5, 1 + 2**-11], np.float32)
    with np.errstate(over="ignore"):
        return [x], [x.astype(np.float16).astype(np.float32)]


@case("""HloModule bf16_input
ENTRY e {
  x = bf16[6] parameter(0)
  y = f32[6] convert(x)
  two = f32[] constant(2)
  b = f32[6] broadcast(two), dimensions={}
  ROOT m = f32[6] multiply(y, b)
}
""")
def bf16_input(rng):
    x = _to_bf16_and_back(f32(rng, 6, lo=-8, hi=8))
    bits = (x.view(np.uint32) >> 16).astype(np.uint16)
    return [(bits, "bf16")], [x * 2]


def differs(got, want):
    """Indices where got and want differ under the contract rule."""
    if want.dtype == np.bool_ or got.dtype == np.bool_:
        return np.argwhere(got.astype(bool) != want.astype(bool))
    if want.dtype.kind in "iu":
        # Integers (and bit patterns of bf16 and friends) must match exactly:
        # a relative 1e-3 would hide a wrong low bit in a large value.
        return np.argwhere(got.astype(np.int64) != want.astype(np.int64)) \
            if got.dtype != np.uint64 else np.argwhere(got != want)
    g, w = got.astype(np.float64), want.astype(np.float64)
    both_nan = np.isnan(g) & np.isnan(w)
    with np.errstate(all="ignore"):
        err = np.abs(g - w)
        bad = (err > 1e-3) & (err > 1e-3 * np.abs(w))
        bad |= np.isnan(g) != np.isnan(w)
        bad |= np.isinf(w) & (g != w)
    return np.argwhere(bad & ~both_nan)


def run_case(binary, workdir, name, hlo, fn):
    rng = np.random.default_rng(sum(map(ord, name)))  # seeded per case, stable
    args, want = fn(rng)
    module = os.path.join(workdir, name + ".hlo")
    args_path = os.path.join(workdir, name + ".args.npz")
    out_path = os.path.join(workdir, name + ".out.npz")
    with open(module, "w") as f:
        f.write(hlo)
    arrays = {}
    for k, a in enumerate(args):
        if isinstance(a, tuple):   # (bits, "bf16"): a type NumPy lacks
            arrays["arg%d" % k], arrays["arg%d.dtype" % k] = a[0], np.array(a[1].encode())
        else:
            arrays["arg%d" % k] = a
    np.savez(args_path, **arrays)
    cmd = [binary, "replay", module, "--args", args_path, "--out", out_path]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return ["timed out after 120 s"]
    if proc.returncode != 0:
        return ["exit %d: %s" % (proc.returncode, (proc.stdout + proc.stderr).strip()[-600:])]
    problems = []
    try:
        got = np.load(out_path)
    except Exception as e:   # a broken archive is a finding, not a crash
        return ["cannot read %s: %s" % (out_path, e)]
    for k, w in enumerate(want):
        key = "out%d" % k
        if key not in got.files:
            problems.append("%s missing (have %s)" % (key, got.files))
            continue
        g = got[key]
        w = np.asarray(w)
        if g.shape != w.shape or g.dtype != w.dtype:
            problems.append("%s is %s %s, want %s %s" % (key, g.dtype, g.shape, w.dtype, w.shape))
            continue
        bad = differs(g, w)
        if len(bad):
            at = tuple(bad[0])
            problems.append("%s: %d elements differ, first at %s: got %r want %r" %
                            (key, len(bad), at, g[at], w[at]))
    extra = [k for k in got.files if k.startswith("out") and k not in
             ["out%d" % i for i in range(len(want))] and not k.endswith(".dtype")]
    if extra:
        problems.append("unexpected outputs %s" % extra)
    return problems


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    binary, workdir, only = sys.argv[1], sys.argv[2], set(sys.argv[3:])
    os.makedirs(workdir, exist_ok=True)
    failed = ran = 0
    for name, hlo, fn in CASES:
        if only and name not in only:
            continue
        ran += 1
        problems = run_case(binary, workdir, name, hlo, fn)
        print("%-18s %s" % (name, "ok" if not problems else "FAIL"))
        for p in problems:
            print("    " + p)
        failed += bool(problems)
    print("numpy_diff: %d of %d cases failed" % (failed, ran))
    return 1 if failed or not ran else 0


if __name__ == "__main__":
    sys.exit(main())
