"""``rechain rebuild``: exit codes, the JSON schema, the text view, no tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import run
from transcript_rows import assistant, jsonl, result, tool_use, user

from rechain.schema_files import validator

SID = "0b0e4b1c-7f4e-4d53-9a43-8f1f5c4b3c2a"


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    path = tmp_path / f"{SID}.jsonl"
    path.write_bytes(
        jsonl(
            user("u1", None, "read it"),
            assistant("a1", "u1", mid="m1", blocks=[tool_use("t1")]),
            result("r1", "a1", "t1"),
            assistant("a2", "r1", mid="m2"),
            "not json",
        )
    )
    return path


def test_json_output_validates_against_the_schema(
    capsys: pytest.CaptureFixture[str], transcript: Path
) -> None:
    code, out, _ = run(capsys, "rebuild", str(transcript))
    document = json.loads(out)
    assert code == 0
    assert list(validator("rebuild").iter_errors(document)) == []
    assert document["session_id"] == SID
    assert [m["uuid"] for m in document["messages"]] == ["u1", "a1", "r1", "a2"]
    assert document["diagnostics"] == [
        {"line": 5, "kind": "invalid-json", "detail": document["diagnostics"][0]["detail"]}
    ]


def test_text_output_puts_tool_calls_next_to_their_results(
    capsys: pytest.CaptureFixture[str], transcript: Path
) -> None:
    code, out, _ = run(capsys, "rebuild", str(transcript), "--format", "text")
    assert code == 0
    call = out.index("→ Read [t1]")
    assert out.index("← x", call) > call
    assert "line 5: invalid-json" in out


def test_find_by_session_id(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    transcript: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rechain.reference.sessions import project_dir_name

    home = tmp_path / "cfg" / "projects" / project_dir_name(os.path.realpath(tmp_path))
    home.mkdir(parents=True)
    (home / transcript.name).write_bytes(transcript.read_bytes())
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    code, out, _ = run(
        capsys, "rebuild", "--session", SID, "--project", str(tmp_path), "--limit", "1"
    )
    assert code == 0 and [m["uuid"] for m in json.loads(out)["messages"]] == ["u1"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["rebuild"], "give a transcript PATH"),
        (["rebuild", "/nonexistent/x.jsonl"], "no such file"),
        (["rebuild", "/"], "is a directory"),
        (["rebuild", "--session", "nope"], "not a session id"),
        (["rebuild", "x", "--profile", "zzz"], "unknown profile"),
        (["rebuild", "x", "--format", "yaml"], "invalid choice"),
        (["nosuchcommand"], "invalid choice"),
    ],
)
def test_user_mistakes_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_an_empty_conversation_is_success(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"\n\n\xff\xfe garbage\n")
    code, out, _ = run(capsys, "rebuild", str(path))
    assert code == 0 and json.loads(out)["messages"] == []


def test_unprintable_values_still_print(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "odd.jsonl"
    deep = "[" * 3000 + "]" * 3000
    path.write_text(
        '{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user",'
        '"content":"\\ud800"},"x":' + deep + "}\n"
    )
    code, out, _ = run(capsys, "rebuild", str(path))
    assert code == 0
    assert json.loads(out)["messages"][0]["message"]["content"] == "\ud800"


def test_the_console_script_runs_as_a_module(transcript: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rechain", "rebuild", str(transcript), "--format", "text"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "profile agent-sdk@0.3.332" in done.stdout


@pytest.mark.parametrize("profile", ["sdk", "cli", "claude-code@2.1.300"])
def test_an_entry_point_for_a_profile_without_them_is_a_mistake(
    capsys: pytest.CaptureFixture[str], transcript: Path, profile: str
) -> None:
    code, out, err = run(capsys, "rebuild", str(transcript), "--profile", profile,
                         "--entry", "continue")
    assert code == 2 and out == ""
    [line] = err.strip().splitlines()
    assert line.startswith("rechain: error: --entry continue: profile ")
    assert "has one entry point" in line


@pytest.mark.parametrize("profile", ["seed", "claude-code@2.1.100", "claude-code@2.0.76"])
def test_an_entry_point_picks_the_2_1_88_loaders_resume(
    capsys: pytest.CaptureFixture[str], transcript: Path, profile: str
) -> None:
    code, out, _ = run(capsys, "rebuild", str(transcript), "--profile", profile,
                       "--entry", "continue", "--view", "chain")
    assert code == 0 and json.loads(out)["entry"] == "continue"


def test_a_dash_reads_the_transcript_from_standard_input(transcript: Path) -> None:
    """``rechain rebuild -``: the same answer as from the file, but no session id (the file
    name gave it)."""
    def rebuilt(*args: str, given: bytes | None = None) -> dict[str, object]:
        done = subprocess.run([sys.executable, "-m", "rechain", "rebuild", *args],
                              input=given, capture_output=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr.decode()
        return json.loads(done.stdout)  # type: ignore[no-any-return]

    from_file = rebuilt(str(transcript))
    piped = rebuilt("-", given=transcript.read_bytes())
    assert [m["uuid"] for m in piped["messages"]] == ["u1", "a1", "r1", "a2"]
    assert piped["session_id"] is None and from_file["session_id"] == SID
    assert {**piped, "session_id": SID} == from_file


def test_text_output_shows_a_result_whose_call_is_not_in_the_conversation(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A tool result kept on the chain while its call is not (a torn line, a dangling
    parent) is shown where it is, not folded into a call the text never shows; and one
    message is '1 message'."""
    path = tmp_path / f"{SID}.jsonl"
    path.write_bytes(jsonl(result("r1", None, "t1")))
    code, out, _ = run(capsys, "rebuild", str(path), "--format", "text")
    assert code == 0
    assert " · 1 message\n" in out
    assert "← result for [t1], whose call is not in the rebuilt conversation: x" in out
