"""Earlier native releases as switches of the CLI profile, judged by what the real ones sent.

``tests/releases/claude-code-<version>.json`` holds what the real release answered on a
few corpus cases (the request's messages before the prompt's turn and the row the prompt
was chained to, or the failed resume), recorded through the oracle adapter. The family's
profile of that release must give the same answer, and the newest profile must not: each
recorded case shows at least one switch, so the test fails without it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rechain.corpus import load_cases
from rechain.reference import Options, rebuild

RELEASES = Path(__file__).parent / "releases"
NEWEST = "claude-code@2.1.332"


def _recorded() -> list[tuple[str, str, dict[str, Any]]]:
    found: list[tuple[str, str, dict[str, Any]]] = []
    for path in sorted(RELEASES.glob("claude-code-*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        found += [(document["release"], case_id, answer)
                  for case_id, answer in document["answers"].items()]
    return found


RECORDED = _recorded()
CASES = {case.id: case for case in load_cases()}


def _answer(profile: str, case_id: str) -> dict[str, Any]:
    """The profile's answer in the recorded shape (what ``rechain check`` compares)."""
    case = CASES[case_id]
    result = rebuild(case.input_bytes(), profile, Options(), session_id=case.session_id)
    api = result.view("api")
    if api.get("error"):
        return {"error": api["error"]}
    return {"messages": api["messages"], "tip": result.view("chain")["tip"]}


def _same(got: dict[str, Any], recorded: dict[str, Any]) -> bool:
    if "error" in recorded:  # the release failed the resume (exit 1): any failure agrees
        return "error" in got
    return "error" not in got and got == recorded


@pytest.mark.parametrize(("profile", "case_id", "recorded"), RECORDED,
                         ids=[f"{p}:{c}" for p, c, _ in RECORDED])
def test_the_family_answers_what_the_real_release_sent(profile: str, case_id: str,
                                                       recorded: dict[str, Any]) -> None:
    assert _same(_answer(profile, case_id), recorded)


@pytest.mark.parametrize(("profile", "case_id", "recorded"), RECORDED,
                         ids=[f"{p}:{c}" for p, c, _ in RECORDED])
def test_the_newest_profile_answers_otherwise(profile: str, case_id: str,
                                              recorded: dict[str, Any]) -> None:
    """Each recorded case needs a switch: without the release's switches it fails."""
    assert not _same(_answer(NEWEST, case_id), recorded)


def test_an_older_release_s_context_block_is_taken_out_of_its_answer() -> None:
    """2.1.120 to 2.1.267 open the first user message with the harness's context block (as
    2.1.120 sent it on ``cli-leaf-last-written-row``); a message holding only the block
    (the chain starts at an assistant) goes whole; other messages are left as they are."""
    from rechain.conformance.oracles.cli_context import CONTEXT_PREFIX, without_context

    block = {"type": "text", "text": CONTEXT_PREFIX + "\n# currentDate\n</system-reminder>\n\n"}
    sent = [{"role": "user", "content": [block, {"type": "text", "text": "u1"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "a2"}]}]
    assert without_context(sent) == [{"role": "user", "content": [{"type": "text",
                                                                   "text": "u1"}]}, sent[1]]
    alone = [{"role": "user", "content": block["text"]}, sent[1]]
    assert without_context(alone) == [sent[1]]
    later = [sent[1], {"role": "user", "content": [block]}]
    assert without_context(later) == later
