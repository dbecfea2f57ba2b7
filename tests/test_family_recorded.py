"""The native releases of the family, held to what each real release recorded in the corpus.

``rechain corpus record --oracle claude-code@X`` stores release X's resume (views ``api``
and ``chain``) under the profile ``claude-code@X``; those expectations are the data
``rechain history`` stands on, so each release's profile must give exactly them, and each
switch must show between the recorded releases around it.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from recorded_answers import answer, recorded

from rechain.corpus import Case, Expectation, load_cases
from rechain.corpus.record import CLI_PROFILE
from rechain.reference.profiles.family import CLI_RANGE, SWITCHES, in_cli_line, version_tuple

CASES = load_cases()
RECORDED = [
    pytest.param(case, expectation, id=f"{case.id}[{expectation.profile}:{expectation.view}]")
    for case in CASES
    for expectation in case.expectations
    if in_cli_line(expectation.profile) and expectation.profile != CLI_PROFILE
]


def _release(profile: str) -> str:
    return profile.partition("@")[2]


@pytest.mark.parametrize(("case", "expectation"), RECORDED)
def test_the_release_profile_gives_what_the_release_recorded(case: Case,
                                                             expectation: Expectation) -> None:
    assert answer(case, expectation) == recorded(expectation)


def _sent(release: str) -> dict[tuple[str, str], list[Any]]:
    """(case id, view) -> what ``release`` recorded with the default options: the api
    messages and the chain (a switch may move only the tip, as ``users_kept_apart`` does)."""
    return {(case.id, e.view): list(e.messages) for case in CASES for e in case.expectations
            if e.profile == f"claude-code@{release}" and e.view in ("api", "chain")
            and not e.options.get("resume_interrupted_turn")}


def _recorded_releases() -> list[str]:
    found = {_release(e.profile) for case in CASES for e in case.expectations
             if in_cli_line(e.profile)}
    return sorted(found, key=version_tuple)


def test_the_first_release_and_each_switch_release_of_the_line_are_recorded() -> None:
    wanted = {CLI_RANGE[0], CLI_RANGE[1], *(s.first for s in SWITCHES if in_cli_line(
        f"claude-code@{s.first}"))}
    assert wanted <= set(_recorded_releases())


# a switch at or below the range's first release has no answered release before it
INSIDE = [s for s in SWITCHES if version_tuple(s.first) > version_tuple(CLI_RANGE[0])]


@pytest.mark.parametrize("switch", INSIDE, ids=lambda s: s.field)
def test_each_switch_shows_between_the_recorded_releases_around_it(switch) -> None:
    """A case the switch's first release answers otherwise than the recorded release before
    it: the switch point is in the data, not only in the profile."""
    releases = _recorded_releases()
    before = [r for r in releases if version_tuple(r) < version_tuple(switch.first)][-1]
    old, new = _sent(before), _sent(switch.first)
    assert [c for c in sorted(set(old) & set(new)) if old[c] != new[c]], (before, switch.first)


def _history(case: Case) -> list[dict[str, Any]]:
    from rechain.conformance.history import history
    from rechain.reference.profiles.family import verified_releases

    return [{"first": s.first, "last": s.last, "tip": s.resumed.tip}
            for s in history(case.input_bytes(), verified_releases())]


def _span_of(ranges: list[dict[str, Any]], release: str) -> int:
    return next(at for at, r in enumerate(ranges)
                if version_tuple(r["first"]) <= version_tuple(release) <= version_tuple(r["last"]))


@pytest.mark.parametrize("case", [c for c in CASES if any(
    in_cli_line(e.profile) and e.profile != CLI_PROFILE for e in c.expectations)],
    ids=lambda c: c.id)
def test_history_parts_where_the_recorded_releases_part(case: Case) -> None:
    """``rechain history``'s ranges follow the releases' recorded answers: releases that sent
    different messages are in different ranges, each range's tip the one its releases
    recorded."""
    ranges = _history(case)
    answers = {}
    for e in case.expectations:
        if in_cli_line(e.profile) and not e.options.get("resume_interrupted_turn"):
            answers.setdefault(_release(e.profile), {})[e.view] = recorded(e)
    releases = sorted(answers, key=version_tuple)
    for release in releases:
        assert ranges[_span_of(ranges, release)]["tip"] == answers[release]["chain"], release
    for before, after in pairwise(releases):
        if answers[before] != answers[after]:
            assert _span_of(ranges, before) != _span_of(ranges, after), (before, after)
