"""2.1.260, the first release of the native line's range, held to its recording.

The answers come from the real 2.1.260 (``rechain corpus record --oracle
claude-code@2.1.260``); each switch placed after 2.1.260 and up to 2.1.268 must be needed
for them (set as 2.1.268 has it, the profile misses some recorded answer), and so must each
switch 2.1.260 is the first known release of (set off).
"""

from __future__ import annotations

from typing import Any

import pytest
from recorded_answers import answer, missed_with, recorded

from rechain.corpus import Case, Expectation, load_cases
from rechain.reference.profiles import family
from rechain.reference.profiles.family import (
    CLI_RANGE,
    SWITCHES,
    cli_release,
    is_answered,
    version_tuple,
)

RELEASE = "2.1.260"
PROFILE = f"claude-code@{RELEASE}"
RECORDED = [(case, e) for case in load_cases() for e in case.expectations
            if e.profile == PROFILE]
#: the switches 2.1.268 has and 2.1.260 has not, and those first known at 2.1.260
AROUND = [(s.field, version_tuple(s.first) > version_tuple(RELEASE)) for s in SWITCHES
          if version_tuple(RELEASE) <= version_tuple(s.first) <= version_tuple("2.1.268")]


def _answer(case: Case, expectation: Expectation) -> Any:
    return answer(case, expectation, family.profile_for(RELEASE))  # read at each call


def test_2_1_260_opens_the_range() -> None:
    assert is_answered(RELEASE) and CLI_RANGE[0] == RELEASE
    for older in ("2.1.250", "2.1.259"):
        assert not is_answered(older)


def test_2_1_260_answers_are_recorded() -> None:
    assert len({case.id for case, _ in RECORDED}) >= 40
    assert all(_answer(case, e) == recorded(e) for case, e in RECORDED)


def test_the_switches_around_2_1_260() -> None:
    fields = {field for field, _ in AROUND}
    assert {"recovered_interleaved", "asides_recovered", "interrupted_turn_kept",
            "context_block_gone", "newest_below_last"} <= fields


@pytest.mark.parametrize(("field", "value"), AROUND, ids=lambda v: str(v))
def test_each_switch_around_2_1_260_is_needed_for_what_it_recorded(
        field: str, value: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    assert getattr(cli_release(RELEASE), field) is not value
    assert missed_with(RELEASE, {field: value}, RECORDED, monkeypatch), field
