"""Invariants every reader profile must satisfy on generated transcripts.

Each function states one property for one input and raises ``AssertionError`` with a
readable message when it fails; the tests in ``tests/test_invariants*.py`` run them
over Hypothesis-generated transcripts against ``rechain.reference.rebuild``, and a
differential run can pass any ``rebuild``-shaped callable (an oracle adapter).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from rechain.reference.model import Options
from rechain.strategies.conversation import is_entry
from rechain.strategies.corruptions import CorruptedTranscript
from rechain.strategies.transcript import Transcript, dumps
from rechain.strategies.views import visible

Json = dict[str, Any]
#: ``(data, profile, options) -> uuids`` — the reader under test, as a list of uuids.
Reader = Callable[[bytes, str, Options], list[str]]


def reference_reader(data: bytes, profile: str, options: Options) -> list[str]:
    """The reference loader as a :data:`Reader`."""
    from rechain.reference import rebuild

    return rebuild(data, profile, options).uuids


def expected_uuids(transcript: Transcript, profile: str = "sdk",
                   options: Options | None = None) -> list[str]:
    """What ``profile`` must return for a clean transcript."""
    return visible(transcript.intended, transcript.entry, profile, options)


def _diff(got: Sequence[str], want: Sequence[str], names: Callable[[str], str]) -> str:
    return f"got  {[names(u) for u in got]}\nwant {[names(u) for u in want]}"


def _namer(lines: Sequence[object]) -> Callable[[str], str]:
    """uuid → ``L<line number>`` (1-based, last occurrence) for short failure messages."""
    where = {line["uuid"]: n for n, line in enumerate(lines, 1)  # type: ignore[index]
             if is_entry(line)}
    return lambda u: f"L{where.get(u, '?')}"


def rebuilds_intended(transcript: Transcript, profile: str = "sdk",
                      options: Options | None = None, reader: Reader = reference_reader) -> None:
    """The rebuilt conversation is exactly the intended one, as the profile's view shows it."""
    options = options or Options()
    got = reader(transcript.to_bytes(), profile, options)
    want = expected_uuids(transcript, profile, options)
    assert got == want, "rebuilt conversation differs from the intended one\n" + _diff(
        got, want, _namer(transcript.lines))


def results_follow_calls(transcript: Transcript, uuids: Sequence[str]) -> None:
    """Every tool_result comes after its tool_use and before the next assistant turn."""
    calls: dict[str, int] = {}
    turn_of: list[str | None] = []
    for position, uuid in enumerate(uuids):
        row = transcript.entry(uuid)
        content = row.get("message", {}).get("content")
        blocks = content if isinstance(content, list) else []
        turn_of.append(row["message"].get("id") if row["type"] == "assistant" else None)
        for block in blocks:
            if block.get("type") == "tool_use":
                calls[block["id"]] = position
            if block.get("type") == "tool_result":
                call = calls.get(block["tool_use_id"])
                assert call is not None, f"result {uuid} comes before its tool_use"
                later = {t for t in turn_of[call + 1:position] if t is not None}
                assert later <= {turn_of[call]}, f"result {uuid} comes after the next turn"


def no_repeats(uuids: Sequence[str]) -> None:
    """No message appears twice."""
    seen: set[str] = set()
    for uuid in uuids:
        assert uuid not in seen, f"{uuid} appears twice"
        seen.add(uuid)


def order_free(transcript: Transcript, permutation: Sequence[int], profile: str = "sdk",
               reader: Reader = reference_reader) -> None:
    """Line order does not matter, except that the conversation's terminal line stays last
    and compact boundaries keep their order among themselves.

    (SDK profile: the leaf is the last-written terminal, and a later boundary's preserved
    segment is relinked after an earlier one's, as the TS SDK does; every other ordering rule
    uses timestamps, which the writer keeps increasing within a response.)
    """
    lines = list(transcript.lines)
    last = transcript.terminal_line
    order = [i for i in permutation if i != last]
    boundaries = iter(sorted(i for i in order if _is_boundary(lines[i])))
    order = [next(boundaries) if _is_boundary(lines[i]) else i for i in order]
    moved = [lines[i] for i in order] + ([lines[last]] if last >= 0 else [])
    data = b"".join(dumps(line) + b"\n" for line in moved)
    got = reader(data, profile, Options())
    want = reader(transcript.to_bytes(), profile, Options())
    assert got == want, "reordering lines changed the conversation\n" + _diff(
        got, want, _namer(transcript.lines))


def _is_boundary(line: Any) -> bool:
    return isinstance(line, dict) and line.get("subtype") == "compact_boundary"


def appending_extends(before: Transcript, after: Transcript, profile: str = "sdk",
                      reader: Reader = reference_reader) -> None:
    """Appending a turn at the leaf extends the rebuilt conversation by exactly that turn."""
    old = reader(before.to_bytes(), profile, Options())
    new = reader(after.to_bytes(), profile, Options())
    added = [u for u in after.intended if u not in set(before.by_uuid)]
    want = old + visible(added, after.entry, profile, Options())
    assert new == want, "appending a turn did not extend the conversation by it\n" + _diff(
        new, want, _namer(after.lines))


def corruption_declared(damaged: CorruptedTranscript, profile: str = "sdk",
                        options: Options | None = None,
                        reader: Reader = reference_reader) -> None:
    """A corruption loses only what its declared effect says, and nothing else."""
    options = options or Options()
    got = reader(damaged.data, profile, options)
    if damaged.intended is None:
        return
    rows: dict[str, Json] = {}
    for line in damaged.lines:
        if is_entry(line):
            rows[line["uuid"]] = line  # type: ignore[index]
    want = visible(damaged.intended, rows.__getitem__, profile, options)
    assert got == want, "damage lost more or less than declared\n" + _diff(
        got, want, _namer(damaged.lines))


def robust(data: bytes, profile: str = "sdk", seconds: float = 5.0,
           reader: Reader = reference_reader) -> None:
    """No exception and bounded time on any input."""
    start = time.perf_counter()
    reader(data, profile, Options())
    took = time.perf_counter() - start
    assert took < seconds, f"rebuild took {took:.2f}s (limit {seconds}s)"


# Properties of any reader (its answer, whatever its contract): see ``reader_invariants``.
from rechain.conformance.reader_invariants import (  # noqa: E402
    contains_errors,
    must_keep,
    no_row_lost,
    no_row_twice,
    parents_before_children,
    sidechains_apart,
    unchanged_by_formatting,
    unchanged_by_invalid_line,
)

__all__ = [
    "appending_extends", "contains_errors", "corruption_declared", "expected_uuids",
    "must_keep", "no_repeats", "no_row_lost", "no_row_twice", "order_free",
    "parents_before_children", "rebuilds_intended", "reference_reader", "results_follow_calls",
    "robust", "sidechains_apart", "unchanged_by_formatting", "unchanged_by_invalid_line",
]
