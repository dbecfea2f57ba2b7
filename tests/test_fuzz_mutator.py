"""The structure-aware mutator: every operation survives any input and respects the size bound."""

from __future__ import annotations

import contextlib
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from rechain.fuzz import line_ops, value_ops
from rechain.fuzz.mutator import TranscriptMutator

VALID = (
    b'{"parentUuid":null,"type":"user","uuid":"u1","message":{"role":"user","content":"hi"},'
    b'"timestamp":"2026-11-20T09:00:00.000Z"}\n'
    b'{"parentUuid":"u1","type":"assistant","uuid":"a1","message":{"id":"msg_1","role":'
    b'"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]},'
    b'"timestamp":"2026-11-20T09:00:01.000Z"}\n'
)
OPS = (*line_ops.LINE_OPS, *value_ops.VALUE_OPS)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=400), st.integers(0, 2**32 - 1))
def test_every_operation_takes_any_bytes(data, seed):
    for op in OPS:
        lines = op(data.split(b"\n"), random.Random(seed))
        assert all(isinstance(line, bytes) for line in lines)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(16, 4096))
def test_outputs_fit_max_size(seed, max_size):
    mutator = TranscriptMutator(seed=seed)
    data = VALID
    for _ in range(20):
        out = mutator.mutate(data, max_size, seed)
        assert len(out) <= max_size
        data = out or VALID
    assert len(mutator.crossover(VALID, data, max_size, seed)) <= max_size


def test_byte_share_goes_to_the_byte_mutator():
    calls = []
    mutator = TranscriptMutator(lambda d, n: calls.append(n) or d[:n], byte_share=1.0)
    assert mutator.mutate(VALID, 100, 1) == VALID[:100]
    assert calls == [100]


def test_known_crashers_write_the_shapes_readers_died_on():
    seen = set()
    rng = random.Random(0)
    for _ in range(300):
        lines = value_ops.known_crashers(VALID.split(b"\n")[:2], rng)
        for line in lines:
            entry = json.loads(line)
            if entry.get("message", 0) is None:
                seen.add("message-null")
            if isinstance(entry.get("message"), dict) and entry["message"].get("content") == 42:
                seen.add("content-42")
            if "timestamp" not in entry:
                seen.add("no-timestamp")
    assert seen == {"message-null", "content-42", "no-timestamp"}


def test_not_an_object_makes_non_object_lines():
    rng = random.Random(3)
    kinds = set()
    for _ in range(200):
        for line in line_ops.not_an_object(VALID.split(b"\n")[:2], rng):
            with contextlib.suppress(ValueError):
                kinds.add(type(json.loads(line)).__name__)
    assert {"list", "str", "int", "NoneType", "bool"} <= kinds


def test_one_line_mode_keeps_one_line_and_changes_it():
    line = VALID.split(b"\n")[0]
    mutator = TranscriptMutator(one_line=True, seed=3)
    outs = [mutator.mutate(line, 4096, 0) for _ in range(2000)]
    assert not any(b"\n" in out for out in outs)
    assert all(len(out) <= 4096 for out in outs)
    assert sum(out != line for out in outs) > 1500
    crossed = [mutator.crossover(line, b"[1,2,3]", 64, 0) for _ in range(200)]
    assert all(len(out) <= 64 and b"\n" not in out for out in crossed)


def test_dictionary_and_mutator_share_one_vocabulary():
    from rechain.fuzz import dictionary, vocabulary

    tokens = set(dictionary.tokens())
    assert {f'"{t}"'.encode() for t in vocabulary.ENTRY_TYPES} <= tokens
    assert {f'"{k}":'.encode() for k in vocabulary.FLAGS} <= tokens
    assert set(vocabulary.KNOWN_CRASHERS) <= tokens
    assert value_ops.ENTRY_TYPES is vocabulary.ENTRY_TYPES
