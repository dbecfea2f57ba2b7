"""What travels between rechain and its oracle processes: request and reply lines, scratch."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from rechain.conformance.jsonl_process import dumps_line, loads_line
from rechain.conformance.oracles import scratch
from rechain.reference import rebuild


def test_request_lines_are_ascii_json_whatever_the_text() -> None:
    for payload in ({"cmd": "x", "b64": "QUJD", "n": [1, None, True]},
                    {"session_id": "caf\u00e9 \U0001f600"},
                    {"session_id": "lone \ud800 surrogate"},
                    {"n": 2**70}):
        line = dumps_line(payload)
        assert line.endswith(b"\n") and line.count(b"\n") == 1 and line.isascii()
        assert json.loads(line) == payload


def test_reply_lines_read_as_javascript_meant_them() -> None:
    assert loads_line(b'{"a":"\\ud800x","b":1}\n') == {"a": "\ud800x", "b": 1}
    assert loads_line(b'{"a":"caf\xc3\xa9"}') == {"a": "caf\u00e9"}
    assert loads_line(b"not json") is None
    nan = loads_line(b'{"x": NaN}')  # the Python SDK worker writes NaN as Python does
    assert nan is not None and math.isnan(nan["x"])


@pytest.mark.parametrize("digits", ["18446744073709552000", "100000000000000000000"])
def test_integers_beyond_64_bits_are_the_double_the_reference_reads(digits: str) -> None:
    line = ('{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s",'
            f'"message":{{"role":"user","content":"x","n":{digits}}}}}\n').encode()
    expected = rebuild(line).messages[0]["message"]["n"]
    for reply in (f'{{"n":{digits}}}', f'{{"n":{digits},"s":"\\udc00"}}'):  # both parsers
        got = loads_line(reply.encode())["n"]
        assert type(got) is type(expected) and got == expected


def test_scratch_goes_where_asked_else_to_memory(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(scratch.ENV, str(tmp_path))
    with scratch.scratch("rechain-test-") as made:
        assert made.parent == tmp_path.resolve() and made.is_dir()
    assert not made.exists()
    monkeypatch.delenv(scratch.ENV)
    if scratch.MEMORY.is_dir():
        assert scratch.scratch_parent() == str(scratch.MEMORY)
