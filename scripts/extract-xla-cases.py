#!/usr/bin/env python3
"""Extracts XLA's own test cases into fixtures for tests/exec/xla_cases_test.

A case is taken only when everything in it is literal: the module is a raw
string of HLO text, every argument and the expected result are
LiteralUtil::CreateR<N><T>(...) of constants, and the comparison is one we
can name (LiteralTestUtil::Equal / Near with an ErrorSpec, EXPECT_EQ of
literals, ExpectR<N>Equal / Near, GetFirstElement). Anything else is
skipped, never guessed: a wrong fixture would accuse the evaluator.

Usage: extract-xla-cases.py XLA_GIT_DIR OUT_DIR
Reads the files at HEAD of the XLA checkout (git show), writes per case
NAME.hlo (the module) and NAME.case:
  SOURCE <xla file> <Suite.Test>
  ERROR exact | ERROR abs=<a> rel=<r>
  REPLICAS <n>                (ExecuteReplicated; the .hlo then says
                               replica_count=<n>, the test's config)
  ARG <shaped literal>        (one per parameter, in order; every replica)
  EXPECT <shaped literal>     (or EXPECT@<replica>, one per checked replica)
The fixtures came from github:zml/xla at 1e203b533f97 (2025-11-05);
rerunning rewrites every .hlo/.case, known_failures.txt is kept.
"""

import os
import re
import subprocess
import sys

SOURCES = ["xla/hlo/evaluator/hlo_evaluator_test.cc"]
SOURCES_GLOB = "xla/tests/"

CPP_TYPES = {
    "float": "f32", "double": "f64", "int": "s32", "int32_t": "s32",
    "int64_t": "s64", "int8_t": "s8", "int16_t": "s16", "uint8_t": "u8",
    "uint16_t": "u16", "uint32_t": "u32", "uint64_t": "u64", "bool": "pred",
    "complex64": "c64", "complex128": "c128", "bfloat16": "bf16",
    "half": "f16", "Eigen::half": "f16", "xla::half": "f16",
    "Eigen::bfloat16": "bf16", "xla::bfloat16": "bf16", "int32": "s32",
    "int64": "s64", "uint32": "u32", "uint64": "u64", "uint8": "u8",
    "int8": "s8", "std::complex<float>": "c64",
    "std::complex<double>": "c128", "tsl::float8_e4m3fn": "f8e4m3fn",
}
INT_LIMITS = {
    "s8": (-2**7, 2**7 - 1), "s16": (-2**15, 2**15 - 1),
    "s32": (-2**31, 2**31 - 1), "s64": (-2**63, 2**63 - 1),
    "u8": (0, 2**8 - 1), "u16": (0, 2**16 - 1), "u32": (0, 2**32 - 1),
    "u64": (0, 2**64 - 1),
}
FLOAT_LIMITS = {"f32": ("3.40282347e+38", "1.17549435e-38"),
                "f64": ("1.7976931348623157e+308", "2.2250738585072014e-308"),
                "f16": ("65504", "6.1035156e-05"),
                "bf16": ("3.38953139e+38", "1.17549435e-38")}


class Skip(Exception):
  pass


def git_show(git_dir, path):
  return subprocess.run(["git", "--git-dir", git_dir, "show", "HEAD:" + path],
                        check=True, capture_output=True, text=True).stdout


def git_ls(git_dir, folder):
  out = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "--name-only",
                        "HEAD", folder], check=True, capture_output=True,
                       text=True).stdout
  return [p for p in out.split() if p.endswith("_test.cc")]


def skip_literal(src, i):
  """Index after the string/char/comment starting at i, or None."""
  if src.startswith('R"', i):
    m = re.match(r'R"([^(\s]*)\(', src[i:])
    if m:
      end = src.find(")" + m.group(1) + '"', i + m.end())
      return end + len(m.group(1)) + 2
  c = src[i]
  if c in "\"'":
    j = i + 1
    while j < len(src) and src[j] != c:
      j += 2 if src[j] == "\\" else 1
    return j + 1
  if src.startswith("//", i):
    j = src.find("\n", i)
    return len(src) if j < 0 else j
  if src.startswith("/*", i):
    return src.find("*/", i) + 2
  return None


