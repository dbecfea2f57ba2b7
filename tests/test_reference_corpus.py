"""Every corpus case: the reference rebuilds exactly what the real reader recorded."""

from __future__ import annotations

import pytest

from rechain.corpus import Case, Expectation, load_cases
from rechain.reference import Options, get_profile, rebuild
from rechain.reference.js.values import as_stringified

CASES = load_cases()
RECORDED = [
    pytest.param(case, expectation, id=f"{case.id}[{i}]")
    for case in CASES
    for i, expectation in enumerate(case.expectations)
    if expectation.view == "session-messages"  # other views have their own tests (test_seed)
]


def options_for(case: Case, expectation: Expectation) -> Options:
    given = expectation.options
    return Options(
        include_system_messages=bool(given.get("include_system_messages", False)),
        limit=given.get("limit"),
        offset=given.get("offset") or 0,
        disable_precompact_skip=bool(case.env.get("CLAUDE_CODE_DISABLE_PRECOMPACT_SKIP")),
    )


def test_the_corpus_has_recorded_cases() -> None:
    assert len(RECORDED) >= 40


@pytest.mark.parametrize(("case", "expectation"), RECORDED)
def test_reference_matches_the_recorded_reader(case: Case, expectation: Expectation) -> None:
    result = rebuild(
        case.input_bytes(), get_profile(expectation.profile), options_for(case, expectation)
    )
    got = [as_stringified({k: v for k, v in m.items() if k != "line"}) for m in result.messages]
    if expectation.failed:  # the real reader threw: the reference reports an error, no messages
        assert result.error is not None
        assert got == []
        return
    assert result.error is None
    assert got == list(expectation.messages)


@pytest.mark.parametrize("profile", ["sdk", "cli", "seed"])
def test_no_loader_key_shows_in_a_result(profile: str) -> None:
    """Loaders index rows by tagged keys (a uuid that is an object is a key by identity);
    a result shows uuids as written, so it is the same in every run."""
    for case in CASES:
        shown = rebuild(case.input_bytes(), profile).to_json()
        leaked = [m["uuid"] for m in shown["messages"]
                  if type(m["uuid"]) is str and m["uuid"].startswith("\x00")]
        leaked += [d["detail"] for d in shown["diagnostics"] if "\x00" in d["detail"]]
        assert leaked == [], case.id
