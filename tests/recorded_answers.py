"""What a profile gives for a corpus expectation, in the form the corpus stores it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from rechain.corpus import Case, Expectation
from rechain.reference import Options, rebuild
from rechain.reference.profiles import family


def answer(case: Case, expectation: Expectation, profile: Any = None) -> Any:
    """The expectation's view of ``profile`` (default: the expectation's own profile)."""
    options = Options(resume_interrupted_turn=bool(
        expectation.options.get("resume_interrupted_turn")))
    result = rebuild(case.input_bytes(), expectation.profile if profile is None else profile,
                     options, session_id=case.session_id)
    if expectation.view == "api":
        return result.view("api")["messages"]
    return result.view("chain")["tip"]


def recorded(expectation: Expectation) -> Any:
    """The expectation as the same view gives it: the messages, or the tip's uuid."""
    if expectation.view == "api":
        return list(expectation.messages)
    return expectation.messages[0]["uuid"] if expectation.messages else None


def missed_with(release: str, changes: dict[str, bool],
                recordings: Sequence[tuple[Case, Expectation]],
                monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The cases whose recorded answer ``release``'s profile misses once ``changes`` are
    made to its switches: a switch is needed for the recording when this is not empty."""
    turned = replace(family.cli_release(release), **changes)
    monkeypatch.setattr(family, "cli_release", lambda _version: turned)
    return [case.id for case, e in recordings
            if answer(case, e, family.profile_for(release)) != recorded(e)]
