"""Subagent transcripts: the reference against the TS SDK's getSubagentMessages, and the CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rechain.cli import main
from rechain.conformance.oracles.ts_sdk import TsSdkOracle
from rechain.reference.js.values import as_stringified
from rechain.reference.model import Options
from rechain.reference.sessions import project_dir_name
from rechain.reference.subagents import sdk_subagent_messages, seed_agent_transcript
from rechain.strategies import rows

ROOT = Path(__file__).resolve().parent.parent
REAL = Path("/work/shared/corpus-real")
SID = "0b0e4b1c-7f4e-4d53-9a43-8f1f5c4b3c2a"
META = json.dumps({"agentType": "general", "toolUseId": "toolu_01X", "parentAgentId": "a9"})


def row(**entry: Any) -> bytes:
    return rows.line(entry)


def msg(kind: str, uuid: str, parent: str | None, **extra: Any) -> bytes:
    body: Any = "hi" if kind == "user" else [{"type": "text", "text": "ok"}]
    return row(**{"type": kind, "uuid": uuid, "parentUuid": parent, "isSidechain": True,
                  "agentId": "a1", "sessionId": SID, "timestamp": f"2025-01-01T00:00:0{len(uuid)}Z",
                  "message": {"role": kind, "content": body}, **extra})


HAND_MADE: dict[str, bytes] = {
    "linear": msg("user", "u1", None) + msg("assistant", "a1", "u1"),
    "progress-breaks-the-chain": msg("user", "u1", None)
    + row(type="progress", uuid="p1", parentUuid="u1", data={})
    + msg("assistant", "a1", "p1"),
    "system-row-not-loaded": msg("user", "u1", None)
    + row(type="system", uuid="s1", parentUuid="u1", subtype="x")
    + msg("assistant", "a1", "s1"),
    "meta-rows-kept": msg("user", "u0", None, isMeta=True) + msg("user", "u1", "u0")
    + msg("assistant", "a1", "u1"),
    "leaf-is-last-written": msg("user", "u1", None) + msg("assistant", "a2", "u1")
    + msg("assistant", "a1", "u1"),
    "trailing-attachment-ignored-as-leaf": msg("user", "u1", None) + msg("assistant", "a1", "u1")
    + row(type="attachment", uuid="t1", parentUuid="a1", attachment={"type": "x"}),
    "cycle": msg("user", "u1", "a1") + msg("assistant", "a1", "u1"),
    "garbage-lines": b"\xef\xbb\xbfnot json\n" + msg("user", "u1", None) + b"null\n[]\n"
    + msg("assistant", "a1", "u1"),
    "empty": b"",
}


def _files() -> dict[str, bytes]:
    found = {f"real:{p.name}": p.read_bytes() for p in sorted(REAL.glob("*.jsonl"))}
    found.update({f"hand:{k}": v for k, v in HAND_MADE.items()})
    return found


@pytest.fixture(scope="module")
def oracle() -> Iterator[TsSdkOracle]:
    reason = TsSdkOracle.available()
    if reason is not None:
        pytest.skip(reason)
    with TsSdkOracle() as running:
        yield running


def _ours(data: bytes, meta: str | None, **paging: Any) -> list[Any]:
    result = sdk_subagent_messages(data, meta, Options(**paging))
    return as_stringified([{k: v for k, v in m.items() if k != "line"} for m in result.messages])


@pytest.mark.parametrize("name", sorted(_files()))
def test_subagent_rebuild_agrees_with_the_sdk(oracle: TsSdkOracle, name: str) -> None:
    data = _files()[name]
    agents = {"agent-a1.jsonl": data, "agent-a1.meta.json": META.encode()}
    assert _ours(data, META) == oracle.subagent_messages(SID, "a1", agents)


def test_sidecar_ids_paging_and_nested_dirs(oracle: TsSdkOracle) -> None:
    data = HAND_MADE["meta-rows-kept"]
    agents = {"workflows/r1/agent-a1.jsonl": data,
              "workflows/r1/agent-a1.meta.json": b'{"toolUseId":"bad id!","parentAgentId":"ok"}'}
    want = oracle.subagent_messages(SID, "a1", agents, limit=1, offset=1)
    assert _ours(data, '{"toolUseId":"bad id!","parentAgentId":"ok"}', limit=1, offset=1) == want
    assert oracle.subagent_messages(SID, "a1", {"agent-a1.jsonl": data}) == _ours(data, None)
    assert oracle.list_subagents(SID, agents) == ["a1"]


def test_every_corpus_transcript_as_a_subagent(oracle: TsSdkOracle) -> None:
    agreed = total = 0
    for path in sorted((ROOT / "corpus" / "cases").glob("*/transcript.jsonl")):
        data = path.read_bytes()
        total += 1
        agreed += _ours(data, None) == oracle.subagent_messages(SID, "a1", {"agent-a1.jsonl": data})
    assert agreed == total


def test_seed_agent_transcript_keeps_that_agents_sidechain() -> None:
    data = (msg("user", "u1", None) + msg("assistant", "a1", "u1")
            + msg("user", "x1", None, agentId="other"))
    result = seed_agent_transcript(data, "a1")
    assert [m["uuid"] for m in result.messages] == ["u1", "a1"]
    assert all("isSidechain" not in m and "parentUuid" not in m for m in result.messages)
    assert seed_agent_transcript(data, "zz").error == "no-conversation"


def test_cli_rebuild_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    project = tmp_path / "cfg" / "projects" / project_dir_name(str(cwd.resolve()))
    (project / SID / "subagents").mkdir(parents=True)
    (project / f"{SID}.jsonl").write_bytes(msg("user", "m1", None))
    (project / SID / "subagents" / "agent-a1.jsonl").write_bytes(HAND_MADE["linear"])
    (project / SID / "subagents" / "agent-a1.meta.json").write_text(META)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    base = ["rebuild", "--session", SID, "--project", str(cwd)]
    assert main([*base, "--agent", "a1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [m["uuid"] for m in out["messages"]] == ["u1", "a1"]
    assert out["messages"][0]["parent_tool_use_id"] == "toolu_01X"
    assert main([*base, "--agent", "a1", "--profile", "seed"]) == 0
    assert [m["uuid"] for m in json.loads(capsys.readouterr().out)["messages"]] == ["u1", "a1"]
    assert main([*base, "--agent", "nope"]) == 2
    assert "has no agent nope (agents: a1)" in capsys.readouterr().err


def test_rebuilding_a_subagent_file_as_a_session_says_how_to_see_its_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """By path, a subagent's file shows 0 messages (every row a hidden sidechain row): the
    text format says on stderr, and the JSON in a ``subagent-rows`` note, the command that
    shows them; that command, run by a shell from ``/``, shows them."""
    import os
    import subprocess

    project = tmp_path / "cfg" / "projects" / "-somewhere"
    (project / SID / "subagents").mkdir(parents=True)
    (project / f"{SID}.jsonl").write_bytes(msg("user", "m1", None))
    agent = project / SID / "subagents" / "agent-a1.jsonl"
    agent.write_bytes(HAND_MADE["linear"])
    assert main(["rebuild", str(agent), "--format", "text"]) == 0
    out = capsys.readouterr()
    assert "0 messages" in out.out
    [note] = out.err.splitlines()
    assert note.startswith("note: ") and f"--session {SID} --agent a1 " in note
    command = note.split("to see them: ", 1)[1]
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
    env["HOME"] = str(tmp_path / "home")  # never a real ~/.claude
    done = subprocess.run(command, shell=True, cwd="/", env=env, capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "2 messages" in done.stdout and done.stderr == ""
    assert main(["rebuild", str(agent)]) == 0
    answer = json.loads(capsys.readouterr().out)
    notes = [d for d in answer["diagnostics"] if d["kind"] == "subagent-rows"]
    assert answer["messages"] == [] and [d["line"] for d in notes] == [None]
    assert "--format" not in notes[0]["detail"] and f"--agent a1 --config-dir {tmp_path}" in \
        notes[0]["detail"]
    # the same rows under another name: told by the rows, session and agent ids from them
    elsewhere = tmp_path / "copy.jsonl"
    elsewhere.write_bytes(HAND_MADE["linear"])
    assert main(["rebuild", str(elsewhere), "--format", "text"]) == 0
    assert f"--session {SID} --agent a1 --format text" in capsys.readouterr().err


def test_a_session_transcript_gets_no_subagent_note(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    session = tmp_path / f"{SID}.jsonl"
    session.write_bytes(msg("user", "u1", None, isSidechain=False)
                        + msg("assistant", "a1", "u1", isSidechain=True))
    assert main(["rebuild", str(session), "--format", "text"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["rebuild", str(session)]) == 0
    assert not [d for d in json.loads(capsys.readouterr().out)["diagnostics"]
                if d["kind"] == "subagent-rows"]
