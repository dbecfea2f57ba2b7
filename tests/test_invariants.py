"""The invariants of ``conformance/invariants.py``, run against the reference loader."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rechain.conformance import invariants as inv
from rechain.reference import Options
from rechain.strategies import (
    Compact,
    CorruptedTranscript,
    Mutation,
    Reply,
    Transcript,
    corrupted,
    damage,
    transcripts,
    write,
)
from rechain.strategies.observe import aim
from rechain.strategies.ops import Prompt
from rechain.strategies.scripts import FEATURES, _replies
from rechain.strategies.transcript import extend
from rechain.strategies.views import profile_name, visible

PROFILES = ["sdk"]
options = st.builds(Options, include_system_messages=st.booleans(),
                    limit=st.none() | st.integers(0, 6), offset=st.integers(0, 3))


@pytest.mark.parametrize("profile", PROFILES)
@given(t=transcripts(), chosen=options)
def test_rebuilds_the_intended_conversation(profile: str, t: Transcript,
                                            chosen: Options) -> None:
    aim(t)
    inv.rebuilds_intended(t, profile, chosen)


@pytest.mark.parametrize("profile", PROFILES)
@given(t=transcripts())
def test_results_follow_their_calls_and_nothing_repeats(profile: str, t: Transcript) -> None:
    uuids = inv.reference_reader(t.to_bytes(), profile, Options())
    inv.results_follow_calls(t, uuids)
    inv.no_repeats(uuids)


@pytest.mark.parametrize("profile", PROFILES)
@given(t=transcripts(), data=st.data())
def test_line_order_does_not_matter_but_for_the_last_line(profile: str, t: Transcript,
                                                          data: st.DataObject) -> None:
    inv.order_free(t, data.draw(st.permutations(range(len(t.lines)))), profile)


@pytest.mark.parametrize("profile", PROFILES)
@given(t=transcripts(), prompt=st.sampled_from([Prompt(), Prompt("blocks")]),
       reply=_replies(frozenset(FEATURES) - {"queued"}))
def test_appending_a_turn_extends_by_that_turn(profile: str, t: Transcript, prompt: Prompt,
                                               reply: object) -> None:
    if t.falls_back:
        return  # the writer's own conversation is empty: there is no leaf to append to
    inv.appending_extends(t, extend(t, [prompt, reply]), profile)  # type: ignore[list-item]


@pytest.mark.parametrize("profile", PROFILES)
def test_a_damaged_preserving_boundary_agrees(profile: str) -> None:
    """The sweep's one finding, kept as a regression: see test_strategies_corruptions."""
    t = write([Prompt(), Reply(), Prompt(), Reply(), Compact(keep=1, style="messages")])
    boundary = next(i for i, line in enumerate(t.lines) if line.get("subtype"))
    inv.corruption_declared(damage(t, [Mutation("cycle", at=len(t.lines) - 1 - boundary)]),
                            profile)


@pytest.mark.parametrize("profile", PROFILES)
@given(c=corrupted(transcripts(), min_mutations=1), chosen=options)
def test_corruption_loses_only_what_it_declares(profile: str, c: CorruptedTranscript,
                                                chosen: Options) -> None:
    inv.corruption_declared(c, profile, chosen)


@pytest.mark.parametrize("profile", PROFILES)
@given(c=corrupted(transcripts(), max_mutations=6))
def test_any_damage_rebuilds_quickly_without_raising(profile: str,
                                                     c: CorruptedTranscript) -> None:
    inv.robust(c.data, profile)


def test_the_sdk_view_hides_meta_system_and_trailing_rows() -> None:
    rows = {
        "u": {"uuid": "u", "type": "user"},
        "m": {"uuid": "m", "type": "user", "isMeta": True},
        "a": {"uuid": "a", "type": "assistant"},
        "s": {"uuid": "s", "type": "system"},
        "q": {"uuid": "q", "type": "attachment", "attachment": {"type": "queued_command"}},
        "p": {"uuid": "p", "type": "progress"},
    }
    order = ["u", "m", "s", "p", "q", "a", "s"]
    assert visible(order, rows.__getitem__) == ["u", "q", "a"]
    with_system = Options(include_system_messages=True)
    assert visible(order, rows.__getitem__, "sdk", with_system) == ["u", "s", "q", "a"]
    assert visible(order, rows.__getitem__, "sdk", Options(limit=1, offset=1)) == ["q"]
    with pytest.raises(ValueError, match="no view"):
        profile_name("cli@2.1.332")
