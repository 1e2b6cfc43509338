#!/usr/bin/env python3
"""Extracts XLA's parser and verifier tests into labelled modules: the oracle
of tests/hlo/xla_labels_test (how many of XLA's negatives `check` flags, and
that it flags none of its valid modules).

Usage: extract-xla-labels.py XLA_GIT_DIR OUT_DIR
Reads, at HEAD of the XLA checkout (git show),
  xla/hlo/parser/hlo_parser_test.cc   (source "parser")
  xla/service/hlo_verifier_test.cc    (source "verifier")
and writes OUT_DIR/NAME.hlo (the module text, byte for byte) and
OUT_DIR/LABELS.tsv, one case a line:
  NAME <TAB> SOURCE <TAB> EXPECT <TAB> OPTIONS <TAB> MESSAGE
EXPECT is `valid` (XLA parses and verifies it), `parses` (XLA parses it
unverified and the test says no more: only the parser's findings count),
`parser-error` (the unverified parse fails) or `verifier-error` (the
verified parse or the verifier run fails). OPTIONS is the `--verify=` list
of the fixture or of the HloVerifierOpts the test builds (`default` for
XLA's defaults). MESSAGE is the substring XLA's test expects, `-` if none.

A test is taken only when it holds exactly one module string, used as is:
tests that build or change the module in code, format a template, or parse
several modules are skipped, never guessed (a wrong label would accuse the
checker). The labels came from github:zml/xla at HEAD of the mirror on
2026-12-05; rerunning rewrites every file.
"""

import os
import re
import subprocess
import sys

SOURCES = {
    "parser": "xla/hlo/parser/hlo_parser_test.cc",
    "verifier": "xla/service/hlo_verifier_test.cc",
}

# Fixture -> the --verify= list its HloVerifier runs with. Fixtures not here
# (custom opts we have no switch for) are skipped.
FIXTURES = {
    # XLA's free ParseAndReturnVerifiedModule allows mixed precision (its
    # TupleScatter case mixes f32 and bf16 operands).
    "HloParserTest": "allow_mixed_precision",
    "HloVerifierTest": "default",
    "HloVerifierTestAllowMixedPrecision": "allow_mixed_precision",
    "HloVerifierTestLayoutSensitive": "layout_sensitive",
    "HloVerifierTestLayoutSensitiveAndAllowMixedPrecision":
        "layout_sensitive,allow_mixed_precision",
    "HloVerifierTestLayoutFusion": "layout_sensitive",
    "HloVerifierTestForCollectiveDeadlocks": "verify_no_collective_deadlocks",
}

# HloVerifierOpts builder calls -> our option names.
OPT_CALLS = {
    "MakeLayoutSensitive()": "layout_sensitive",
    "VerifyCallNestedComputationThreadName()":
        "verify_call_nested_computation_thread_name",
    "VerifyBroadcastDimensionsOrder()": "verify_broadcast_dimensions_order",
    "VerifyInstructionNameUnchanged()": "verify_instruction_name_unchanged",
    "VerifyReshapeIsBitcast()": "verify_reshape_is_bitcast",
    "VerifyNoHostMemorySpace()": "verify_no_host_memory_space",
}

# Code that builds, changes or templates the module: the text alone is not
# what XLA checked.
MUTATORS = [
    "Builder", "AddInstruction", "->set_", ".set_", "mutable_", "Replace",
    "RemoveInstruction", "CreateFromProto", "ToProto", "Clone(", "StrFormat",
    "Substitute", "StrCat(", "AddEmbeddedComputation", "SetAndSanitizeName",
    "set_root", "ShapeUtil::", "AppendOperand", "DetachFromOperands",
    "CreateParameter", "Cast<", "DynCast<", "RunHloPass",
    "TargetVerifierMetadata", "HloVerifierOpts opts", "WithAllowUnbounded",
    "WithCheckReplicaGroups", "Parse(", "ParseShape", "ParseSharding",
    "ParseWindow", "ParseConvolution", "ParsePaddingConfig", "ParseReplica",
    "ParseLayout", "ParseSingleInstruction", "HloParserOptions", "config.",
    "ParseAndReturnUnverifiedModule(hlo, {", "HloModuleConfig config",
]

RAW_RE = re.compile(r'R"([^(\s]{0,16})\((.*?)\)\1"', re.S)
TEST_RE = re.compile(r"^TEST(_F)?\((\w+),\s*(\w+)\)", re.M)
STR_RE = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def git_show(git_dir, path):
  return subprocess.run(["git", "--git-dir", git_dir, "show", "HEAD:" + path],
                        check=True, capture_output=True, text=True).stdout


def unescape(s):
  return bytes(s, "utf-8").decode("unicode_escape")


def blocks(text):
  """(fixture, name, body) of every TEST/TEST_F, body up to the next test."""
  found = list(TEST_RE.finditer(text))
  for i, m in enumerate(found):
    end = found[i + 1].start() if i + 1 < len(found) else len(text)
    yield m.group(2), m.group(3), text[m.end():end]


def test_data(text, function):
  """(name, module) of the TestData entries returned by `function`."""
  start = text.find("std::vector<TestData> %s()" % function)
  if start < 0:
    return
  end = text.find("\n});", start)
  for m in re.finditer(r'\{\s*"(\w+)",\s*R"\((.*?)\)"', text[start:end], re.S):
    yield m.group(1), m.group(2)


