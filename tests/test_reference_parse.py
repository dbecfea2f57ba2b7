"""Stage 2 (and the JSON parser): what the TS SDK keeps from each line, and why not."""

from __future__ import annotations

import pytest
from transcript_rows import assistant, jsonl, user

from rechain.reference import rebuild
from rechain.reference.js.jsonparse import JsonError, parse_line, parse_text
from rechain.reference.parse import parse_sdk
from rechain.reference.read import read_whole


def kinds(data: bytes) -> list[tuple[int | None, str]]:
    """The findings as read (``Parsed.findings``: a glanced line's bad bytes are reported
    when they are first asked for)."""
    return [(d.line, d.kind) for d in parse_sdk(read_whole(data).numbered_lines()).findings()]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a":"\\ud800"}', {"a": "\ud800"}),  # JSON.parse keeps lone surrogate escapes
        ("[1e400]", [float("inf")]),  # a double overflows to Infinity
        ("[12345678901234567890123]", [1.2345678901234568e22]),
        (' \t{"a":1}\r\n ', {"a": 1}),
        ('{"a":1,"a":2}', {"a": 2}),
    ],
)
def test_json_parse_accepts_what_javascript_accepts(text: str, value: object) -> None:
    assert parse_text(text) == value


@pytest.mark.parametrize(
    "text", ["\ufeff{}", '{"a":NaN}', "[1,]", "{'a':1}", "\u00a0{}", "{}\f", "01", '"\x01"', ""]
)
def test_json_parse_rejects_what_javascript_rejects(text: str) -> None:
    with pytest.raises(JsonError):
        parse_text(text)


def test_deep_nesting_parses_without_recursion() -> None:
    depth = 200_000
    value, replaced = parse_line(b"[" * depth + b"]" * depth)
    assert not replaced
    for _ in range(depth - 1):
        value = value[0]
    assert value == []


def test_invalid_utf8_becomes_replacement_character() -> None:
    value, replaced = parse_line(b'{"a":"x\xff\xfey"}')
    assert replaced and value == {"a": "x\ufffd\ufffdy"}


def test_each_skipped_line_has_its_number_and_reason() -> None:
    data = jsonl(
        user("u1", None),
        "",
        "   \t",
        "not json",
        "null",
        "[1, 2]",
        '{"type":"summary","summary":"s","leafUuid":"u1"}',
        '{"type":"user","uuid":7}',
        b'{"type":"user","uuid":"u9","parentUuid":null,"sessionId":"s1","message":{"role":"user","content":"\xff"}}',
        "\ufeff" + '{"type":"user","uuid":"u8","parentUuid":null}',
    )
    assert kinds(data) == [
        (2, "blank"),
        (3, "blank"),
        (4, "invalid-json"),
        (5, "not-an-object"),
        (6, "not-an-object"),
        (7, "ignored-type"),
        (8, "missing-uuid"),
        (9, "invalid-utf8"),
        (10, "invalid-json"),
    ]


def test_leading_control_bytes_are_skipped_but_a_trailing_form_feed_is_not() -> None:
    data = jsonl(
        b"\x01\x1f " + jsonl(user("u1", None)).strip(),
        jsonl(assistant("a1", "u1")).strip() + b"\x0c",
    )
    result = rebuild(data)
    assert result.uuids == ["u1"]
    assert [(d.line, d.kind) for d in result.diagnostics if d.kind == "invalid-json"] == [
        (2, "invalid-json")
    ]


def test_crlf_lines_parse_and_a_lone_cr_does_not_split() -> None:
    first, second = jsonl(user("u1", None)).strip(), jsonl(assistant("a1", "u1")).strip()
    assert rebuild(first + b"\r\n" + second + b"\r\n").uuids == ["u1", "a1"]
    assert rebuild(first + b"\r" + second + b"\n").uuids == []


def test_voice_call_talk_rows_become_user_rows() -> None:
    row = {
        "type": "system",
        "subtype": "voice_call_talk",
        "uuid": "v1",
        "parentUuid": None,
        "content": "spoken",
        "origin": {"kind": "voice-call"},
        "sessionId": "s1",
        "level": "info",
    }
    result = rebuild(jsonl(row))
    assert result.uuids == ["v1"]
    assert result.messages[0]["type"] == "user"
    assert result.messages[0]["message"] == {"role": "user", "content": "spoken"}
    assert result.messages[0]["origin"] == {"kind": "voice-call"}


def test_a_voice_row_from_another_origin_stays_a_system_row() -> None:
    row = {
        "type": "system",
        "subtype": "voice_call_talk",
        "uuid": "v1",
        "parentUuid": None,
        "content": "spoken",
        "origin": {"kind": "human"},
    }
    assert rebuild(jsonl(row)).uuids == []
