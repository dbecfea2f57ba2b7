"""Triggers: the known kinds of odd entry a failing input is filed under."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rechain.fuzz.traits import TRIGGERS, causal, repair, traits, trigger, variant

AWARE = b'{"type":"user","uuid":"a","timestamp":"2026-11-20T09:00:00Z","message":{"content":"hi"}}'


def test_a_clean_transcript_has_no_trigger():
    assert trigger(AWARE + b"\n") == ""
    assert variant("E@f:g:1", AWARE) == "E@f:g:1"


def test_each_trigger_is_recognised():
    cases = {
        b'{"type":"user","message":null}': "message-null",
        b'{"type":"user","message":0,"timestamp":"2026-11-20T09:00:00Z"}': "message-not-object",
        b'{"type":"user","message":{"content":42},"timestamp":"x"}': "content-number",
        b'{"type":"user","message":{},"timestamp":"2026-11-20T09:00:00"}': "timestamp-no-zone",
        b'{"type":"assistant","message":{}}': "timestamp-missing",
        b"[1]": "non-object-line",
    }
    assert set(cases.values()) == set(TRIGGERS)
    for line, name in cases.items():
        assert trigger(AWARE + b"\n" + line + b"\n") == name, line


def test_priority_and_unparsable_lines():
    both = b'{"type":"user","message":null}\n{"type":"user","message":0}\n'
    assert traits(both) >= {"message-null", "message-not-object", "timestamp-missing"}
    assert trigger(both) == "message-null"
    # not JSON, invalid UTF-8, deep nesting: no trigger, and no exception
    assert trigger(b"{\n\xff\xfe\n" + b"[" * 100_000 + b"\n") == ""
    # a type that is no string (unhashable, too) is not a message's
    assert trigger(b'{"type":[]}\n{"type":{},"message":{}}\n') == ""
    assert repair(b'{"type":[]}', "timestamp-missing") == b'{"type":[]}'
    # a system row without a timestamp is not a message missing one
    assert trigger(b'{"type":"system","subtype":"x"}\n') == ""


def _fails_on_non_objects(data: bytes) -> bool:
    lines = [json.loads(line) for line in data.splitlines() if line.strip()]
    return any(type(value) is not dict for value in lines)


def test_a_bystander_is_not_the_trigger():
    data = b'{"type":"user","message":null}\n[]\n'
    assert trigger(data) == "message-null"  # the first one held ...
    assert causal(data, _fails_on_non_objects) == "non-object-line"  # ... is not the cause
    # a reader that fails whatever is repaired: no trigger is the cause
    assert causal(data, lambda candidate: True) == ""


def test_repair_undoes_one_trigger_and_keeps_the_rest():
    data = AWARE + b'\n{"type":"assistant","message":{"content":42}}\nnot json\n'
    fixed = repair(data, "content-number")
    assert b'"content":"x"' in fixed and b"not json" in fixed
    assert "timestamp-missing" in traits(fixed) and "content-number" not in traits(fixed)
    assert repair(data, "timestamp-missing").count(b"timestamp") == 2
    assert repair(AWARE, "message-null") == AWARE  # nothing to undo: byte for byte
    # a line that is not strict UTF-8 (an encoded surrogate) is left alone, not re-encoded
    odd = b'{"type":"user","message":null,"x":"\xed\xa0\x80"}'
    assert trigger(odd) == "" and repair(odd, "message-null") == odd


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(("type", "message", "content", "timestamp")), inner)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(max_size=40) | _JSON.map(lambda v: json.dumps(v).encode()), max_size=4))
def test_never_raises_on_any_lines(lines):
    data = b"\n".join(lines)
    assert trigger(data) in (*TRIGGERS, "")
    for name in TRIGGERS:
        assert isinstance(repair(data, name), bytes)