def match_close(src, i):
  """src[i] is an opening ( { [; index of its partner."""
  pairs = {"(": ")", "{": "}", "[": "]"}
  stack = []
  j = i
  while j < len(src):
    if (src[j].isalnum() or src[j] == "_") and src.startswith('R"', j) and (
        j == 0 or not (src[j - 1].isalnum() or src[j - 1] == "_")):
      j = skip_literal(src, j)
      continue
    if src[j] in "\"'/" and not src[j].isalnum():
      k = skip_literal(src, j)
      if k is not None:
        j = k
        continue
    if src[j] in pairs:
      stack.append(pairs[src[j]])
    elif src[j] in ")}]":
      if not stack or stack.pop() != src[j]:
        raise Skip("unbalanced")
      if not stack:
        return j
    j += 1
  raise Skip("unbalanced")


def split_top(text, sep=","):
  """Splits at top-level separators (outside brackets and strings)."""
  parts, depth, cur, j = [], 0, [], 0
  while j < len(text):
    c = text[j]
    if c in "\"'":
      k = skip_literal(text, j)
      cur.append(text[j:k])
      j = k
      continue
    if c in "({[":
      depth += 1
    elif c in ")}]":
      depth -= 1
    if c == sep and depth == 0:
      parts.append("".join(cur).strip())
      cur = []
    else:
      cur.append(c)
    j += 1
  if "".join(cur).strip():
    parts.append("".join(cur).strip())
  return parts


NUM = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def scalar_text(expr, ty):
  """One C++ element expression as HLO literal text."""
  e = expr.strip()
  e = re.sub(r"\s+", "", e)
  while True:  # static_cast<T>(x), T(x), T{x}, (x)
    m = re.match(r"^(static_cast<[\w:]+>|[\w:]+)?[({](.*)[)}]$", e)
    if not m or (m.group(1) and m.group(1).split("::")[-1] in (
        "infinity", "quiet_NaN", "max", "min", "lowest", "epsilon",
        "denorm_min", "signaling_NaN")):
      break
    inner = m.group(2)
    try:
      if split_top(inner) != [inner]:
        break
    except Exception:
      break
    e = inner
  neg = e.startswith("-")
  body = e[1:] if neg else e
  body = re.sub(r"^std::numeric_limits<([\w:]+)>::", r"LIM<\1>::", body)
  m = re.match(r"^LIM<([\w:]+)>::(\w+)\(\)$", body)
  if m:
    lty = CPP_TYPES.get(m.group(1))
    what = m.group(2)
    if what in ("infinity",):
      out = "inf"
    elif what in ("quiet_NaN",):
      out = "nan"
    elif lty in INT_LIMITS and what in ("max", "min", "lowest"):
      lo, hi = INT_LIMITS[lty]
      v = hi if what == "max" else lo
      return str(-v if neg else v)
    elif lty in FLOAT_LIMITS and what in ("max", "lowest", "min"):
      big, small = FLOAT_LIMITS[lty]
      out = small if what == "min" else big
      if what == "lowest":
        neg = not neg
    else:
      raise Skip("limit " + body)
    return ("-" if neg else "") + out
  if body in ("NAN", "std::nanf(\"\")"):
    return "nan"
  if body in ("INFINITY", "HUGE_VALF", "HUGE_VAL"):
    return ("-" if neg else "") + "inf"
  if ty == "pred":
    if body in ("true", "false"):
      return body
    raise Skip("pred " + e)
  b = re.sub(r"(?<=[\d.])[fF]$", "", body)
  b = re.sub(r"(?<=\d)([uU]?[lL]{0,2}|[lL]{0,2}[uU]?)$", "", b)
  if not NUM.match(b):
    raise Skip("element " + e)
  if ty in INT_LIMITS or ty == "pred":
    if not re.match(r"^\d+$", b):
      raise Skip("int element " + e)
  return ("-" if neg else "") + b


def array_text(init, rank, ty):
  """A C++ nested initializer as (dims, HLO text)."""
  init = init.strip()
  if rank == 0:
    return [], element_text(init, ty)
  if not (init.startswith("{") and init.endswith("}")):
    raise Skip("not a braced initializer")
  inner = init[1:-1].strip()
  items = split_top(inner) if inner else []
  if rank == 1:
    return [len(items)], "{" + ", ".join(element_text(x, ty) for x in items) + "}"
  subs = [array_text(x, rank - 1, ty) for x in items]
  if not subs:
    return [0] * rank, "{}"
  dims = subs[0][0]
  if any(s[0] != dims for s in subs):
    raise Skip("ragged initializer")
  return [len(items)] + dims, "{" + ", ".join(s[1] for s in subs) + "}"


