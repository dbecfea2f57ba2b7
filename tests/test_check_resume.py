"""``rechain check`` in the CLI's resume views (``api`` + ``chain``): like for like, shrinking."""

from __future__ import annotations

import json
import shlex
import textwrap
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

from rechain.cli import main
from rechain.conformance import differential as diff
from rechain.conformance.compare import Difference, judge_resume
from rechain.conformance.impls import Reference, connect
from rechain.conformance.protocol import (
    Answered,
    CaseInput,
    ImplementationInfo,
    Raised,
    Skipped,
)
from rechain.conformance.runner import Recorded, corpus_items, judge_pair
from rechain.corpus.cases_io import load_cases
from rechain.corpus.lint import lint_cases
from rechain.corpus.record import CLI_PROFILE
from rechain.errors import UsageError
from rechain.reference import rebuild
from rechain.reference.model import Options

API = ({"role": "user", "content": "u1"},
       {"role": "assistant", "content": [{"type": "text", "text": "a2"}]})

FAUX = textwrap.dedent('''
    """Resume readers, each wrong in one way (or not at all)."""
    from rechain.reference import Options, rebuild

    RECHAIN_INFO = {"name": "faux-resume", "version": "1", "views": ["api", "chain"],
                    "options": []}

    def right(data, session_id, options):
        rebuilt = rebuild(data, "cli", Options(), session_id=session_id)
        api = rebuilt.view("api")
        if api["error"]:
            return {"raised": {"type": "exit 1", "message": api["error"]}}
        return {"messages": api["messages"], "leaf": rebuilt.view("chain")["tip"]}

    def drops_last(data, session_id, options):
        """Loses the last API message of conversations of three messages or more."""
        answer = right(data, session_id, options)
        if len(answer.get("messages", ())) >= 3:
            answer["messages"] = answer["messages"][:-1]
        return answer

    def no_leaf(data, session_id, options):
        """Right messages, but never says where the prompt is chained."""
        answer = right(data, session_id, options)
        answer.pop("leaf", None)
        return answer
''')


@pytest.fixture
def faux(tmp_path: Path) -> str:
    path = tmp_path / "faux_resume.py"
    path.write_text(FAUX)
    return f"python:{path}"


def check(*argv: str) -> int:
    return main(["check", "--no-progress", *argv])


# --- the verdict ---------------------------------------------------------------------------


def test_chain_compares_the_leaf_and_api_the_messages() -> None:
    same = judge_resume(Answered(API, "t1"), Answered(API, "t1"))
    assert same.status == "pass"
    other_tip = judge_resume(Answered(API, "t1"), Answered(API, "t2"))
    assert other_tip.difference == Difference("/leaf", "t1", "t2")
    shorter = judge_resume(Answered(API[:1], "t1"), Answered(API, "t1"))
    assert shorter.message == "different api messages"
    assert shorter.difference is not None and shorter.difference.path == "/messages/1"
    assert judge_resume(Answered(API[:1], "t1"), Answered(API, "t1"), api=False).status == "pass"
    assert judge_resume(Answered(API, "t1"), Answered(API, "t2"), chain=False).status == "pass"


def test_no_conversation_is_raising_or_an_empty_answer() -> None:
    assert judge_resume(Raised("exit 1", "No conversation found"), Answered(())).status == "pass"
    assert judge_resume(Raised("exit 1"), Answered(API, "t1")).status == "fail"
    assert judge_resume(Skipped("n/a"), Answered(API)).status == "skip"


def test_the_pair_is_judged_on_the_views_both_declare() -> None:
    both = ImplementationInfo("x", "1", "go", views=("api", "chain"))
    chain_only = ImplementationInfo("y", "1", "go", views=("chain",))
    legacy = ImplementationInfo.from_json({"name": "z", "version": "1", "language": "go",
                                           "views": ["resume"]})
    assert legacy.views == ("api",)
    target = Recorded(CLI_PROFILE, views=("api", "chain"))
    right, wrong_messages = Answered(API, "t1"), Answered(API[:1], "t1")
    assert judge_pair(both, target, wrong_messages, right).status == "fail"
    assert judge_pair(chain_only, target, wrong_messages, right).status == "pass"
    assert judge_pair(legacy, target, Answered(API, "t9"), right).status == "pass"
    assert judge_pair(chain_only, target, Answered((), "t9"), right).difference == Difference(
        "/leaf", "t9", "t1")


