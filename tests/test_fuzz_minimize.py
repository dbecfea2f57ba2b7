"""Shrinking: delta debugging over lines, JSON keys and bytes keeps the failure, drops the rest."""

from __future__ import annotations

import json

from rechain.fuzz.minimize import ddmin, shrink


def test_ddmin_finds_the_one_needed_item():
    assert ddmin(list(range(40)), lambda kept: 17 in kept) == [17]
    assert ddmin(list(range(10)), lambda kept: {2, 7} <= set(kept)) == [2, 7]


def _message_null(data: bytes) -> bool:
    for line in data.split(b"\n"):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and "message" in value and value["message"] is None:
            return True
    return False


def test_shrink_keeps_only_the_failing_line_and_key():
    lines = [
        json.dumps({"type": "user", "uuid": f"u{i}", "message": {"content": "x" * 50}})
        for i in range(30)
    ]
    lines[12] = json.dumps({"type": "user", "uuid": "bad", "message": None, "cwd": "/tmp"})
    data = ("\n".join(lines) + "\n").encode()
    small = shrink(data, _message_null, seconds=900)  # the call budget ends it
    assert small == b'{"message":null}\n'


def test_shrink_bytes_of_a_non_json_line():
    data = b"garbage[[[ nested ]]] tail\n"
    assert shrink(data, lambda d: b"[[[" in d, seconds=900) == b"[[[\n"


def test_shrink_returns_the_input_when_it_does_not_fail():
    assert shrink(b"ok\n", lambda d: False) == b"ok\n"