def element_text(x, ty):
  if ty in ("c64", "c128"):
    x = x.strip()
    m = re.match(r"^(?:complex(?:64|128)|std::complex<\w+>)?\s*[({](.*)[)}]$", x)
    parts = split_top(m.group(1)) if m else [x]
    if len(parts) == 1:
      parts.append("0")
    if len(parts) != 2:
      raise Skip("complex " + x)
    return "(" + scalar_text(parts[0], "f64") + ", " + scalar_text(
        parts[1], "f64") + ")"
  return scalar_text(x, ty)


def shaped(ty, dims, text):
  return "%s[%s] %s" % (ty, ",".join(map(str, dims)), text)


CREATE = re.compile(r"LiteralUtil::CreateR(\d)<\s*([\w:]+(?:<\w+>)?)\s*>\s*\(")


def literal_expr(expr, named):
  """A C++ expression making a Literal, as shaped HLO literal text."""
  e = expr.strip()
  e = re.sub(r"^std::move\((.*)\)$", r"\1", e, flags=re.S)
  if re.fullmatch(r"\w+", e):
    if e in named:
      return named[e]
    raise Skip("unknown literal " + e)
  m = CREATE.match(e)
  if m:
    close = match_close(e, m.end() - 1)
    rank, ty = int(m.group(1)), CPP_TYPES.get(m.group(2))
    if ty is None:
      raise Skip("type " + m.group(2))
    dims, text = array_text(e[m.end():close], rank, ty)
    rest = e[close + 1:].strip()
    if rest:
      r = re.fullmatch(r"\.Reshape\(\s*\{([\d,\s]*)\}\s*\)(\.value\(\))?", rest)
      if not r:
        raise Skip("after literal: " + rest[:30])
      new = [int(d) for d in r.group(1).replace(" ", "").split(",") if d]
      count = 1
      for d in dims:
        count *= d
      ncount = 1
      for d in new:
        ncount *= d
      if count != ncount or count != 0:
        raise Skip("reshape of data")  # only empty ones: the text is {}
      text = "{}"
      dims = new
    return shaped(ty, dims, text)
  m = re.match(r"LiteralUtil::MakeTuple(Owned|FromSlices)?\s*\(", e)
  if m:
    close = match_close(e, m.end() - 1)
    if e[close + 1:].strip():
      raise Skip("after tuple")
    inner = e[m.end():close].strip()
    if inner.startswith("{") and inner.endswith("}"):
      inner = inner[1:-1]
    elems = [literal_expr(x.lstrip("&"), named) for x in split_top(inner)]
    return "(" + ", ".join(elems) + ")"
  raise Skip("literal expression " + e[:40])


def error_spec(expr, specs):
  e = expr.strip()
  if e in specs:
    return specs[e]
  m = re.fullmatch(r"ErrorSpec\s*[({](.*)[)}]", e, flags=re.S)
  if not m:
    raise Skip("error spec " + e)
  parts = split_top(m.group(1))
  vals = [scalar_text(p, "f64") for p in parts]
  if len(vals) == 1:
    vals.append("0")
  if len(vals) != 2:
    raise Skip("error spec " + e)
  return "abs=%s rel=%s" % tuple(vals)


def hlo_of(raw):
  """The raw string as a module, dedented; None when it is a template."""
  if re.search(r"\$\w|%[sd]\b", raw) or "ENTRY" not in raw:
    return None
  if "HloModule" not in raw:  # the evaluator tests often leave it out
    raw = "HloModule m\n" + raw
  lines = raw.strip("\n").split("\n")
  indent = min((len(l) - len(l.lstrip()) for l in lines if l.strip()),
               default=0)
  return "\n".join(l[indent:] for l in lines).strip() + "\n"


RAW_DEF = re.compile(
    r'(?:const|constexpr|static|char|\*|std::string|absl::string_view|'
    r'string_view|auto|\s)+\s*(\w+)(?:\[\])?\s*=\s*R"([^(\s]*)\(')
LIT_DEF = re.compile(r"(?:const\s+)?(?:Literal|auto)\s+(\w+)\s*(=\s*|\()")
SPEC_DEF = re.compile(r"(?:const\s+)?ErrorSpec\s+(\w+)\s*(=\s*ErrorSpec\s*)?[({]")


def scan_defs(src):
  """Named raw strings, literals and error specs anywhere in `src`."""
  raws, lits, specs = {}, {}, {}
  for m in RAW_DEF.finditer(src):
    start = m.end()
    end = src.find(")" + m.group(2) + '"', start)
    h = hlo_of(src[start:end])
    if h:
      raws[m.group(1)] = (m.start(), h)
  return raws, lits, specs


