"""``reference/js/values.to_string`` and ``property_key`` agree with Node's ``String`` and
object keys, for parsed JSON values (numbers of every size, arrays, objects).

2.0.76 matches a call to its result through an object keyed by the results' ids, so
the key a JSON value makes decides what is answered. One Node process answers every
value; skipped when ``node`` is missing.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from node_lines import NODE, ask, node_answering

from rechain.reference.js.values import property_key, to_string

pytestmark = [pytest.mark.xdist_group("node-jskeys"),
              pytest.mark.skipif(NODE is None, reason="node is not installed")]
# each line a JSON value; the answer: the key it makes, or null when making it throws
SCRIPT = ("const rl=require('readline').createInterface({input:process.stdin});"
          "rl.on('line',l=>{let k=null;try{k=Object.keys(Object.fromEntries("
          "[[JSON.parse(l),1]]))[0]}catch(e){}process.stdout.write(JSON.stringify(k)+'\\n')});")


@pytest.fixture(scope="module")
def node() -> Iterator[subprocess.Popen[str]]:
    with node_answering(SCRIPT) as proc:
        yield proc


def node_key(proc: subprocess.Popen[str], value: Any) -> str | None:
    return ask(proc, value)


def mine(value: Any) -> str | None:
    try:
        return property_key(value)
    except TypeError:
        return None


EXAMPLES = [5, 5.0, -0.0, 1.5, 1e21, 1e-7, 1.5e-7, 0.000001, 123456789012345678901234,
            12345678901234567890, 2**53 + 1, -2.5e-10, 1e300, 100.0, None, True, False,
            "x", "", [], ["a"], ["a", None, 1], [[1, [2]], 3], {}, {"a": 1},
            {"toString": 1}, [{"toString": "x"}], {"valueOf": 1}, {"toString": None}]


@pytest.mark.parametrize("value", EXAMPLES, ids=[json.dumps(v) for v in EXAMPLES])
def test_keys_as_node_makes_them(node: subprocess.Popen[str], value: Any) -> None:
    assert mine(value) == node_key(node, value)


def test_a_number_or_null_key_is_never_equal_to_the_value() -> None:
    """What makes 2.0.76 drop a call whose id is 5: its key is the string "5"."""
    assert property_key(5) == "5" != 5
    assert to_string(12345678901234567890) == "12345678901234567000"


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["a", "toString", "valueOf"]), inner, max_size=2),
    max_leaves=6)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(JSON_VALUES)
def test_any_json_value_keys_as_node_makes_it(node: subprocess.Popen[str], value: Any) -> None:
    assert mine(value) == node_key(node, value)
