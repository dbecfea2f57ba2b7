"""The 2.1.88 line against every recorded expectation of its releases in the corpus.

The seed profile (2.1.88) and the later JS bundles it answers with switches
(``reference/profiles/family.py``) are each held to what that release recorded.

Two views per entry point, both recorded from the real 2.1.88 by
``rechain corpus record --oracle claude-code@2.1.88``: ``resumed-chain`` (what a forked
resume wrote) and ``api`` (the first request's messages, harness blocks
removed). An ``error`` outcome means 2.1.88 failed on the input; the seed must
fail too. Differences that are understood and not modelled are listed in
``EXPLAINED`` with the reason; such a case that starts agreeing fails, so the
list cannot go stale.
"""

from __future__ import annotations

import pytest

from rechain.conformance.claude_code_2_1_88.compare import api_difference, expected
from rechain.conformance.claude_code_2_1_88.record import API_VIEW, VIEW, as_items
from rechain.corpus import Case, Expectation, load_cases
from rechain.reference import rebuild
from rechain.reference.model import Options
from rechain.reference.profiles.claude_code_2_1_88.views import PROFILE_NAME
from rechain.reference.profiles.family import in_seed_line

CASES = load_cases()
RECORDED = [
    pytest.param(case, expectation,
                 id=f"{case.id}[{expectation.view}:{expectation.options.get('entry')}]")
    for case in CASES
    for expectation in case.expectations
    if in_seed_line(expectation.profile)
]
# (case id, view, entry, profile) -> why the profile differs from its release there
EXPLAINED: dict[tuple[str, str, str, str], str] = {}


def options(case: Case, expectation: Expectation) -> Options:
    return Options(entry=expectation.options["entry"],
                   disable_precompact_skip=bool(case.env.get(
                       "CLAUDE_CODE_DISABLE_PRECOMPACT_SKIP")))


def difference(case: Case, expectation: Expectation) -> str | None:
    """None when the release's profile gives what the release recorded, else a short
    description."""
    data = case.input_bytes()
    profile = expectation.profile
    if expectation.view == VIEW:
        view = rebuild(data, profile, options(case, expectation),
                       session_id=case.session_id).view("chain")
        if expectation.failed or view["error"] is not None:
            return None if expectation.failed == (view["error"] is not None) else (
                f"error: profile {view['error']!r} vs {profile} {expectation.error}")
        mine, theirs = expected(view["messages"]), as_items(list(expectation.messages))
        return None if mine == theirs else f"chain: profile {mine!r:.300} vs {theirs!r:.300}"
    view = rebuild(data, profile, options(case, expectation),
                   session_id=case.session_id).view("api")
    if expectation.failed or view["error"] is not None:
        return None if expectation.failed == (view["error"] is not None) else (
            f"error: profile {view['error']!r} vs {profile} {expectation.error}")
    return api_difference(view["messages"], list(expectation.messages))


def test_the_whole_corpus_has_2_1_88_expectations() -> None:
    recorded = {case.id for case in CASES
                if any(e.profile == PROFILE_NAME for e in case.expectations)}
    assert len(recorded) >= 140
    views = {(e.view, e.options.get("entry")) for case in CASES for e in case.expectations
             if e.profile == PROFILE_NAME}
    assert {v for v, _ in views} == {VIEW, API_VIEW}
    assert {e for _, e in views} == {"continue", "resume-id", "resume-file"}


@pytest.mark.parametrize(("case", "expectation"), RECORDED)
def test_profile_matches_its_release(case: Case, expectation: Expectation) -> None:
    key = (case.id, expectation.view, expectation.options["entry"], expectation.profile)
    found = difference(case, expectation)
    if key in EXPLAINED:
        assert found is not None, f"explained difference gone, drop it: {EXPLAINED[key]}"
        pytest.xfail(EXPLAINED[key])
    assert found is None, found


def test_an_error_outcome_is_recorded_for_a_failing_resume() -> None:
    case = next(c for c in CASES if c.id == "seed-assistant-string-content-fails")
    failed = [e for e in case.expectations if e.profile == PROFILE_NAME and e.failed]
    assert len(failed) == 6  # two views at three entry points
    assert all(e.messages == () and e.error is not None and e.error.get("exit_code") == 1
               for e in failed)


@pytest.mark.oracle
def test_recording_again_reproduces_the_recorded_case(tmp_path, capsys) -> None:
    """Re-recording with the real 2.1.88 leaves a case byte for byte as it is (or says why not)."""
    import shutil

    from rechain.cli import main
    from rechain.conformance.oracles.claude_cli import ClaudeCliOracle
    from rechain.conformance.oracles.registry import CLAUDE_CODE_2_1_88
    from rechain.corpus.cases_io import default_root

    reason = ClaudeCliOracle.available(CLAUDE_CODE_2_1_88)
    if reason is not None:
        pytest.skip(reason)
    case = "seed-leaf-tie-first-written"
    shutil.copytree(default_root() / case, tmp_path / case)
    before = (tmp_path / case / "case.json").read_bytes()
    argv = ["corpus", "record", "--oracle", "claude-code@2.1.88", "--root", str(tmp_path)]
    assert main([*argv, "--case", case]) == 0
    assert "all expectations up to date" in capsys.readouterr().out
    assert (tmp_path / case / "case.json").read_bytes() == before
    assert main([*argv, "--case", "no-such-case"]) == 2
    assert "no such case: no-such-case" in capsys.readouterr().err