def statements(body):
  """Top-level statements of a function body, with offsets."""
  out, start, j = [], 0, 0
  while j < len(body):
    c = body[j]
    k = skip_literal(body, j) if (c in "\"'/" or body.startswith('R"', j)) else None
    if k is not None:
      j = k
      continue
    if c in "({[":
      j = match_close(body, j) + 1
      continue
    if c in ";}":
      out.append((start, body[start:j + 1].strip()))
      start = j + 1
    j += 1
  return out


EVAL = re.compile(
    r"^(?:TF_ASSERT_OK_AND_ASSIGN\(\s*(?:(?:const\s+)?(?:Literal|auto|std::vector<Literal>)\s+)?(\w+)\s*,\s*|"
    r"(?:(?:const\s+)?(?:Literal|auto|std::vector<Literal>)\s+)?(\w+)\s*=\s*)"
    r"(?:this->|HloEvaluator\(\)\.|evaluator_\.)?(Evaluate|ExecuteReplicated|Execute|ExecuteAndTransfer|ExecuteNoHloPasses)\s*\(",
    re.S)
PARSE = re.compile(
    r"(?:TF_ASSERT_OK_AND_ASSIGN\(\s*(?:(?:std::unique_ptr<HloModule>|auto)\s+)?(\w+)\s*,|(\w+)\s*=)\s*"
    r"(?:this->)?(?:ParseAndReturn(?:Verified|Unverified)Module|ParseHloText)\s*\(\s*(\w+)\s*[,)]")


PARSE_RAW = re.compile(
    r"(?:TF_ASSERT_OK_AND_ASSIGN\(\s*(?:(?:std::unique_ptr<HloModule>|auto)\s+)?(\w+)\s*,|(\w+)\s*=)\s*"
    r"(?:this->)?(?:ParseAndReturn(?:Verified|Unverified)Module|ParseHloText)\s*\(\s*(?:/\*\w*=\*/\s*)?R\"([^(\s]*)\(")


INT_DEF = re.compile(r"^(?:static\s+)?(?:constexpr|const)\s+(?:int|int32_t|int64_t|"
                     r"size_t)\s+(\w+)\s*=\s*(\d+)\s*;$")


def with_replicas(hlo, replicas):
  """The module with XLA's test config made explicit: replica_count=N."""
  if replicas == 1 or "replica_count=" in hlo:
    return hlo
  lines = hlo.split("\n")
  for i, l in enumerate(lines):
    if l.startswith("HloModule"):
      head = l.rstrip()
      if head.endswith(","):
        head = head[:-1]
      lines[i] = head + ", replica_count=%d" % replicas
      return "\n".join(lines)
  return hlo


def arg_names(text):
  t = text.strip()
  if not t:
    return []
  if not (t.startswith("{") and t.endswith("}")):
    raise Skip("args " + t[:30])
  names = []
  for a in split_top(t[1:-1]):
    m = re.fullmatch(r"&\s*(\w+)", a)
    if not m:
      raise Skip("arg " + a)
    names.append(m.group(1))
  return names


