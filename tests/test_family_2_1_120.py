"""2.1.120, the one native release before 2.1.260 the family answers, held to its recording.

The answers come from the real 2.1.120 (``rechain corpus record --oracle
claude-code@2.1.120``); each switch placed between 2.1.120 and 2.1.269 must be needed
for them: set as 2.1.269 has it, the profile misses some recorded answer.
"""

from __future__ import annotations

from typing import Any

import pytest
from recorded_answers import answer, missed_with, recorded

from rechain.corpus import Case, Expectation, load_cases
from rechain.reference.profiles import family
from rechain.reference.profiles.family import (
    SWITCHES,
    is_answered,
    version_tuple,
)

RELEASE = "2.1.120"
PROFILE = f"claude-code@{RELEASE}"
RECORDED = [(case, e) for case in load_cases() for e in case.expectations
            if e.profile == PROFILE]
#: the switches whose first release lies after 2.1.120 and at or before 2.1.269 (2.1.120
#: recorded the cases of each)
BETWEEN = [s for s in SWITCHES
           if version_tuple(RELEASE) < version_tuple(s.first) <= version_tuple("2.1.269")]


def _answer(case: Case, expectation: Expectation) -> Any:
    return answer(case, expectation, family.profile_for(RELEASE))  # read at each call


def test_2_1_120_is_answered_alone() -> None:
    assert is_answered(RELEASE)
    for neighbour in ("2.1.119", "2.1.121", "2.1.200", "2.1.259"):
        assert not is_answered(neighbour)


def test_2_1_120_answers_are_recorded_for_every_switch_between() -> None:
    assert len({case.id for case, _ in RECORDED}) >= 40


@pytest.mark.parametrize("switch", BETWEEN, ids=lambda s: s.field)
def test_each_switch_between_is_needed_for_what_2_1_120_recorded(
        switch: family.Switch, monkeypatch: pytest.MonkeyPatch) -> None:
    assert all(_answer(case, e) == recorded(e) for case, e in RECORDED)
    assert missed_with(RELEASE, {switch.field: True}, RECORDED, monkeypatch), switch.field
