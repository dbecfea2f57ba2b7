"""The CLI's JSONL reader gives the same values, lines and messages whether it reads a
UTF-8 buffer in place or the buffer decoded to text first (as it reads any other)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rechain.reference.js.jsonl import _read_bytes, _read_text, read_values

PIECES = [
    b'{"a":1}', b'{"a":', b'1}', b'"x"', b'[1,2', b']', b'\xc3\xa9', b'\xe2\x80\xa8',
    b'\xf0\x9f\x98\x80', b'{"s":"\xc3\xa9\\ud800"}', b'1e400', b'{"n":1e400}', b' ', b'\t',
    b'\r', b'\x0c', b'\x00', b'"',
    b'\\', b'\\u12', b'{"k"', b':', b',', b'}', b'true', b'nul', b'-', b'\xef\xbb\xbf', b'{}{}',
    b'{"a":"trunc', b'[' * 3, b'\xc2\xa0',
]


def _both(data: bytes) -> tuple[list[object], list[object]]:
    numbers = list(range(1, data.count(b"\n") + 2))
    return (list(_read_bytes(data, len(data), numbers)),
            list(_read_text(data.decode(), numbers)))


@settings(max_examples=400)
@given(st.lists(st.sampled_from([*PIECES, b"\n", b"\n", b"\n"]), max_size=30))
def test_in_place_and_decoded_readers_agree(pieces: list[bytes]) -> None:
    data = b"".join(pieces)
    try:
        data.decode()
    except UnicodeDecodeError:
        return  # only a UTF-8 buffer is read in place
    in_place, decoded = _both(data)
    assert in_place == decoded


def test_a_line_no_value_starts_on_is_skipped_without_decoding_it() -> None:
    data = b"\x00" * 1000 + b'\n{"a":1}'
    in_place, decoded = _both(data)
    assert in_place == decoded
    assert [type(v).__name__ for v in in_place] == ["Skipped", "Value"]


def test_an_unfinished_value_is_read_to_the_end_of_the_buffer() -> None:
    data = '{"é":\n[1,\n2'.encode()
    in_place, decoded = _both(data)
    assert in_place == decoded
    assert "expected ',' or ']' at character 11" in in_place[0].reason  # type: ignore[attr-defined]


def test_a_buffer_that_is_not_utf8_is_decoded_first() -> None:
    assert [v.value for v in read_values(b'{"a":"\xff"}', [1])] == [{"a": "\ufffd"}]  # type: ignore[union-attr]