def test_a_tier_one_reader_declares_its_views_in_the_spec() -> None:
    reader = connect("cmd[api,chain]:sh reader.sh")
    assert reader.info.views == ("api", "chain")
    assert connect("cmd:sh reader.sh").info.views == ("session-messages",)
    with pytest.raises(UsageError):
        connect("cmd[apis]:sh reader.sh")


# --- the reference answers both views at once ------------------------------------------------


def cli_cases() -> list:
    return [c for c in load_cases() if c.expectations_for(CLI_PROFILE, "api")]


def test_corpus_items_join_the_recorded_api_and_chain_views() -> None:
    cases = cli_cases()
    items = corpus_items(cases, CLI_PROFILE, "api")
    assert items and all(item.case.view == "api" for item in items)
    by_id = {item.case.id: item for item in items}
    for case in cases:
        api = case.expectations_for(CLI_PROFILE, "api")[0]
        chain = case.expectations_for(CLI_PROFILE, "chain")[0]
        expected = by_id[case.id].recorded
        assert isinstance(expected, Answered)
        assert list(expected.messages) == list(api.messages)
        assert expected.leaf == (chain.messages[0]["uuid"] if chain.messages else None)


def test_the_reference_answer_is_its_two_views() -> None:
    reference = Reference("cli")
    assert reference.info.views == ("api", "chain")
    case = next(c for c in load_cases() if c.id == "cli-checkpoint-last-prompt")
    data = case.input_bytes()
    outcome = reference.run(CaseInput(case.id, data, case.session_id, view="api"))
    assert isinstance(outcome, Answered)
    assert list(outcome.messages) == rebuild(data, "cli", Options(),
                                             session_id=case.session_id).view("api")["messages"]
    assert outcome.leaf == rebuild(data, "cli", Options(),
                                   session_id=case.session_id).view("chain")["tip"]
    empty = reference.run(CaseInput("empty", b"", case.session_id, view="api"))
    assert isinstance(empty, Raised) and "No conversation" in empty.message


# --- the command -------------------------------------------------------------------------------


