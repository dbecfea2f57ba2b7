"""Properties every transcript reader must have, whatever it declares it shows.

Each function checks one property of one reader on one file and raises
``AssertionError`` with a sentence a reader's author can act on. Use them from
your own Hypothesis tests::

    from hypothesis import given
    from rechain.strategies import corrupted, transcripts
    from rechain.conformance.invariants import (
        contains_errors, no_row_twice, unchanged_by_formatting, unchanged_by_invalid_line)

    @given(corrupted(transcripts()))
    def test_my_reader(damaged):
        data = damaged.to_bytes()
        contains_errors(my_read, data)
        no_row_twice(my_read(data))
        unchanged_by_invalid_line(my_read, data)
        unchanged_by_formatting(my_read, data)

``read`` is any callable ``bytes -> answer``: a list of message dicts (with
``uuid`` when your reader keeps it, else ``type``/``role`` and text), or a dict
(``{"messages": [...]}`` or ``{"usage": {...}}``); raising is allowed and is what
``contains_errors`` looks at. ``rechain check`` runs the same functions on every
reader it is given, and reports a violation with the cause ``invariant:<name>``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from rechain.strategies.formatting import STYLES, Style, reformat

Json = dict[str, Any]
Read = Callable[[bytes], Any]
#: appended by ``unchanged_by_invalid_line``: a torn row no reader can parse
INVALID_LINE = b'{"type":"user","uuid":"torn-row-appended-by-rechain","message":{"ro\n'
_LEADING = bytes(range(0x21))


def _messages(answer: Any) -> list[Json]:
    if isinstance(answer, dict):
        answer = answer.get("messages", [])
    return [m for m in answer or [] if isinstance(m, dict)]


def _rows(data: bytes) -> tuple[dict[str, Json], list[int]]:
    """uuid -> its last row, and the 1-based numbers of lines that are not JSON objects."""
    rows: dict[str, Json] = {}
    bad: list[int] = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        body = raw.strip(_LEADING)
        if not body:
            continue
        try:
            value = orjson.loads(body)
        except orjson.JSONDecodeError:
            bad.append(number)
            continue
        if not isinstance(value, dict):
            bad.append(number)
        elif isinstance(value.get("uuid"), str):
            rows[value["uuid"]] = value
    return rows, bad


def key(answer: Any) -> Any:
    """What two answers must share to count as the same: the rows by uuid (else by role and
    text), or the usage totals."""
    if isinstance(answer, dict) and isinstance(answer.get("usage"), dict):
        return ("usage", tuple(sorted(answer["usage"].items())))
    out = []
    for message in _messages(answer):
        uuid = message.get("uuid")
        out.append(uuid if isinstance(uuid, str) else (
            message.get("type", message.get("role")),
            " ".join(str(message.get("text", "")).split())))
    return tuple(out)


def contains_errors(read: Read, data: bytes) -> None:
    """A bad line is skipped, not fatal: a file with lines that are not JSON objects is read
    without raising (the other rows are kept; ``no_row_lost`` checks those)."""
    _, bad = _rows(data)
    if not bad:
        return
    try:
        read(data)
    except Exception as error:  # the property is about exactly this
        raise AssertionError(
            f"the reader raised {type(error).__name__} ({str(error)[:120]}) on a file whose "
            f"line(s) {bad[:5]} are not JSON objects; skip such a line and keep the others"
        ) from error


def no_row_twice(answer: Any) -> None:
    """No row is shown twice (a uuid written twice in the file is one row)."""
    uuids = [m.get("uuid") for m in _messages(answer) if isinstance(m.get("uuid"), str)]
    twice = [u for u, n in Counter(uuids).items() if n > 1]
    assert not twice, (f"{len(twice)} row(s) shown more than once, e.g. {twice[0]} "
                       f"({Counter(uuids)[twice[0]]} times)")


def no_row_lost(data: bytes, answer: Any, required: Sequence[str]) -> None:
    """Every row of ``required`` (the rows in scope that carry a tool result or a fragment
    of a split message) is shown."""
    rows, _ = _rows(data)
    shown = {u for m in _messages(answer) if isinstance(u := m.get("uuid"), str)}
    lost = [u for u in required if u not in shown]
    assert not lost, (f"{len(lost)} row(s) in scope not shown, e.g. {lost[0]} "
                      f"({_describe(rows.get(lost[0], {}))})")


def must_keep(data: bytes, in_scope: Sequence[str]) -> list[str]:
    """The rows of ``in_scope`` no reader may drop: tool results, and every row of a
    response split over several rows (same ``message.id``)."""
    rows, _ = _rows(data)
    ids = Counter(_message_id(rows[u]) for u in in_scope if u in rows)
    keep = []
    for uuid in in_scope:
        row = rows.get(uuid, {})
        mid = _message_id(row)
        if (mid is not None and ids[mid] > 1) or _has_result(row):
            keep.append(uuid)
    return keep


def parents_before_children(data: bytes, answer: Any) -> None:
    """A row never comes before the row it names as parent (when both are shown)."""
    rows, _ = _rows(data)
    position = {u: i for i, m in enumerate(_messages(answer))
                if isinstance(u := m.get("uuid"), str)}
    for uuid, at in position.items():
        parent = rows.get(uuid, {}).get("parentUuid")
        if isinstance(parent, str) and position.get(parent, -1) > at and not _cycle(
                rows, uuid):
            raise AssertionError(f"row {uuid} is shown at {at}, before its parent {parent} "
                                 f"(at {position[parent]})")


def sidechains_apart(data: bytes, answer: Any) -> None:
    """Sidechain rows (``isSidechain``: subagent work) are not shown as the conversation."""
    rows, _ = _rows(data)
    mixed = [m.get("uuid") for m in _messages(answer)
             if rows.get(str(m.get("uuid")), {}).get("isSidechain") is True]
    assert not mixed, f"{len(mixed)} sidechain row(s) shown in the conversation, e.g. {mixed[0]}"


def unchanged_by_invalid_line(read: Read, data: bytes) -> None:
    """Appending one line that is not a valid row changes nothing in the answer."""
    before = _settled(read, data)
    glue = b"" if not data or data.endswith(b"\n") else b"\n"
    after = _settled(read, data + glue + INVALID_LINE)
    assert before == after, ("appending one torn line changed the answer: "
                             f"{_short(before)} became {_short(after)}")


def unchanged_by_formatting(read: Read, data: bytes,
                            styles: Sequence[Style] = STYLES) -> None:
    """Rewriting valid rows with spaces, other key orders or escaped Unicode (as editors,
    ``jq`` and Python's ``json.dumps`` do) changes nothing in the answer."""
    before = _settled(read, data)
    for style in styles:
        after = _settled(read, reformat(data, style))
        assert before == after, (f"the same rows written {style} gave another answer: "
                                 f"{_short(before)} became {_short(after)}")


def _settled(read: Read, data: bytes) -> Any:
    try:
        return key(read(data))
    except Exception as error:  # raising is an answer here: it must not change either
        return ("raised", type(error).__name__)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 160 else text[:160] + "…"


def _message_id(row: Json) -> str | None:
    message = row.get("message")
    mid = message.get("id") if isinstance(message, dict) and row.get("type") == "assistant" \
        else None
    return mid if isinstance(mid, str) else None


def _has_result(row: Json) -> bool:
    message = row.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def _describe(row: Json) -> str:
    kind = "tool result" if _has_result(row) else (
        "part of a split response" if _message_id(row) else str(row.get("type")))
    return f"a {kind} row" if row else "a row"


def _cycle(rows: dict[str, Json], uuid: str) -> bool:
    seen: set[str] = set()
    current: Any = rows.get(uuid, {}).get("parentUuid")
    while isinstance(current, str) and current in rows and current not in seen:
        if current == uuid:
            return True
        seen.add(current)
        current = rows[current].get("parentUuid")
    return False
