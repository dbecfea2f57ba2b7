"""The shipped adapters are well formed, and the matrix renders a reader's causes and cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from real_readers import LIMITS, UNHURRIED

from rechain.cli import main
from rechain.conformance.contracts.model import from_json
from rechain.conformance.impls import _cmd_info
from rechain.conformance.matrix import adapters, render
from rechain.errors import UsageError


def test_every_shipped_adapter_declares_a_valid_contract_and_a_spec_that_says_it() -> None:
    shipped = adapters.shipped()
    assert {"claude-code-log", "claude-code-transcripts", "ccusage", "agent-sdk-py"} <= {
        a.name for a in shipped}
    for adapter in shipped:
        declared = from_json({"name": adapter.name, "version": adapter.version,
                              **adapter.contract})
        assert (adapter.folder / "read.py").is_file()
        bracket = adapter.spec().split("]:", 1)[0].removeprefix("cmd[")
        info = _cmd_info(["python3", "read.py"], bracket)
        assert info.slug == adapter.slug
        assert from_json(dict(info.contract or {})) == declared


def test_skip_lists_name_one_cause_and_a_minimal_case_that_exists() -> None:
    """Each entry names one cause, or the rows it accepts (a row entry), and its minimal
    cases."""
    for adapter in adapters.shipped():
        path = adapter.folder / "skips.json"
        if not path.exists():
            continue
        for entry in json.loads(path.read_text())["skips"]:
            assert (entry.get("cause") or entry.get("rows")) and entry["cases"]
            for case in entry["cases"]:
                assert (adapters.ROOT / "found" / case / "transcript.jsonl").is_file(), case


def test_a_row_counts_passes_causes_and_findings_and_the_badge_says_the_percentage() -> None:
    lines = [{"kind": "case", "status": "pass"}] * 3 + [
        {"kind": "case", "status": "fail", "cause": "lost-row"},
        {"kind": "case", "status": "crash", "cause": "crash"},
        {"kind": "case", "status": "skip"},
        {"kind": "finding", "cause": "lost-row", "seen": 1, "case_id": "diff-x-lost-row",
         "lines": 5, "replay": "rechain check --impl X --corpus C --case diff-x-lost-row",
         "difference": {"path": "/messages/3/uuid", "left": None, "right": "u5"}}]
    row = render.row_of("x@1", "archive", lines)
    assert (row.passed, row.total, row.skipped) == (3, 5, 1)
    assert row.causes == {"lost-row": 1, "crash": 1}
    text = render.markdown([row], "rechain matrix")
    assert "| x@1 | archive | 3/5 (60 %) | lost-row 1, crash 1 | 1 |" in text
    assert "replay: `rechain check --impl X --corpus C --case diff-x-lost-row`" in text
    assert render.badge(row) == {"schemaVersion": 1, "label": "x@1", "message": "60% passing",
                                 "color": "red"}
    page = render.page([row], "rechain matrix")
    assert "diff-x-lost-row" in page and "lost-row: 1" in page


def test_an_adapter_spec_names_the_shipped_reader() -> None:
    from rechain.conformance.impls import connect

    ccusage = next(a for a in adapters.shipped() if a.name == "ccusage")
    if not ccusage.installed():
        import pytest

        pytest.skip("ccusage is not installed (rechain matrix --reader ccusage installs it)")
    reader = connect("adapter:ccusage", LIMITS)
    assert reader.info.slug == "ccusage@20.0.24"
    assert from_json(dict(reader.info.contract or {})).scope == "usage"


def test_the_formatting_invariant_catches_ccusage_counting_spaced_rows_as_nothing() -> None:
    import pytest
    from test_contracts import PARALLEL

    from rechain.conformance import invariants as inv
    from rechain.conformance.impls import connect
    from rechain.conformance.protocol import Answered, CaseInput

    ccusage = next(a for a in adapters.shipped() if a.name == "ccusage")
    if not ccusage.installed():
        pytest.skip("ccusage is not installed (rechain matrix --reader ccusage installs it)")
    reader = connect("adapter:ccusage", LIMITS)

    def read(data: bytes) -> dict[str, object]:
        outcome = reader.run(CaseInput("x", data, "s"))
        assert isinstance(outcome, Answered)
        return {"usage": dict(outcome.usage or {})}

    assert read(PARALLEL)["usage"]["output_tokens"] == 20  # type: ignore[index]
    with pytest.raises(AssertionError, match="written spaced gave another answer"):
        inv.unchanged_by_formatting(read, PARALLEL, ("spaced",))


def test_the_python_sdk_declaring_the_sdks_contract_scores_as_the_built_in_oracle(
        tmp_path: object) -> None:
    import pytest

    from rechain.cli import main
    from rechain.conformance.oracles.ts_sdk import TsSdkOracle

    sdk = next(a for a in adapters.shipped() if a.name == "agent-sdk-py")
    if not sdk.installed() or TsSdkOracle.available() is not None:
        pytest.skip("needs the pinned Python and TS SDK oracles (rechain oracle install)")
    contract = tmp_path / "sdk.json"  # type: ignore[operator]
    contract.write_text(json.dumps({"name": "agent-sdk-py", "version": "0.2.189",
                                    **sdk.contract}))
    verdicts = []
    for extra in ([], ["--contract", str(contract), "--invariant-every", "0"]):
        report = tmp_path / f"r{len(verdicts)}.jsonl"  # type: ignore[operator]
        main(["check", "--no-progress", "--impl", "agent-sdk-py", "--examples", "8", "--seed",
              "20261201", "--no-corpus", "--no-shrink", "--report", str(report), *extra])
        lines = [json.loads(line) for line in report.read_text().splitlines()]
        verdicts.append({(line["id"], line["status"], line.get("cause")) for line in lines
                         if line["kind"] == "case"})
    assert len(verdicts[0]) == 8 and verdicts[0] == verdicts[1]


def test_replays_in_the_docs_name_the_adapter_and_the_cases_folder() -> None:
    replay = ("rechain check --impl 'cmd[name=x,version=1]:/abs/venv/bin/python -I r.py {path}'"
              " --corpus /abs/work/implementations/found --case diff-x")
    assert render.portable(replay, "x", "implementations/found") == (
        "rechain check --impl adapter:x --corpus implementations/found --case diff-x")


@pytest.mark.parametrize("program", ["/home/me/my\\ proj/.venv/bin/rechain",
                                     "/usr/bin/python3 -m rechain", "rechain"])
def test_replays_in_the_docs_start_with_rechain_however_the_run_was_started(
        program: str) -> None:
    replay = (f"PYTHONPATH=/abs/here {program} check --impl cmd:/abs/r --corpus /abs/cases "
              "--case diff-x")
    assert render.portable(replay, "x", "implementations/found") == (
        "PYTHONPATH=/abs/here rechain check --impl adapter:x --corpus implementations/found "
        "--case diff-x")


def test_install_only_installs_each_named_reader_and_fails_when_one_fails(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    done: list[str] = []
    monkeypatch.chdir(tmp_path)

    def fake_install(adapter: adapters.Adapter, say: object = print) -> None:
        if adapter.name == "ccusage":
            raise UsageError("installing ccusage@20.0.24 failed: no network")
        done.append(adapter.name)

    monkeypatch.setattr(adapters, "install", fake_install)
    assert main(["matrix", "--install", "--reader", "ai-replay"]) == 0
    assert done == ["ai-replay"] and "ai-replay@" in capsys.readouterr().out
    # a failed install is said and fails the command, the others still installed
    assert main(["matrix", "--install", "--reader", "ccusage", "--reader", "agent-history"]) == 1
    captured = capsys.readouterr()
    assert done == ["ai-replay", "agent-history"]
    assert "no network" in captured.err and "agent-history@" in captured.out
    assert list(tmp_path.iterdir()) == []  # no matrix written, no docs folder made


def test_agent_history_reads_user_and_assistant_rows_only_and_its_contract_says_so() -> None:
    """agent-history's parser keeps ``user`` and ``assistant`` rows only: a queued prompt
    (a ``queued_command`` attachment) is never shown. That is its design, as for
    claude-code-transcripts, so its contract must leave the row out of scope, never report
    it as a lost row."""
    from test_contracts import row

    from rechain.conformance.contracts.answers import answer
    from rechain.conformance.impls import connect
    from rechain.conformance.protocol import Answered, CaseInput
    from rechain.strategies import rows

    history = next(a for a in adapters.shipped() if a.name == "agent-history")
    if not history.installed():
        pytest.skip("agent-history is not installed (rechain matrix --install)")
    queued = rows.line({"type": "attachment", "uuid": "00000000-0000-4000-8000-000000000003",
                        "parentUuid": "00000000-0000-4000-8000-000000000002",
                        "sessionId": "s", "timestamp": "2026-01-01T00:00:03.000Z",
                        "attachment": {"type": "queued_command", "prompt": "also do this"}})
    data = b"".join([row(1, "user", None, "go"),
                     row(2, "assistant", 1, [{"type": "text", "text": "ok"}]), queued,
                     row(4, "assistant", 3, [{"type": "text", "text": "done"}])])
    got = connect("adapter:agent-history", LIMITS).run(CaseInput("x", data, "s"))
    assert isinstance(got, Answered)
    shown = [m["uuid"] for m in got.messages]
    assert len(shown) == 3 and "00000000-0000-4000-8000-000000000003" not in shown
    declared = from_json({"name": history.name, "version": history.version,
                          **history.contract})
    assert answer(data, declared).uuids == shown


def test_an_adapter_checked_alone_is_judged_by_its_own_known_bugs(tmp_path: Path) -> None:
    """``rechain check --impl adapter:NAME`` without ``--skips`` reads the adapter's
    ``skips.json`` besides the shipped list, as ``rechain matrix`` does: its listed minimal
    case is a known bug (skip), not a new failure (a run of nothing but skips still exits 1:
    it compared nothing)."""
    from rechain.conformance import skips

    history = next(a for a in adapters.shipped() if a.name == "agent-history")
    own = skips.load(history.folder / "skips.json").entries
    merged = skips.for_run(None, ["adapter:agent-history", "python:x:y"]).entries
    assert set(own) <= set(merged) and set(skips.load().entries) <= set(merged)
    assert not set(own) & set(skips.for_run(None, ["adapter:ccusage"]).entries)
    chosen = tmp_path / "mine.json"
    chosen.write_text(json.dumps({"version": 1, "skips": []}))
    assert skips.for_run(chosen, ["adapter:agent-history"]).entries == ()
    if not history.installed():
        pytest.skip("agent-history is not installed (rechain matrix --install)")
    case = "diff-agent-history-vs-agent-sdk-cause-lost-row-row-assistant-text-6ecebd09"
    report = tmp_path / "r.jsonl"
    assert main(["check", "--no-progress", *UNHURRIED,
                 "--impl", "adapter:agent-history", "--corpus",
                 str(adapters.ROOT / "found"), "--case", case, "--report", str(report)]) == 1
    statuses = [json.loads(line)["status"] for line in report.read_text().splitlines()
                if json.loads(line)["kind"] == "case"]
    assert statuses == ["skip"]


def test_the_matrix_says_why_each_failure_and_lists_the_failures_no_minimal_case_shows() -> None:
    """Each minimal case carries its explanation's sentence (not only a JSON path), counts
    read as written, a missing value reads 'nothing', and a cause whose kind was not shrunk
    (a listed bug's kind with another cause besides) is still shown, explained, with the
    command that gives every case of the run again."""
    lines = [
        {"kind": "case", "id": "gen-00000", "status": "pass"},
        {"kind": "case", "id": "gen-00001", "status": "fail", "cause": "lost-row"},
        {"kind": "case", "id": "cor-00003", "status": "fail", "cause": "extra-row",
         "explanation": {"title": "extra row", "sentence": "yours shows line 3 (user, prompt)"}},
        {"kind": "finding", "cause": "lost-row", "seen": 1, "case_id": "diff-x", "lines": 1,
         "replay": "rechain check --impl X --corpus C --case diff-x",
         "difference": {"path": "/messages/0/uuid", "left": {"$missing": True}, "right": "u"},
         "explanation": {"title": "row missing", "sentence": "yours leaves out line 1"}}]
    row = render.row_of("x@1", "file-order", lines)
    text = render.markdown([row], "rechain matrix --seed 7 --examples 3")
    assert ("- **lost-row** (1 generated case), minimal case `diff-x` (1 line): row missing: "
            "yours leaves out line 1") in text
    assert "- **extra-row** (1 generated case, no minimal case: " in text
    assert "first `cor-00003`: extra row: yours shows line 3 (user, prompt)" in text
    assert ("every case explained: `rechain check --impl adapter:x --no-corpus --seed 7 "
            "--examples 3`") in text
    again = render.row_of_data(render.data(row, {"seed": 7, "examples": 3}, lines))
    assert render.markdown([again], "rechain matrix --seed 7 --examples 3") == text
    page = render.page([again], "rechain matrix --seed 7 --examples 3")
    assert "yours leaves out line 1" in page and "yours shows line 3 (user, prompt)" in page
    without = render.markdown([render.row_of("x@1", "f", [{**lines[-1], "explanation": None}])],
                              "m")
    assert "first difference at `/messages/0/uuid`: nothing vs `'u'`" in without


def test_claude_code_log_pairing_a_call_with_its_result_is_its_declared_design(
        tmp_path: Path) -> None:
    """claude-code-log moves each tool result right after its call (its renderer's
    ``_reorder_paired_messages``): on the minimal case where a result hangs off a later
    parallel call, the real program shows it before that call, and its contract
    (``results: beside-call``) accepts that, without a parents-first invariant failure."""
    log = next(a for a in adapters.shipped() if a.name == "claude-code-log")
    assert log.contract.get("results") == "beside-call"
    if not log.installed():
        pytest.skip("claude-code-log is not installed (rechain matrix --install)")
    report = tmp_path / "r.jsonl"
    assert main(["check", "--no-progress", *UNHURRIED,
                 "--impl", "adapter:claude-code-log", "--corpus",
                 str(adapters.ROOT / "found"), "--case",
                 "diff-claude-code-log-vs-agent-sdk-cause-order-e36075cf", "--report",
                 str(report)]) == 0
    cases = [json.loads(line) for line in report.read_text().splitlines()
             if json.loads(line)["kind"] == "case"]
    assert [c["status"] for c in cases] == ["pass"]


@pytest.mark.parametrize("name", sorted(a.name for a in adapters.shipped()))
def test_each_known_bug_is_still_recognised_on_its_own_minimal_case(
        tmp_path: Path, name: str) -> None:
    """Every case a reader's ``skips.json`` lists, replayed through the installed real
    reader, is reported as that known bug (skip): an entry whose cause or kind no longer
    matches what rechain reports would count the known bug as a new failure in the matrix
    and shrink it again."""
    adapter = next(a for a in adapters.shipped() if a.name == name)
    path = adapter.folder / "skips.json"
    listed = [case for entry in json.loads(path.read_text())["skips"]
              for case in entry["cases"]] if path.exists() else []
    if not listed:
        pytest.skip(f"{name} lists no known bug")
    if not adapter.installed():
        pytest.skip(f"{name} is not installed (rechain matrix --install)")
    report = tmp_path / "r.jsonl"
    main(["check", "--no-progress", *UNHURRIED, "--impl", f"adapter:{name}", "--corpus",
          str(adapters.ROOT / "found"), *(f"--case={case}" for case in listed), "--report",
          str(report)])
    statuses = {line["id"]: (line["status"], line.get("message")) for line in
                map(json.loads, report.read_text().splitlines()) if line["kind"] == "case"}
    assert statuses.keys() == set(listed)
    assert {case: s for case, s in statuses.items() if s[0] != "skip"} == {}


def test_the_terminal_prints_replays_that_run_from_here_and_the_page_keeps_them_portable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``rechain matrix`` prints the matrix: its replays start with the words that run this
    rechain and name the cases folder in full, so they work as printed from any directory;
    the written page keeps ``rechain`` and the folder as given (it is committed)."""
    from rechain import portable

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(portable, "program", lambda: ("/opt/venv/bin/rechain",))
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "x.report.jsonl").write_text("\n".join(json.dumps(line) for line in [
        {"kind": "header", "seed": 7, "examples": 2},
        {"kind": "case", "id": "gen-00000", "status": "fail", "cause": "lost-row"},
        {"kind": "finding", "cause": "lost-row", "seen": 1, "case_id": "diff-x", "lines": 2,
         "replay": "/somewhere/rechain check --impl cmd:/abs/read.py --corpus "
                   f"{tmp_path / 'cases'} --case diff-x"}]) + "\n")
    shipped = adapters.shipped(names=["ccusage"])[0]
    monkeypatch.setattr(adapters, "shipped", lambda names=None: [
        type(shipped)(**{**{f: getattr(shipped, f) for f in shipped.__dataclass_fields__},
                         "name": "x"})])
    assert main(["matrix", "--no-run", "--out", "out", "--cases", "cases"]) == 0
    printed = capsys.readouterr().out
    assert (f"replay: `/opt/venv/bin/rechain check --impl adapter:x --corpus "
            f"{tmp_path / 'cases'} --case diff-x`") in printed
    assert ("replay: `rechain check --impl adapter:x --corpus cases --case diff-x`"
            in (tmp_path / "out" / "matrix.md").read_text())


