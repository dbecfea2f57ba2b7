"""The reader invariants catch the bugs they name, on readers written to have them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from test_contracts import PARALLEL, U

from rechain.conformance import invariants as inv
from rechain.strategies import transcripts


def careful(data: bytes) -> list[dict[str, Any]]:
    """Skips what it cannot parse, keeps every row once, in file order."""
    out, seen = [], set()
    for line in data.splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and row.get("uuid") not in seen and row.get("type") in (
                "user", "assistant"):
            seen.add(row.get("uuid"))
            out.append({"uuid": row.get("uuid"), "type": row["type"]})
    return out


def brittle(data: bytes) -> list[dict[str, Any]]:
    """Dies on the first bad line (as readers that call .get on every parsed line do)."""
    return [{"uuid": json.loads(line).get("uuid")} for line in data.splitlines() if line]


def byte_matcher(data: bytes) -> list[dict[str, Any]]:
    """Finds assistant rows by their bytes, so a space after the colon hides them."""
    return [{"uuid": json.loads(line)["uuid"]} for line in data.splitlines()
            if b'"type":"assistant"' in line]


def test_contains_errors_names_the_bad_line() -> None:
    data = PARALLEL + b"[1, 2]\n"
    inv.contains_errors(careful, data)
    with pytest.raises(AssertionError, match=r"line\(s\) \[8\] are not JSON objects"):
        inv.contains_errors(brittle, data)


def test_formatting_and_an_appended_line_change_nothing_for_a_parser() -> None:
    inv.unchanged_by_formatting(careful, PARALLEL)
    inv.unchanged_by_invalid_line(careful, PARALLEL)
    with pytest.raises(AssertionError, match="written spaced gave another answer"):
        inv.unchanged_by_formatting(byte_matcher, PARALLEL)
    with pytest.raises(AssertionError, match="appending one torn line changed the answer"):
        inv.unchanged_by_invalid_line(brittle, PARALLEL)


def test_rows_twice_lost_or_before_their_parent() -> None:
    answer = careful(PARALLEL)
    inv.no_row_twice(answer)
    with pytest.raises(AssertionError, match="shown more than once"):
        inv.no_row_twice(answer + answer[:1])
    keep = inv.must_keep(PARALLEL, [U.format(n) for n in range(1, 7)])
    assert keep == [U.format(n) for n in (2, 3, 4, 5)]  # the split response and both results
    inv.no_row_lost(PARALLEL, answer, keep)
    with pytest.raises(AssertionError, match="a tool result row"):
        inv.no_row_lost(PARALLEL, [m for m in answer if m["uuid"] != U.format(5)], keep)
    inv.parents_before_children(PARALLEL, answer)
    with pytest.raises(AssertionError, match="before its parent"):
        inv.parents_before_children(PARALLEL, list(reversed(answer)))


def test_sidechain_rows_are_not_the_conversation() -> None:
    side = json.dumps({"type": "user", "uuid": "side", "isSidechain": True, "parentUuid": None,
                       "message": {"role": "user", "content": "sub"}}).encode() + b"\n"
    inv.sidechains_apart(PARALLEL + side, careful(PARALLEL))
    with pytest.raises(AssertionError, match="sidechain row"):
        inv.sidechains_apart(PARALLEL + side, careful(PARALLEL + side))


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(transcripts())
def test_a_careful_reader_keeps_every_invariant_on_generated_transcripts(t: Any) -> None:
    data = t.to_bytes()
    inv.unchanged_by_formatting(careful, data)
    inv.unchanged_by_invalid_line(careful, data)
    inv.no_row_twice(careful(data))