def test_check_profile_cli_compares_with_the_recorded_cli(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    assert check("--impl", "reference:cli", "--profile", "cli", "--examples", "0",
                 "--case", "cli-bridge-*", "--case", "cli-checkpoint-*",
                 "--report", str(path)) == 0
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    cases = [line for line in lines if line["kind"] == "case"]
    assert {line["id"] for line in cases} == {
        case.id for case in load_cases() if fnmatchcase(case.id, "cli-bridge-*")
        or fnmatchcase(case.id, "cli-checkpoint-*")}
    assert {line["against"] for line in cases} == {CLI_PROFILE}  # recorded by that CLI
    assert all(line["status"] == "pass" for line in cases)


def test_a_wrong_resume_reader_is_shrunk_to_a_case_that_replays(
        faux: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved = tmp_path / "cases"
    path = tmp_path / "r.jsonl"
    assert check("--impl", f"{faux}:drops_last", "--against", "reference:cli", "--no-corpus",
                 "--examples", "30", "--seed", "2", "--save-cases", str(saved),
                 "--report", str(path)) == 1
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    findings = [line for line in lines if line["kind"] == "finding"]
    assert findings, "no disagreement on generated input was shrunk"
    first = findings[0]
    assert any(token.startswith("api:") for token in first["signature"])
    assert first["difference"]["path"].startswith("/messages/")
    shrunk = Path(first["path"], "transcript.jsonl").read_bytes()
    assert shrunk.count(b"\n") <= 12
    assert lint_cases(saved) == []
    capsys.readouterr()
    replay = shlex.split(first["replay"])
    assert main([*replay[replay.index("check"):], "--no-progress"]) == 1


def test_a_missing_leaf_is_a_chain_disagreement(faux: str, tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    assert check("--impl", f"{faux}:no_leaf", "--against", "reference:cli", "--no-corpus",
                 "--examples", "6", "--seed", "4", "--no-shrink", "--report", str(path)) == 1
    fails = [json.loads(line) for line in path.read_text().splitlines()
             if '"kind": "case"' in line or '"kind":"case"' in line]
    assert fails and all(line["status"] in ("fail", "pass") for line in fails)
    assert any(line["status"] == "fail" and line["difference"]["path"] == "/leaf"
               for line in fails)
    assert check("--impl", f"{faux}:right", "--against", "reference:cli", "--no-corpus",
                 "--examples", "6", "--seed", "4", "--no-shrink") == 0


def test_api_signatures_name_where_and_what() -> None:
    got, want = Answered(API[:1], "t1"), Answered(API, "t1")
    verdict = judge_resume(got, want)
    tokens = diff.signature(b"", verdict, got, want)
    assert tokens == {"api:messages/*", "api-left:none", "api-right:assistant"}


# --- the CLI's switches and the answer store ---------------------------------------------------


def test_switches_read_like_the_cli_reads_them() -> None:
    from rechain.reference.profiles.claude_code_2_1_332.options import (
        env_for_options,
        switches_from_env,
    )

    assert env_for_options({"resume_interrupted_turn": True}) == {
        "CLAUDE_CODE_RESUME_INTERRUPTED_TURN": "1"}
    assert env_for_options({"resume_interrupted_turn": False}) == {}
    for value, on in (("1", True), ("true", True), ("0", False), ("false", False), ("", False)):
        assert switches_from_env({"CLAUDE_CODE_RESUME_INTERRUPTED_TURN": value}) == {
            "resume_interrupted_turn": on}


def test_a_switch_option_reaches_the_case_environment() -> None:
    case = next(c for c in cli_cases() if c.id == "cli-resume-interrupted-tool-result")
    items = {item.case.id: item for item in corpus_items([case], CLI_PROFILE, "api")}
    switched = items[f"{case.id}[resume_interrupted_turn]"]
    assert switched.case.env == {"CLAUDE_CODE_RESUME_INTERRUPTED_TURN": "1"}
    assert items[case.id].case.env == {}
    reference = Reference("cli")
    plain, redone = (reference.run(items[i].case) for i in (case.id, switched.case.id))
    assert judge_resume(plain, items[case.id].recorded).status == "pass"
    assert judge_resume(redone, switched.recorded).status == "pass"
    assert judge_resume(redone, items[case.id].recorded).status == "fail"


def test_the_answer_store_keys_on_everything_an_answer_depends_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rechain.conformance.oracles import cli_answers

    base = ("2.1.332", "m", "next", b"{}\n", "sid", {})
    key = cli_answers.answer_key(*base)
    others = [cli_answers.answer_key(*base[:i], changed, *base[i + 1:]) for i, changed in
              enumerate(("2.1.333", "n", "go", b"{} \n", "sie", {"A": "1"}))]
    assert len({key, *others}) == 7
    monkeypatch.setenv(cli_answers.ENV, str(tmp_path / "answers"))
    cli_answers.save(key, {"ok": True, "messages": [], "leaf": "u1"})
    assert cli_answers.load(key) == {"ok": True, "messages": [], "leaf": "u1"}
    (tmp_path / "answers" / f"{key}.json").write_text("{broken")
    assert cli_answers.load(key) is None


def test_the_answer_store_is_on_by_default_in_the_cache_and_can_be_turned_off(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from rechain.conformance.oracles import cli_answers

    key = cli_answers.answer_key("2.1.332", "m", "next", b"{}\n", "sid", {})
    monkeypatch.setenv("RECHAIN_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(cli_answers.ENV, raising=False)
    cli_answers.save(key, {"ok": True})
    assert (tmp_path / "cache" / "cli-answers" / f"{key}.json").is_file()
    assert cli_answers.load(key) == {"ok": True}
    for off in ("off", "OFF", "0"):
        monkeypatch.setenv(cli_answers.ENV, off)
        assert cli_answers.store_dir() is None and cli_answers.load(key) is None
    cli_answers.save(key, {"ok": False})
    monkeypatch.delenv(cli_answers.ENV)
    assert cli_answers.load(key) == {"ok": True}  # nothing was written while off
    from rechain.cli import main

    with pytest.raises(SystemExit):
        main(["check", "--help"])
    check_help = " ".join(capsys.readouterr().out.split())
    assert "<cache>/cli-answers" in check_help and "RECHAIN_CLI_ANSWERS=off" in check_help


LIVE = ("cli-bridge-within-5s", "cli-resume-interrupted-tool-result",
        "cli-calls-after-other-blocks")


@pytest.mark.oracle
def test_the_real_cli_agrees_with_its_recorded_views(tmp_path: Path) -> None:
    from rechain.conformance.oracles.claude_cli import ClaudeCliOracle

    reason = ClaudeCliOracle.available()
    if reason is not None:
        pytest.skip(f"claude-code: {reason}")
    path = tmp_path / "r.jsonl"
    argv = ["--impl", "claude-code", "--profile", "cli", "--examples", "0", "--jobs", "2",
            "--report", str(path)]
    for case_id in LIVE:
        argv += ["--case", case_id]
    assert check(*argv) == 0
    cases = [json.loads(line) for line in path.read_text().splitlines()
             if json.loads(line)["kind"] == "case"]
    assert len(cases) == 4 and all(line["status"] == "pass" for line in cases)