def extract_test(name, body, file_raws, file_lits, file_specs, emit):
  raws = dict((k, v[1]) for k, v in file_raws.items())
  lits = dict(file_lits)
  specs = dict(file_specs)
  modules = {}  # module variable -> hlo text
  results = {}  # result variable -> (hlo, [arg literals], replicas)
  ints = {}  # integer constants (kNumReplicas)
  replicated = {}  # result variable -> [(replica, expected, spec)]
  current_module = None
  for _, st in statements(body):
    st = st.strip()
    if 'R"' not in st:  # comments inside initializers ("//" keeps a row)
      st = re.sub(r"//[^\n]*|/\*.*?\*/", "", st, flags=re.S).strip()
    m = INT_DEF.match(st)
    if m:
      ints[m.group(1)] = int(m.group(2))
      continue
    m = RAW_DEF.match(st)
    if m:
      end = st.find(")" + m.group(2) + '"', m.end())
      h = hlo_of(st[m.end():end])
      raws[m.group(1)] = h
      continue
    m = PARSE_RAW.search(st)
    if m:
      end = st.find(")" + m.group(3) + '"', m.end())
      current_module = modules[m.group(1) or m.group(2)] = hlo_of(
          st[m.end():end])
      continue
    m = PARSE.search(st)
    if m:
      var = m.group(1) or m.group(2)
      src_name = m.group(3)
      modules[var] = raws.get(src_name)
      current_module = modules[var]
      continue
    m = re.match(r"^(?:const\s+)?ErrorSpec\s+(\w+)\s*(.*);$", st, re.S)
    if m:
      try:
        rhs = m.group(2).lstrip("=").strip()
        specs[m.group(1)] = error_spec(
            rhs if rhs.startswith("ErrorSpec") else "ErrorSpec" + rhs, specs)
      except Skip:
        pass
      continue
    m = EVAL.match(st)
    if m:
      var = m.group(1) or m.group(2)
      close = match_close(st, m.end() - 1)
      tail = re.sub(r"\.(value|ConsumeValueOrDie)\(\)", "", st[close + 1:])
      if not re.fullmatch(r"\s*\)?\s*;", tail):
        continue
      call_args = split_top(st[m.end():close])
      hlo = current_module
      if m.group(3) != "Evaluate" and call_args:
        mm = re.fullmatch(r"std::move\((\w+)\)", call_args[0])
        hlo = modules.get(mm.group(1)) if mm else None
        call_args = call_args[1:]
      if (m.group(3) == "Evaluate" and call_args and
          re.fullmatch(r"\*\w+->entry_computation\(\)", call_args[0])):
        call_args = call_args[1:]
      replicas = 1
      if m.group(3) == "ExecuteReplicated":
        # (module, args, replica count, use_threads, run_hlo_passes)
        if len(call_args) < 2 or "num_partitions" in body:
          results[var] = None
          continue
        count = call_args[1].strip()
        replicas = int(count) if count.isdigit() else ints.get(count)
        if not replicas:
          results[var] = None
          continue
        call_args = call_args[:1]
        if call_args and re.fullmatch(r"absl::Span<Literal\*\s*const>\s*\{\}",
                                      call_args[0]):
          call_args = []
      if m.group(3) != "Evaluate" and len(call_args) == 2 and call_args[
          1] in ("true", "false"):  # run_hlo_passes: same values either way
        call_args = call_args[:1]
      if len(call_args) > 1:
        results[var] = None
        continue
      try:
        names = arg_names(call_args[0] if call_args else "")
        args = [literal_expr(n, lits) for n in names]
        results[var] = (hlo, args, replicas) if hlo else None
      except Skip:
        results[var] = None
      continue
    m = LIT_DEF.match(st)
    if m and (CREATE.search(st) or "MakeTuple" in st):
      rhs = st[m.end():].rstrip(";").strip()
      if m.group(2).startswith("("):
        rhs = rhs[:-1]
      try:
        lits[m.group(1)] = literal_expr(rhs, lits)
      except Skip:
        lits.pop(m.group(1), None)
      continue
    check = compare_of(st, lits, specs)
    if check:
      expected, result_var, spec = check
      r = re.fullmatch(r"(\w+)\[(\d+)\]", result_var)
      if r:  # one replica's result of ExecuteReplicated
        got = results.get(r.group(1))
        if got and got[2] > int(r.group(2)):
          replicated.setdefault(r.group(1), []).append(
              (int(r.group(2)), expected, spec))
        continue
      got = results.get(result_var)
      if got and expected and got[2] == 1:
        emit(name, got[0], got[1], [(None, expected)], spec, 1)
  for var, checks in replicated.items():
    if len(set(c[2] for c in checks)) == 1:
      hlo, args, replicas = results[var]
      emit(name, hlo, args, [(c[0], c[1]) for c in checks], checks[0][2],
           replicas)


