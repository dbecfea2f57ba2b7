"""2.1.268, the release before 2.1.269, held to its recording, and the range it closes.

The answers come from the real 2.1.268 (``rechain corpus record --oracle
claude-code@2.1.268``); the two switches around it must each be needed for them: the
context block gone from 2.1.268 on, users kept apart only from 2.1.269.
"""

from __future__ import annotations

from typing import Any

import pytest
from recorded_answers import answer, missed_with, recorded

from rechain.corpus import Case, Expectation, load_cases
from rechain.reference.profiles import family
from rechain.reference.profiles.family import VERIFIED, cli_release, is_answered, same_range

RELEASE = "2.1.268"
PROFILE = f"claude-code@{RELEASE}"
CASES = load_cases()
RECORDED = [(case, e) for case in CASES for e in case.expectations if e.profile == PROFILE]


def _answer(case: Case, expectation: Expectation) -> Any:
    return answer(case, expectation, family.profile_for(RELEASE))  # read at each call


#: every release npm lists from 2.1.260 to 2.1.269, each checked on the whole corpus and
#: 200 generated transcripts
LISTED = ("2.1.260", "2.1.261", "2.1.263", "2.1.265", "2.1.266", "2.1.267", "2.1.268", "2.1.269")


def test_the_releases_before_2_1_269_are_answered_as_one_range() -> None:
    assert all(is_answered(v) and same_range(v, "2.1.332") for v in LISTED)
    verified = {v for v, _ in VERIFIED}
    assert set(LISTED) <= verified


def test_2_1_268_answers_are_recorded() -> None:
    assert len({case.id for case, _ in RECORDED}) >= 20
    assert all(_answer(case, e) == recorded(e) for case, e in RECORDED)


@pytest.mark.parametrize(("field", "value"), [("users_kept_apart", True),
                                              ("context_block_gone", False)])
def test_each_switch_around_2_1_268_is_needed_for_what_it_recorded(
        field: str, value: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    assert getattr(cli_release(RELEASE), field) is not value
    assert missed_with(RELEASE, {field: value}, RECORDED, monkeypatch), field


def _views(release: str) -> dict[tuple[str, str], Any]:
    return {(case.id, e.view): recorded(e) for case in CASES for e in case.expectations
            if e.profile == f"claude-code@{release}"
            and not e.options.get("resume_interrupted_turn")}


def test_users_kept_apart_shows_between_2_1_268_and_2_1_269_recorded() -> None:
    """The switch moves the tip (the prompt follows the first merged row), so the chain
    view is compared as well as the messages sent."""
    old, new = _views(RELEASE), _views("2.1.269")
    differ = [key for key in sorted(set(old) & set(new)) if old[key] != new[key]]
    assert differ
    assert {case for case, _ in differ} <= {"cli-blank-assistant-merges-users",
                                            "cli-tip-recovered-result", "real-spotter-short",
                                            "real-spotter-tool-heavy"}, differ
