"""Scoped instrumentation: only the named modules' functions get Atheris probes."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("atheris")

# in a child process: patching is for the life of the interpreter, not for this test session
PROBE = """
from rechain.fuzz import fuzz_parse_line
from rechain.fuzz.scope import instrument_modules
from rechain.reference import parse
from rechain.reference.js import jsonparse

def on(function):
    return "__ATHERIS_INSTRUMENTED__" in function.__code__.co_consts

count = instrument_modules(["rechain.reference.parse"])
assert count > 0
assert on(parse.parse_sdk)
assert not on(jsonparse.parse_text)
assert not on(fuzz_parse_line.one_input)
# still the same parser: a line is classified, a broken one explained
assert len(parse.parse_sdk([(1, b'{"type":"user","uuid":"u"}')]).entries) == 1
assert parse.parse_sdk([(1, b"{")]).diagnostics[0].kind == "invalid-json"
assert instrument_modules(["rechain.reference.parse"]) == count
print("scoped", count)
"""


def test_named_module_is_instrumented_and_others_are_not():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("scoped ")