def compare_of(st, lits, specs):
  """(expected literal text, result variable, error spec) of a check."""
  st = re.sub(r"\s+", " ", st) if "R\"" not in st else st
  try:
    m = re.match(r"^(?:EXPECT|ASSERT)_TRUE\( ?LiteralTestUtil::(Equal|Near)\((.*)\)\);$", st, re.S)
    if m:
      parts = split_top(m.group(2))
      spec = "exact"
      if m.group(1) == "Near":
        if len(parts) != 3:
          return None
        spec = error_spec(parts[2], specs)
      elif len(parts) != 2:
        return None
      return literal_expr(parts[0], lits), parts[1].strip(), spec
    m = re.match(r"^(?:EXPECT|ASSERT)_EQ\((.*)\);$", st, re.S)
    if m:
      parts = split_top(m.group(1))
      if len(parts) != 2:
        return None
      a, b = parts
      fe = re.fullmatch(r"(\w+)\.GetFirstElement<([\w:]+)>\(\)", a)
      if fe:
        ty = CPP_TYPES.get(fe.group(2))
        if not ty:
          return None
        return shaped(ty, [], scalar_text(b, ty)), fe.group(1), "exact"
      if re.fullmatch(r"\w+", a) and not (re.fullmatch(r"\w+", b) and b not in lits):
        return literal_expr(b, lits), a, "exact"
      if re.fullmatch(r"\w+", b):
        return literal_expr(a, lits), b, "exact"
      return None
    m = re.match(r"^LiteralTestUtil::ExpectR(\d)(Equal|Near)<([\w:]+)>\((.*)\);$", st, re.S)
    if m:
      rank, ty = int(m.group(1)), CPP_TYPES.get(m.group(3))
      parts = split_top(m.group(4))
      if not ty:
        return None
      spec = "exact"
      if m.group(2) == "Near":
        if len(parts) != 3:
          return None
        spec = error_spec(parts[2], specs)
      elif len(parts) != 2:
        return None
      dims, text = array_text(parts[0], rank, ty)
      return shaped(ty, dims, text), parts[1].strip(), spec
  except Skip:
    return None
  return None


TEST_HEAD = re.compile(r"^\s*(?:XLA_)?(?:TEST|TEST_F|TEST_P|XLA_TEST_F|XLA_TEST_P)\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{", re.M)


def class_defs(src):
  """Literals and error specs defined outside tests (fixture members)."""
  lits, specs = {}, {}
  for m in re.finditer(r"^\s*(?:(?:const\s+)?Literal\s+)?(\w+)\s*=\s*(LiteralUtil::.*?);\s*$", src, re.M | re.S):
    try:
      expr = re.sub(r"//[^\n]*", "", m.group(2))
      if expr.count("(") != expr.count(")"):
        continue
      lits[m.group(1)] = literal_expr(expr, lits)
    except Skip:
      pass
  for m in re.finditer(r"^\s*(?:const\s+)?ErrorSpec\s+(\w+)\s*(?:=\s*)?(ErrorSpec)?\s*([({][^;]*?[)}])\s*;", src, re.M):
    try:
      specs[m.group(1)] = error_spec("ErrorSpec" + m.group(3), specs)
    except Skip:
      pass
  return lits, specs


def main():
  git_dir, out_dir = sys.argv[1], sys.argv[2]
  paths = SOURCES + git_ls(git_dir, SOURCES_GLOB)
  os.makedirs(out_dir, exist_ok=True)
  for f in os.listdir(out_dir):
    if f.endswith((".hlo", ".case")):
      os.remove(os.path.join(out_dir, f))
  total = 0
  for path in paths:
    src = git_show(git_dir, path)
    heads = list(TEST_HEAD.finditer(src))
    first = heads[0].start() if heads else len(src)
    file_raws, _, _ = scan_defs(src[:first])
    outside, last = [], 0
    for h in heads:  # fixture members are set between tests too
      outside.append(src[last:h.start()])
      try:
        last = match_close(src, h.end() - 1) + 1
      except Skip:
        last = h.end()
    outside.append(src[last:])
    file_lits, file_specs = class_defs("".join(outside))
    stem = os.path.basename(path)[:-len("_test.cc")]
    for h in heads:
      try:
        close = match_close(src, h.end() - 1)
      except Skip:
        continue
      body = src[h.end():close]
      test = "%s.%s" % (h.group(1), h.group(2))
      seen = []

      def emit(name, hlo, args, expects, spec, replicas):
        nonlocal total
        seen.append(1)
        base = "%s__%s" % (stem, h.group(2))
        if len(seen) > 1:
          base += "_%d" % len(seen)
        with open(os.path.join(out_dir, base + ".hlo"), "w") as fh:
          fh.write(with_replicas(hlo, replicas))
        with open(os.path.join(out_dir, base + ".case"), "w") as fh:
          fh.write("SOURCE %s %s\nERROR %s\n" % (path, name, spec))
          if replicas > 1:
            fh.write("REPLICAS %d\n" % replicas)
          for a in args:
            fh.write("ARG %s\n" % a)
          for replica, expected in expects:
            at = "" if replica is None else "@%d" % replica
            fh.write("EXPECT%s %s\n" % (at, expected))
        total += 1

      try:
        extract_test(test, body, file_raws, file_lits, file_specs, emit)
      except Skip:
        pass
  print("extracted %d cases" % total)


if __name__ == "__main__":
  main()
