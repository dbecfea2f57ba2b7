"""2.1.88's line parse reads lines in place and refuses a long line no value can start on
from its head: the same values and diagnostics as decoding, trimming and parsing each line."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rechain.reference.js.jsonparse import JsonError, parse_text
from rechain.reference.js.text import JS_SPACE
from rechain.reference.model import Diagnostic, Options
from rechain.reference.profiles.claude_code_2_1_88.parse import (
    JSON_SPACE,
    line_views,
    numbered_lines,
    parse_values,
)

LONG = 70_000


def _decoded(raw: bytes, trimmed: bool) -> tuple[list[Any], list[str]]:
    """The parse as 2.1.88 states it: decode, trim, ``JSON.parse``."""
    text = raw.decode("utf-8", "replace").strip(JS_SPACE if trimmed else JSON_SPACE)
    if not text:
        return [], []
    try:
        return [orjson.loads(text)], []
    except orjson.JSONDecodeError:
        try:
            return [parse_text(text)], []
        except JsonError as error:
            return [], [f"not JSON: {error}"]


def _in_place(raw: bytes, trimmed: bool) -> tuple[list[Any], list[str]]:
    diagnostics: list[Diagnostic] = []
    values = [v for _, v in parse_values([(1, memoryview(raw))], diagnostics, trimmed)]
    return values, [d.detail for d in diagnostics]


@pytest.mark.parametrize("trimmed", [True, False])
@pytest.mark.parametrize("raw", [
    b"\x00" * LONG, b" " * LONG + b"\x00", "\u00a0".encode() * LONG + b"x", b"\xff" * LONG,
    b" " * LONG, b'{"a":1}' + b" " * LONG, b" " * LONG + b'{"a":1}', b"\x0c" * LONG + b"[1]",
    b"t" * LONG, "\ufeff".encode() + b"\x00" * LONG, b"\xe2\x80" + b"\x00" * LONG,
])
def test_long_lines_parse_as_decoded(raw: bytes, trimmed: bool) -> None:
    assert _in_place(raw, trimmed) == _decoded(raw, trimmed)


@given(st.lists(st.sampled_from([b"\x00", b" ", b"\xc2\xa0", b"\xff", b"{", b'"a"', b":", b"1",
                                 b"}", b"\\ud800", b"1e400", b"\r", b"\x0b"]), max_size=12),
       st.booleans())
def test_short_lines_parse_as_decoded(pieces: list[bytes], trimmed: bool) -> None:
    raw = b"".join(pieces)
    assert _in_place(raw, trimmed) == _decoded(raw, trimmed)


@pytest.mark.parametrize("data", [b"", b"\n", b"a\nb", b"a\nb\n", b"\xef\xbb\xbfa\n\nb\n\n"])
def test_line_views_are_the_numbered_lines(data: bytes) -> None:
    assert [(n, bytes(v)) for n, v in line_views(data)] == list(numbered_lines(data))


def test_the_chain_lines_are_read_in_place_and_kept_undecoded() -> None:
    """The SDK parser behind 2.1.88's ``read`` gets the chain's lines as views of the file
    (``ChainLines``) and keeps a row undecoded as it does a file's; the loader keeps the
    rows it could glance at undecoded too, and decodes a line JavaScript's ``trim()`` had
    to clean, which the SDK's parser then refuses."""
    from rechain.reference import rebuild
    from rechain.reference.lazyrows import Pending
    from rechain.reference.profiles.claude_code_2_1_88.glanced import Glanced
    from rechain.reference.profiles.claude_code_2_1_88.profile import ChainLines, read_chain
    from rechain.strategies import rows

    first = rows.dumps({"type": "user", "uuid": "u1", "parentUuid": None,
                        "timestamp": "2026-01-01T00:00:00.000Z", "sessionId": "s",
                        "message": {"role": "user", "content": "hi"}})
    second = rows.dumps({"type": "assistant", "uuid": "a1", "parentUuid": "u1",
                         "timestamp": "2026-01-01T00:00:01.000Z", "sessionId": "s",
                         "message": {"role": "assistant", "id": "m",
                                     "content": [{"type": "text", "text": "yo"}]}})
    data = first + b"\n" + "\u00a0".encode() + second + b"\n"
    source = read_chain(data, Options())
    lines = source.numbered_lines()
    assert isinstance(lines, ChainLines)
    assert [(n, bytes(v)) for n, v, _ in lines.views()] == [
        (1, first), (2, "\u00a0".encode() + second)]
    loaded = source.found.loaded
    assert type(loaded.messages["u1"]) is Glanced and type(loaded.messages["a1"]) is dict
    run = rebuild(data, "claude-code@2.1.88").run
    assert run is not None
    assert [type(e) for e in run.parsed.entries.stored()] == [Pending]
    assert [e["uuid"] for e in run.parsed.entries] == ["u1"]  # JSON.parse refuses the NBSP