def expected_messages(body):
  """The string literals that HasSubstr / ExpectHasSubstr expect."""
  out = []
  for m in re.finditer(r"HasSubstr\(", body):
    i = m.end()
    if body[m.start() - 6:m.start()] == "Expect":  # ExpectHasSubstr(s, "x")
      depth, j = 0, i
      while j < len(body):
        if body[j] == "(":
          depth += 1
        elif body[j] == ")":
          depth -= 1
        elif body[j] == "," and depth == 0:
          break
        j += 1
      i = j + 1
    lits = []
    while True:
      ws = re.match(r'\s*"', body[i:])
      if not ws:
        break
      lit = STR_RE.match(body, i + ws.end() - 1)
      lits.append(unescape(lit.group(1)))
      i = lit.end()
    if lits:
      out.append("".join(lits))
  return out


def module_strings(body):
  """The module texts of a test: raw strings, or one plain literal."""
  mods = [m.group(2) for m in RAW_RE.finditer(body)
          if "ENTRY" in m.group(2) or "HloModule" in m.group(2)]
  if mods:
    return mods
  m = re.search(r'(?:original|hlo_string|kHlo\w*)\s*=\s*((?:\s*"(?:[^"\\\n]|'
                r'\\.)*")+)\s*;', body)
  if m:
    return ["".join(unescape(s) for s in STR_RE.findall(m.group(1)))]
  return []


def drop_output_checks(body):
  """Drops ExpectHasSubstr(module->ToString(...), "...") calls: they check
  what a parsed module prints (a positive test), not an error message."""
  return re.sub(r'ExpectHasSubstr\(\s*\w+->ToString\([^;]*;', '', body)


def negative(body):
  body = drop_output_checks(body)
  return bool(re.search(r"HasSubstr|EXPECT_NE\(absl::OkStatus\(\)|"
                        r"EXPECT_FALSE\([^;]*ok\(\)\)|ASSERT_FALSE\([^;]*ok\(\)\)|"
                        r"StatusIs\(|EXPECT_THAT\([^;]*Not\(IsOk",
                        body))


def positive(body):
  return bool(re.search(r"TF_ASSERT_OK|TF_EXPECT_OK|ASSERT_OK|EXPECT_OK|"
                        r"EXPECT_TRUE\([^;]*ok\(\)\)|IsOk\(\)", body))


def options_of(fixture, body):
  opts = re.findall(r"HloVerifierOpts\{\}((?:\s*\.\w+\(\))+)", body)
  if not opts:
    return FIXTURES.get(fixture)
  names = []
  for chain in opts:
    for call in re.findall(r"\.(\w+\(\))", chain):
      if call not in OPT_CALLS:
        return None
      names.append(OPT_CALLS[call])
  return ",".join(sorted(set(names))) or "default"


def label(source, fixture, body):
  """(expect, options, message) of one TEST_F body, or None to skip it."""
  options = options_of(fixture, body)
  if options is None or any(m in body for m in MUTATORS):
    return None
  verified = "ParseAndReturnVerifiedModule" in body
  unverified = "ParseAndReturnUnverifiedModule" in body
  if not (verified or unverified):
    return None
  runs_verifier = verified or "erifier" in body
  if negative(body):
    messages = expected_messages(drop_output_checks(body))
    if len(messages) > 1:
      return None
    message = messages[0] if messages else "-"
    if source == "parser" and unverified and not verified:
      return "parser-error", options, message
    if source == "verifier" or verified:
      return "verifier-error", options, message
    return None
  if positive(body) or "EXPECT_EQ(" in body or "EXPECT_THAT(" in body:
    return ("valid" if runs_verifier else "parses"), options, "-"
  return None


def main():
  git_dir, out_dir = sys.argv[1], sys.argv[2]
  os.makedirs(out_dir, exist_ok=True)
  for old in os.listdir(out_dir):
    if old.endswith(".hlo"):
      os.remove(os.path.join(out_dir, old))
  rows, skipped = [], 0
  for source, path in SOURCES.items():
    text = git_show(git_dir, path)
    cases = []
    if source == "parser":
      for function in ("CreateTestCases", "CreateShortTestCases"):
        for name, module in test_data(text, function):
          cases.append((name, ("valid", "allow_mixed_precision", "-"), module))
    for fixture, name, body in blocks(text):
      mods = module_strings(body)
      got = label(source, fixture, body) if len(mods) == 1 else None
      if got is None:
        skipped += 1
        continue
      cases.append((fixture + "." + name, got, mods[0]))
    for name, (expect, options, message), module in cases:
      case = "%s__%s" % (source, name)
      with open(os.path.join(out_dir, case + ".hlo"), "w") as f:
        f.write(module)
      message = message.replace("\t", "\\t").replace("\n", "\\n") or "-"
      rows.append("\t".join([case, source, expect, options, message]))
  with open(os.path.join(out_dir, "LABELS.tsv"), "w") as f:
    f.write("# made by scripts/extract-xla-labels.py; "
            "NAME SOURCE EXPECT OPTIONS MESSAGE\n")
    f.write("\n".join(sorted(rows)) + "\n")
  print("%d cases, %d tests skipped" % (len(rows), skipped))


if __name__ == "__main__":
  main()