def test_the_committed_matrix_names_the_cases_folder_from_the_repository_wherever_it_ran(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The replays kept in ``matrix-data``, the page and the case files name the cases
    folder from the repository's root, whether ``--cases`` was written absolute or the run
    started elsewhere: the same files as a run from the root with relative paths. The
    terminal's copy names it in full."""
    from rechain import portable

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "docs").mkdir()
    (tmp_path / "elsewhere").mkdir()
    cases = repo / "implementations" / "found"
    (cases / "diff-x").mkdir(parents=True)
    monkeypatch.setattr(portable, "program", lambda: ("/opt/venv/bin/rechain",))
    shipped = adapters.shipped(names=["ccusage"])[0]
    monkeypatch.setattr(adapters, "shipped", lambda names=None: [
        type(shipped)(**{**{f: getattr(shipped, f) for f in shipped.__dataclass_fields__},
                         "name": "x"})])
    written = {}
    for cwd, out, given in ((tmp_path / "elsewhere", repo / "docs", cases),
                            (repo, Path("docs"), Path("implementations/found"))):
        monkeypatch.chdir(cwd)
        (cases / "x.report.jsonl").write_text("\n".join(json.dumps(line) for line in [
            {"kind": "header", "seed": 7, "examples": 2},
            {"kind": "case", "id": "gen-00000", "status": "fail", "cause": "lost-row"},
            {"kind": "finding", "cause": "lost-row", "seen": 1, "case_id": "diff-x",
             "lines": 2, "replay": f"/somewhere/rechain check --impl cmd:/abs/read.py "
                                   f"--corpus {cases} --case diff-x"}]) + "\n")
        (cases / "diff-x" / "case.json").write_text(json.dumps(
            {"provenance": {"differential": {"replay": "old"}}}))
        assert main(["matrix", "--no-run", "--out", str(out), "--cases", str(given)]) == 0
        assert (f"replay: `/opt/venv/bin/rechain check --impl adapter:x --corpus {cases} "
                "--case diff-x`") in capsys.readouterr().out
        written[cwd] = {path.relative_to(repo): path.read_bytes()
                        for path in sorted(repo.rglob("*")) if path.is_file()
                        and "report" not in path.name and ".git" not in path.parts}
    first, second = written.values()
    assert first == second
    replay = "rechain check --impl adapter:x --corpus implementations/found --case diff-x"
    assert f"replay: `{replay}`" in first[Path("docs/matrix.md")].decode()
    assert replay in first[Path("docs/matrix-data/x.jsonl")].decode()
    assert replay in first[Path("implementations/found/diff-x/case.json")].decode()
    assert not any(str(tmp_path).encode() in data for data in first.values())
