"""A small live sample: the ``cli`` profile against the real CLI 2.1.332 (skips without it)."""

from __future__ import annotations

import pytest

from rechain.conformance.oracles.claude_cli import ClaudeCliOracle, CliCase
from rechain.corpus.cases_io import load_cases
from rechain.reference import rebuild
from rechain.reference.model import Options

UNAVAILABLE = ClaudeCliOracle.available()
SAMPLE = (
    "cli-bridge-within-5s",
    "cli-interrupted-turn-keeps-calls",
    "cli-queued-command-hoisted",
    "parallel-tools-split-results-reversed",
    "closes-quiet-turn",
    "linear-two-turns",
)


@pytest.mark.oracle
@pytest.mark.skipif(UNAVAILABLE is not None, reason=f"claude-code: {UNAVAILABLE}")
def test_reference_agrees_with_the_real_cli_on_a_sample() -> None:
    cases = [c for c in load_cases() if c.id in SAMPLE]
    assert len(cases) == len(SAMPLE)
    with ClaudeCliOracle(workers=2) as oracle:
        results = oracle.resume_all(
            [CliCase(c.input_bytes(), c.session_id, dict(c.env)) for c in cases]
        )
    for case, result in zip(cases, results, strict=True):
        assert not isinstance(result, Exception), (case.id, result)
        assert result.ok, (case.id, result.stderr[-300:])
        data = case.input_bytes()
        rebuilt = rebuild(data, "cli", Options(), session_id=case.session_id)
        assert rebuilt.view("api")["messages"] == result.messages, case.id
        assert rebuilt.view("chain")["tip"] == result.resumed_leaf, case.id
