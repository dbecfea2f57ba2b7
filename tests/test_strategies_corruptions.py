"""Corruptions: each declares what it does to lines, and the expectation follows."""

from __future__ import annotations

import pytest
from hypothesis import find, given, settings

from rechain.strategies import EFFECTS, CorruptedTranscript, Mutation, corrupted, damage
from rechain.strategies.corruptions import KINDS
from rechain.strategies.ops import Compact, Prompt, Reply
from rechain.strategies.scripts import transcripts
from rechain.strategies.transcript import write

# fhs, u1, a1(tool 1), a2(tool 2), r1, r2, fhs, u2, a3
T = write([Prompt(), Reply(blocks=("tool_use", "tool_use")), Prompt(), Reply()])
U1, A1, A2, R1, R2, U2, A3 = T.intended


def at(line: int) -> int:
    """``Mutation.at`` for a 0-based line index of ``T``."""
    return len(T.lines) - 1 - line


def test_every_kind_declares_its_effect() -> None:
    assert set(KINDS) == set(EFFECTS)
    assert all(EFFECTS[k] for k in KINDS)


@pytest.mark.parametrize(("mutation", "want"), [
    (Mutation("crlf"), T.intended),
    (Mutation("non_object", at=at(3)), T.intended),
    (Mutation("huge_line", at=at(2)), T.intended),
    (Mutation("invalid_utf8", at=at(2)), T.intended),
    (Mutation("duplicate_uuid", at=at(2)), T.intended),
    (Mutation("duplicate", at=at(4)), T.intended),
    (Mutation("bom"), T.intended),  # line 1 is a file-history snapshot
    (Mutation("drop", at=at(4)), (U1, A1, A2, R2, U2, A3)),  # an off-path result
    (Mutation("tear", at=at(7)), (A3,)),  # the second prompt is lost: the chain stops
    (Mutation("dangling_parent", at=at(7)), (U2, A3)),
    (Mutation("self_loop", at=at(7)), (U2, A3)),
    (Mutation("truncate_last"), (U1, A1, A2, R1, R2, U2)),  # the conversation ends earlier
    (Mutation("missing_uuid", at=at(8)), (U1, A1, A2, R1, R2, U2)),
    (Mutation("unknown_type", at=at(8)), (U1, A1, A2, R1, R2, U2)),
    (Mutation("nan", at=at(8)), (U1, A1, A2, R1, R2, U2)),
    (Mutation("lone_cr", at=at(7)), (U1, A1, A2, R1, R2)),
    (Mutation("cycle", at=at(2)), (A1, A2, R1, R2, U2, A3)),  # a1's parent: its child a2
])
def test_declared_effects(mutation: Mutation, want: tuple[str, ...]) -> None:
    assert damage(T, [mutation]).intended == want


def test_bytes_show_the_damage() -> None:
    assert damage(T, [Mutation("crlf")]).data.count(b"\r\n") == len(T.lines)
    assert damage(T, [Mutation("bom")]).data.startswith(b"\xef\xbb\xbf{")
    assert not damage(T, [Mutation("truncate_last")]).data.endswith(b"\n")
    assert b"NaN}" in damage(T, [Mutation("nan")]).data
    assert b"\xff" in damage(T, [Mutation("invalid_utf8", at=at(2))]).data


def test_a_truncated_line_glues_onto_what_follows() -> None:
    glued = damage(T, [Mutation("truncate_last"), Mutation("non_object", at=0)])
    assert glued.intended == (U1, A1, A2, R1, R2, U2)


def test_corruption_lists_shrink_to_nothing() -> None:
    plain = find(corrupted(transcripts(max_ops=1)), lambda c: True,
                 settings=settings(database=None))
    assert plain.mutations == ()
    assert plain.intended == plain.clean.intended


@given(corrupted(transcripts(), min_mutations=1))
def test_expectations_only_name_readable_entries(c: CorruptedTranscript) -> None:
    if c.intended is not None:
        for uuid in c.intended:
            assert c.entry(uuid)["uuid"] == uuid
    else:
        assert c.undetermined


def test_a_boundary_hung_on_its_own_summary_joins_the_relinked_cycle() -> None:
    """Found by the sweep: the relink moves *every* entry hanging on the anchor to the
    tail, the damaged boundary too, which closes a loop over the preserved messages;
    the conversation falls back to the first turn, whose child was relinked away."""
    t = write([Prompt(), Reply(), Prompt(), Reply(), Compact(keep=1, style="messages")])
    boundary = next(i for i, line in enumerate(t.lines) if line.get("subtype"))
    damaged = damage(t, [Mutation("cycle", at=len(t.lines) - 1 - boundary)])
    first_prompt, first_answer = t.lines[1]["uuid"], t.lines[2]["uuid"]
    assert damaged.intended == (first_prompt, first_answer)
