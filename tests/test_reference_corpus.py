"""Every corpus case: the reference rebuilds exactly what the real reader recorded."""

from __future__ import annotations

import json
import subprocess
import sys

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
def test_a_result_is_the_same_in_every_run(profile: str) -> None:
    """Loaders index rows by tagged keys (a uuid that is an object is a key by identity):
    a key must not depend on the run (an object's ``id()``), and a message uuid stays a
    string (the API's promise), so two processes give the same result."""
    case = next(c for c in CASES if c.id == "parse-type-and-uuid-variants")
    script = ("import sys, json; from rechain.reference import rebuild; "
              "r = rebuild(sys.stdin.buffer.read(), sys.argv[1]); "
              "print(json.dumps([r.to_json(), r.uuids], sort_keys=True))")
    runs = [subprocess.run([sys.executable, "-c", script, profile], input=case.input_bytes(),
                           capture_output=True, check=True).stdout for _ in range(2)]
    assert runs[0] == runs[1]
    shown, uuids = json.loads(runs[0])
    assert all(type(u) is str for u in uuids)
    assert not any("\x00" in d["detail"] for d in shown["diagnostics"])
