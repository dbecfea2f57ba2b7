"""``reference/js/values.json_stringify`` writes what Node's ``JSON.stringify`` writes for
parsed JSON values: key order, numbers of every size, escapes, lone surrogates.

From 2.1.303 the CLI sends a tool result whose content is not text, a list or null as
``JSON.stringify`` writes it, so the text must be Node's to the byte. One Node process
answers every value; skipped when ``node`` is missing.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from node_lines import NODE, ask, node_answering

from rechain.reference.js.values import json_stringify

pytestmark = [pytest.mark.xdist_group("node-jsstringify"),
              pytest.mark.skipif(NODE is None, reason="node is not installed")]
# each line a JSON value; the answer: JSON.stringify of what JSON.parse made of it, as a
# JSON string (so any character crosses the pipe on one line)
SCRIPT = ("const rl=require('readline').createInterface({input:process.stdin});"
          "rl.on('line',l=>{process.stdout.write("
          "JSON.stringify(JSON.stringify(JSON.parse(l)))+'\\n')});")


@pytest.fixture(scope="module")
def node() -> Iterator[subprocess.Popen[str]]:
    with node_answering(SCRIPT) as proc:
        yield proc


def node_text(proc: subprocess.Popen[str], value: Any) -> str:
    return ask(proc, value)  # Node wrote the text as a JSON string


EXAMPLES = [5, 5.0, -0.0, 0, 1.5, 1e21, 1e-7, 1.5e-7, 0.000001, 123456789012345678901234,
            12345678901234567890, 2**53 + 1, -2.5e-10, 1e300, None, True, False, "", "x",
            "quote \" back \\ slash", "\x00\x01\x08\t\n\x0b\x0c\r\x1f\x7f", "\u2028\u2029",
            "\ud800", "a\udfffb", "emoji \U0001f600", [], {}, {"a": 1, "b": [1, {"c": None}]},
            {"z": 1, "a": 2, "m": {"k": "v"}}, [[[]]], {"\ud800key": "\udc00"},
            # array-index keys come first, ascending; "01", "-1", 2**32 - 1 are not indices
            {"b": 1, "10": 2, "2": 3, "01": 4, "-1": 5, "4294967295": 6, "4294967294": 7,
             "\u0661": 8}]


@pytest.mark.parametrize("value", EXAMPLES, ids=repr)
def test_a_value_is_written_as_node_writes_it(node: subprocess.Popen[str], value: Any) -> None:
    assert json_stringify(value) == node_text(node, value)


CHARACTERS = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=())
SCALARS = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(CHARACTERS, max_size=8))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(CHARACTERS, max_size=4), inner, max_size=4),
                      max_leaves=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(VALUES)
def test_any_value_is_written_as_node_writes_it(node: subprocess.Popen[str], value: Any) -> None:
    assert json_stringify(value) == node_text(node, value)


def test_any_nesting_is_written() -> None:
    deep: list[Any] = []
    inner = deep
    for _ in range(50_000):
        inner.append([])
        inner = inner[0]
    assert json_stringify(deep) == "[" * 50_001 + "]" * 50_001
