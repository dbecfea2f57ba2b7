"""``rechain sessions`` and the listing rules: the reference against the TS SDK's listSessions.

Each hand-made case is a small project (sessions, sidecars, dirs); the same
layout is written for the SDK (through the bridge) and for the reference, and
the two lists must be equal. Cases cover each listing rule by name.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from rechain.cli import main
from rechain.conformance.oracles.ts_sdk import PROJECT_DIR, Layout, SessionFile, TsSdkOracle
from rechain.reference.listing import claude_code_2_1_88 as seed_rules
from rechain.reference.listing import list_sessions, session_info
from rechain.reference.listing.agent_sdk_0_3_332 import Lite, first_prompt
from rechain.reference.sessions import project_dir_name
from rechain.strategies import rows

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "cases"
T0 = 1_700_000_000_000
A = "0b0e4b1c-7f4e-4d53-9a43-8f1f5c4b3c2a"
B = "1c1e4b1c-7f4e-4d53-9a43-8f1f5c4b3c2b"
C = "2d2e4b1c-7f4e-4d53-9a43-8f1f5c4b3c2c"
TOKEN = "@ROOT@"


def row(**entry: Any) -> bytes:
    return rows.line(entry)


def user(uuid: str, parent: str | None, content: Any = "hello", **extra: Any) -> bytes:
    base = {"parentUuid": parent, "isSidechain": False, "type": "user", "uuid": uuid,
            "timestamp": "2025-01-02T03:04:05.000Z", "cwd": "/w/p", "sessionId": A,
            "message": {"role": "user", "content": content}}
    return row(**{**base, **extra})


def assistant(uuid: str, parent: str, text: str = "ok", **extra: Any) -> bytes:
    base = {"parentUuid": parent, "isSidechain": False, "type": "assistant", "uuid": uuid,
            "timestamp": "2025-01-02T03:04:06.000Z", "sessionId": A,
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}],
                        "stop_reason": "end_turn"}}
    return row(**{**base, **extra})


BASE = user("u1", None) + assistant("a1", "u1")
FILLER = b"".join(assistant(f"f{i}", "u1", "x" * 900) for i in range(90))  # > 64 KiB


@dataclass
class Case:
    """A project: sessions (id -> bytes, mtime order by position), sidecars, dirs."""

    sessions: Mapping[str, bytes]
    extra: Mapping[str, bytes] = field(default_factory=dict)
    cwd_name: str = "cwd"
    dirs: tuple[str, ...] = ()
    include_programmatic: bool | None = None
    same_mtime: bool = False

    def files(self) -> list[SessionFile]:
        return [SessionFile(sid, data, T0 if self.same_mtime else T0 + 1000 * i)
                for i, (sid, data) in enumerate(self.sessions.items())]


CASES: dict[str, Case] = {
    "title-custom-in-tail-wins": Case({A: BASE + row(type="custom-title", customTitle="mine",
                                                      sessionId=A)
                                       + row(type="ai-title", aiTitle="ai", sessionId=A)}),
    "title-last-custom-title-wins": Case({A: row(type="custom-title", customTitle="one",
                                                 sessionId=A) + BASE
                                          + row(type="custom-title", customTitle="two",
                                                sessionId=A)}),
    "title-sidecar-before-head": Case(
        {A: row(type="custom-title", customTitle="head", sessionId=A) + BASE + FILLER},
        extra={f"{A}/custom-title.json": b'{"customTitle":"  side\\u0007car  "}'}),
    "title-tail-beats-sidecar": Case(
        {A: BASE + row(type="custom-title", customTitle="tail", sessionId=A)},
        extra={f"{A}/custom-title.json": b'{"customTitle":"side"}'}),
    "title-ai-title-when-no-custom": Case({A: BASE + row(type="ai-title", aiTitle="ai t",
                                                         sessionId=A)}),
    "title-spaced-type": Case({A: BASE + b'{"type": "custom-title", "customTitle": "sp"}\n'}),
    "tag-any-key-order": Case({A: BASE + b'{"tag":"t1","sessionId":"x","type":"tag"}\n'}),
    "tag-empty-is-absent": Case({A: BASE + row(type="tag", tag="t0", sessionId=A)
                                 + row(type="tag", tag="", sessionId=A)}),
    "summary-last-prompt": Case({A: BASE + row(type="last-prompt", lastPrompt="latest",
                                               sessionId=A)}),
    "summary-summary-line": Case({A: BASE + row(type="summary", summary="sum", leafUuid="a1")}),
    "summary-nested-key-ignored": Case({A: BASE + assistant(
        "a2", "a1", "t", toolInput={"summary": "nested"})}),
    "summary-image-only": Case({A: user("u1", None, [{"type": "image", "source": {}}])}),
    "summary-document-only": Case({A: user("u1", None, [{"type": "document", "source": {}}])}),
    "prompt-skips-xml-and-interrupts": Case({A: user("u0", None, "<ide_opened_file>x")
                                             + user("u1", "u0", "[Request interrupted by user]")
                                             + user("u2", "u1", "  real\nprompt  ")}),
    "prompt-command-fallback": Case({A: user(
        "u1", None, "<command-name>/clear</command-name><command-args></command-args>")}),
    "prompt-bash-input": Case({A: user("u1", None, "<bash-input> ls -la </bash-input>")}),
    "prompt-truncated": Case({A: user("u1", None, "word " * 80)}),
    "prompt-truncated-at-emoji": Case({A: user("u1", None, "a" * 199 + "\U0001f600" * 5)}),
    "prompt-skips-meta-compact-tool-result": Case({A: user("u0", None, "meta", isMeta=True)
        + user("u1", "u0", "sum", isCompactSummary=True)
        + user("u2", "u1", [{"type": "tool_result", "tool_use_id": "t", "content": "r"}])
        + user("u3", "u2", [{"type": "text", "text": "<foo>"}, {"type": "text", "text": "b"}])}),
    "prompt-pasted-content": Case({A: user(
        "u1", None, 'see <pasted_content id="ab12">\nbody text\n</pasted_content id="ab12">')}),
    "hidden-first-line-sidechain": Case({A: user("u1", None, isSidechain=True), B: BASE}),
    "hidden-metadata-only": Case({A: row(type="tag", tag="x", sessionId=A), B: BASE}),
    "hidden-programmatic": Case({A: user("u1", None, entrypoint="sdk-ts"), B: BASE},
                                include_programmatic=False),
    "programmatic-listed-by-default": Case({A: user("u1", None, entrypoint="sdk-py")}),
    "hidden-continued-in": Case({A: BASE + row(type="continued-in", continuedInSessionId=B),
                                 B: BASE}),
    "continued-in-target-missing": Case({A: BASE + row(type="continued-in",
                                                       continuedInSessionId=C)}),
    "continued-in-then-turn": Case({A: BASE + row(type="continued-in", continuedInSessionId=B)
                                    + assistant("a2", "a1"), B: BASE}),
    "sort-ties-by-session-id": Case({A: BASE, C: BASE, B: BASE}, same_mtime=True),
    "sort-by-mtime": Case({C: BASE, A: BASE, B: BASE}),
    "branch-tail-then-head": Case({A: user("u1", None, gitBranch="head-b") + FILLER
                                   + assistant("a2", "u1", gitBranch="tail-b")}),
    "branch-head-only": Case({A: user("u1", None, gitBranch="main") + FILLER}),
    "cwd-relocated": Case({A: BASE + row(type="relocated", relocatedCwd="/moved")}),
    "cwd-missing-uses-project": Case({A: row(type="user", uuid="u1", parentUuid=None,
                                             message={"role": "user", "content": "hi"})}),
    "created-at-first-timestamp": Case({A: row(type="summary", summary="s", leafUuid="x",
                                               timestamp="2024-02-30T00:00:00Z") + BASE}),
    "large-file-head-and-tail-only": Case({A: BASE + FILLER + row(
        type="custom-title", customTitle="middle", sessionId=A) + FILLER}),
    "archived-sidecar": Case({A: BASE, B: BASE}, extra={
        f"{A}/archived.json": b'{"archived":true,"at":"2030-01-01T00:00:00Z"}',
        f"{B}/archived.json": b'{"archived":true,"at":"2020-01-01T00:00:00Z"}'}),
    "cwd-collision-hidden": Case(
        {A: user("u1", None, cwd=f"{TOKEN}/a-b"), B: user("u1", None, cwd=f"{TOKEN}/a.b")},
        cwd_name="a.b", dirs=("a-b",)),
    "invalid-utf8-and-crlf": Case({A: b"\xff\xfe" + BASE.replace(b"\n", b"\r\n")}),
}


def _mine(case: Case) -> list[dict[str, Any]]:
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(os.path.realpath(scratch))
        cwd = root / case.cwd_name
        cwd.mkdir()
        for extra_dir in case.dirs:
            (root / extra_dir).mkdir(parents=True, exist_ok=True)
        project = root / "cfg" / "projects" / project_dir_name(str(cwd))
        project.mkdir(parents=True)
        for relative, data in case.extra.items():
            (project / relative).parent.mkdir(parents=True, exist_ok=True)
            (project / relative).write_bytes(data)
        for file in case.files():
            path = project / f"{file.session_id}.jsonl"
            path.write_bytes(file.data.replace(TOKEN.encode(), str(root).encode()))
            assert file.mtime_ms is not None
            os.utime(path, ns=(int(file.mtime_ms * 1e6),) * 2)
        listed = list_sessions(root / "cfg", cwd,
                               include_programmatic=case.include_programmatic is not False)
        return [{k: PROJECT_DIR if v == str(cwd) else v for k, v in i.items()} for i in listed]


@pytest.fixture(scope="module")
def oracle() -> Iterator[TsSdkOracle]:
    reason = TsSdkOracle.available()
    if reason is not None:
        pytest.skip(reason)
    with TsSdkOracle() as running:
        yield running


@pytest.mark.parametrize("name", sorted(CASES))
def test_hand_made_case_agrees_with_the_sdk(oracle: TsSdkOracle, name: str) -> None:
    case = CASES[name]
    layout = Layout(extra_files=case.extra, cwd_name=case.cwd_name, dirs=case.dirs,
                    root_token=TOKEN)
    want = oracle.list_sessions(case.files(), include_programmatic=case.include_programmatic,
                                layout=layout)
    got = _mine(case)
    if any(TOKEN.encode() in data for data in case.sessions.values()):
        # the token becomes each side's own temp root, so file sizes differ
        want = [{k: v for k, v in i.items() if k != "fileSize"} for i in want]
        got = [{k: v for k, v in i.items() if k != "fileSize"} for i in got]
    assert got == want


def test_every_corpus_case_lists_as_the_sdk_lists_it(oracle: TsSdkOracle) -> None:
    files = []
    for number, path in enumerate(sorted(CORPUS.glob("*/transcript.jsonl"))):
        session_id = json.loads((path.parent / "case.json").read_text())["session_id"]
        files.append(SessionFile(session_id, path.read_bytes(), T0 + 1000 * number))
    agreed = 0
    for file in files:
        case = Case({file.session_id: file.data})
        if _mine(case) == oracle.list_sessions(case.files()):
            agreed += 1
    assert agreed == len(files)
    everything = Case({f.session_id: f.data for f in files})
    assert _mine(everything) == oracle.list_sessions(everything.files())


def test_session_info_matches_get_session_info(oracle: TsSdkOracle, tmp_path: Path) -> None:
    data = user("u1", None, isSidechain=True)  # hidden from lists, but getSessionInfo too
    for payload in (BASE, data, row(type="tag", tag="x")):
        want = oracle.session_info(SessionFile(A, payload, T0))
        project = tmp_path / "cfg" / "projects" / project_dir_name(str(tmp_path / "cwd"))
        project.mkdir(parents=True, exist_ok=True)
        (tmp_path / "cwd").mkdir(exist_ok=True)
        target = project / f"{A}.jsonl"
        target.write_bytes(payload)
        os.utime(target, ns=(T0 * 1_000_000,) * 2)
        got = session_info(tmp_path / "cfg", A, tmp_path / "cwd")
        if got is not None and got.get("cwd") == str(tmp_path / "cwd"):
            got["cwd"] = PROJECT_DIR
        assert got == want


def test_only_the_head_and_tail_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rechain.reference.listing import disk

    reads: list[int] = []
    real = os.pread

    def counting(fd: int, size: int, offset: int) -> bytes:
        reads.append(size)
        return real(fd, size, offset)

    monkeypatch.setattr(disk.os, "pread", counting)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    project = tmp_path / "cfg" / "projects" / project_dir_name(str(cwd.resolve()))
    project.mkdir(parents=True)
    with (project / f"{A}.jsonl").open("wb") as handle:
        handle.write(BASE)
        handle.truncate(50 * 1024 * 1024)  # sparse: 50 MB that cost nothing
    (listed,) = list_sessions(tmp_path / "cfg", cwd)
    assert listed["fileSize"] == 50 * 1024 * 1024
    assert sum(reads) <= 2 * 65536


def test_seed_rules_differ_where_2_1_88_differs() -> None:
    head = (user("u1", None, "first") + row(type="last-prompt", lastPrompt="latest")).decode()
    lite = Lite(head, head, len(head), T0)
    info = seed_rules.session_info(A, lite, "/p", None)
    assert info is not None and info["firstPrompt"] == "latest"  # lastPrompt wins in 2.1.88
    side = user("u1", None) + user("u2", "u1", "x", isSidechain=True)
    assert seed_rules.session_info(A, Lite(side.decode(), side.decode(), 1, T0), "/p", None) is None
    team = user("u1", None, teamName="t").decode()
    assert seed_rules.session_info(A, Lite(team, team, 1, T0), "/p", None) is None
    empty = row(type="tag", tag="x").decode()
    shown = seed_rules.session_info(A, Lite(empty, empty, 1, T0), "/p", None)
    assert shown is not None and shown["firstPrompt"] == "(session)"
    command = user("u1", None, "<command-name>/fix</command-name><command-args>now</command-args>")
    assert seed_rules.first_prompt(command.decode()) == "/fix now"
    assert first_prompt(command.decode()) == "/fix"  # the SDK keeps the command name only


def test_cli_lists_json_and_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    project = tmp_path / "cfg" / "projects" / project_dir_name(str(cwd.resolve()))
    project.mkdir(parents=True)
    (project / f"{A}.jsonl").write_bytes(BASE + row(type="tag", tag="t", sessionId=A))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    assert main(["sessions", "--project", str(cwd), "--format", "json"]) == 0
    (info,) = json.loads(capsys.readouterr().out)
    assert info["sessionId"] == A and info["tag"] == "t" and info["summary"] == "hello"
    assert main(["sessions", "--all", "--profile", "seed"]) == 0
    assert A in capsys.readouterr().out
    assert main(["sessions", "--profile", "nope"]) == 2
    assert "unknown listing profile" in capsys.readouterr().err
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "none"))
    assert main(["sessions", "--all"]) == 2


def test_json_output_follows_the_schema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    from rechain.schema_files import validator

    cwd = tmp_path / "cwd"
    cwd.mkdir()
    project = tmp_path / "cfg" / "projects" / project_dir_name(str(cwd.resolve()))
    project.mkdir(parents=True)
    for sid, case in zip((A, B, C), ("title-custom-in-tail-wins", "tag-any-key-order",
                                     "cwd-relocated"), strict=True):
        (project / f"{sid}.jsonl").write_bytes(next(iter(CASES[case].sessions.values())))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    for profile in ("sdk", "seed"):
        assert main(["sessions", "--project", str(cwd), "--format", "json",
                     "--profile", profile]) == 0
        listed = json.loads(capsys.readouterr().out)
        assert len(listed) == 3
        validator("sessions").validate(listed)
