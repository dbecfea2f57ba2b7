"""Sessions on disk: project dir names and finding a session like the SDK (read-only)."""

from __future__ import annotations

import os
from pathlib import Path

from rechain.reference.sessions import (
    config_dir,
    find_session,
    project_dir_name,
    string_hash,
    subagent_transcripts,
)

SID = "0b0e4b1c-7f4e-4d53-9a43-8f1f5c4b3c2a"


def test_the_hash_is_javas_string_hash() -> None:
    # well-known values of java.lang.String#hashCode
    assert string_hash("") == 0
    assert string_hash("hello") == 99162322
    assert string_hash("Aa") == string_hash("BB") == 2112
    assert string_hash("polygenelubricants") == -2**31  # the famous MIN_VALUE hash


def test_every_character_outside_ascii_alphanumerics_becomes_a_hyphen() -> None:
    assert project_dir_name("/Users/a.b/my_proj x") == "-Users-a-b-my-proj-x"
    assert project_dir_name("/tmp/é") == "-tmp--"
    assert project_dir_name("/tmp/😀") == "-tmp---"  # two UTF-16 units, two hyphens


def test_long_names_are_cut_to_200_and_get_the_base36_hash_of_the_original() -> None:
    path = "/" + "a" * 300
    name = project_dir_name(path)
    assert name.startswith("-" + "a" * 199 + "-")
    assert len(name.split("-")[-1]) <= 7
    assert int(name.rsplit("-", 1)[1], 36) == abs(string_hash(path))


def test_config_dir_is_nfc_normalised() -> None:
    assert str(config_dir({"CLAUDE_CONFIG_DIR": "/tmp/cafe\u0301"})) == "/tmp/caf\u00e9"


def test_find_session_in_the_project_dir_else_any_project(tmp_path: Path) -> None:
    cwd = tmp_path / "work"
    cwd.mkdir()
    projects = tmp_path / "cfg" / "projects"
    home = projects / project_dir_name(os.path.realpath(cwd))
    home.mkdir(parents=True)
    (home / f"{SID}.jsonl").write_text('{"type":"user"}\n')
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    assert find_session(SID, cwd, env) == home / f"{SID}.jsonl"
    assert find_session(SID, None, env) == home / f"{SID}.jsonl"
    assert find_session(SID, tmp_path / "elsewhere", env) is None
    assert find_session("not-a-uuid", None, env) is None


def test_an_empty_transcript_counts_as_not_found(tmp_path: Path) -> None:
    home = tmp_path / "cfg" / "projects" / "-p"
    home.mkdir(parents=True)
    (home / f"{SID}.jsonl").write_bytes(b"")
    assert find_session(SID, None, {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}) is None


def test_subagent_transcripts_are_found_recursively(tmp_path: Path) -> None:
    transcript = tmp_path / f"{SID}.jsonl"
    nested = tmp_path / SID / "subagents" / "workflows" / "run1"
    nested.mkdir(parents=True)
    (tmp_path / SID / "subagents" / "agent-a1.jsonl").write_text("")
    (nested / "agent-b2.jsonl").write_text("")
    assert sorted(subagent_transcripts(transcript)) == ["a1", "b2"]
