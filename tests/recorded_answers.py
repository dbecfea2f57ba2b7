"""What a profile gives for a corpus expectation, in the form the corpus stores it."""

from __future__ import annotations

from typing import Any

from rechain.corpus import Case, Expectation
from rechain.reference import Options, rebuild


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
