"""Where ``rebuild --session`` and ``sessions`` look transcripts up, and saying so.

``--config-dir`` overrides ``$CLAUDE_CONFIG_DIR`` (which overrides ``~/.claude``),
every "not found" names the directory searched, and a ``--project`` that no
longer exists on disk is still found by its sanitized name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run
from transcript_rows import assistant, jsonl, user

from rechain.cli import main
from rechain.reference.sessions import project_dir_name

SID = "0b0e4b1c-7f4e-4d53-9a43-8f1f5c4b3c2a"
GONE = "/a/project/deleted/since"


def _config_with_session(root: Path, project: str) -> Path:
    """A config dir holding one session under ``project``'s sanitized name."""
    config = root / "elsewhere-cfg"
    directory = config / "projects" / project_dir_name(project)
    directory.mkdir(parents=True)
    (directory / f"{SID}.jsonl").write_bytes(
        jsonl(user("u1", None, "hello", sessionId=SID), assistant("a1", "u1", sessionId=SID))
    )
    return config


@pytest.fixture
def other_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$CLAUDE_CONFIG_DIR`` points at an empty config dir: only --config-dir finds anything."""
    empty = tmp_path / "env-cfg"
    (empty / "projects").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(empty))
    return empty


def test_config_dir_finds_a_session_of_a_deleted_project(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, other_env: Path
) -> None:
    config = _config_with_session(tmp_path, GONE)
    code, out, err = run(capsys, "rebuild", "--session", SID, "--project", GONE,
                         "--config-dir", str(config))
    assert (code, err) == (0, "")
    assert [m["uuid"] for m in json.loads(out)["messages"]] == ["u1", "a1"]
    code, out, err = run(capsys, "sessions", "--project", GONE, "--config-dir", str(config),
                         "--format", "json")
    assert (code, err) == (0, "")
    assert [s["sessionId"] for s in json.loads(out)] == [SID]


def test_the_environment_is_the_default(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _config_with_session(tmp_path, GONE)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    code, out, _ = run(capsys, "sessions", "--project", GONE)
    assert code == 0 and SID in out


def test_not_found_names_the_directory_searched(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, other_env: Path
) -> None:
    code, out, err = run(capsys, "rebuild", "--session", SID)
    assert code == 2 and out == ""
    assert f"in any project under {other_env / 'projects'}" in err
    code, _, err = run(capsys, "rebuild", "--session", SID, "--project", GONE)
    assert code == 2 and str(other_env / "projects" / project_dir_name(GONE)) in err
    code, out, _ = run(capsys, "sessions", "--project", GONE)
    assert code == 0
    assert out == f"no sessions in {other_env / 'projects' / project_dir_name(GONE)} " \
                  f"(project {GONE})\n"
    code, out, _ = run(capsys, "sessions", "--all")
    assert code == 0 and out == f"no sessions in any project under {other_env / 'projects'}\n"
    missing = tmp_path / "no-such-cfg"
    code, _, err = run(capsys, "sessions", "--all", "--config-dir", str(missing))
    assert code == 2 and str(missing) in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("command", [["rebuild"], ["sessions"]])
def test_help_states_the_default(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "--config-dir DIR" in shown
    assert "(default: $CLAUDE_CONFIG_DIR, else ~/.claude)" in shown
