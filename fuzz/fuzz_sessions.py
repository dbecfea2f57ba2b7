"""Harness: session lookup on odd paths and names, in a throwaway config dir.

The input is split at NUL bytes into a flag byte's field, a session id, a
project path and up to four project directory names; the harness lays out a
fresh ``CLAUDE_CONFIG_DIR`` under a private temp dir (never ``~/.claude``),
then calls ``find_session`` and ``subagent_transcripts``. Strings are what an
argv or environment can carry (``os.fsdecode`` of NUL-free bytes), the inputs
the CLI can pass on. Contract: no exception; nothing under the config dir
changes; a result is a non-empty ``<id>.jsonl`` under ``projects/``; the
session placed in the project's own directory is the one found; project
directory names use only ``[A-Za-z0-9-]`` and stay within 200 characters plus
a hash suffix.

Run: ``rechain fuzz sessions``.
"""

from __future__ import annotations

import atexit
import itertools
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from rechain.fuzz.contract import harness
from rechain.reference.sessions import (
    find_session,
    is_session_id,
    project_dir_name,
    subagent_transcripts,
)

VALID_ID = "0f0e0d0c-0b0a-4000-8000-00000000abcd"
_NAME = re.compile(r"[A-Za-z0-9-]{0,200}|[A-Za-z0-9-]{200}-[0-9a-z]+")
_ROOT = Path(tempfile.mkdtemp(prefix="rechain-fuzz-sessions-"))
atexit.register(shutil.rmtree, _ROOT, ignore_errors=True)  # a worker's: its runner's scratch
_COUNTER = itertools.count()


class BrokenLookupError(AssertionError):
    """The lookup broke a promise (wrote, found the wrong file, made a bad name)."""


def _snapshot(root: Path) -> list[tuple[str, int]]:
    paths = (Path(top) / name for top, dirs, files in os.walk(root) for name in (*dirs, *files))
    return sorted((str(path), path.lstat().st_size) for path in paths)


def _safe_name(name: str) -> str | None:
    """A name usable as one directory entry, or None."""
    if name in ("", ".", "..") or "/" in name or len(os.fsencode(name)) > 255:
        return None
    return name


def _lay_out(config: Path, flags: int, session_id: str, project: str, names: list[str]) -> Path:
    """Create project dirs (some holding the session) and return the expected hit."""
    projects = config / "projects"
    projects.mkdir(parents=True)
    if _safe_name(f"{session_id}.jsonl") is None:  # an id with a slash names no file here
        flags &= 0x3
        session_id = VALID_ID
    expected = projects / project_dir_name(str(Path(project))) / f"{session_id}.jsonl"
    for index, raw in enumerate(names):
        name = _safe_name(raw if flags & 2 else project_dir_name(raw))
        if name is None:
            continue
        directory = projects / name
        directory.mkdir(exist_ok=True)
        if flags & (16 << index):
            (directory / f"{session_id}.jsonl").write_bytes(b"{}\n")
            agents = directory / session_id / "subagents"
            agents.mkdir(parents=True, exist_ok=True)
            (agents / "agent-a1.jsonl").write_bytes(b"{}\n")
    if flags & 4 and project and len(os.fsencode(expected.parent.name)) <= 255:
        expected.parent.mkdir(exist_ok=True)
        expected.write_bytes(b"{}\n")
    return expected


def _check_name(path: str) -> None:
    name = project_dir_name(path)
    if _NAME.fullmatch(name) is None:
        raise BrokenLookupError(f"bad project directory name {name!r}")


EXAMPLES = (
    b"\x15\x00\x00/home/user/project\x00-home-user-project\x00other",
    b"\x05\x00\x00/tmp/caf\xc3\xa9 \xe2\x98\x83/a b\x00x",
    b"\x04\x000f0e0d0c-0b0a-4000-8000-00000000ABCD\x00/" + b"very-long/" * 30,
    b"\x17\x00\x00relative/../path\x00\xff\xfe\x00" + b"a" * 220 + b"\x00.",
    b"\x33\x00\x00/tmp/x\x00-tmp-x\x00-tmp-x-\x00" + b"b" * 201,
)


@harness(
    max_len=2048,
    timeout_s=10,
    seeds="none",
    examples=EXAMPLES,
    description="find_session on odd names: never raises",
)
def one_input(data: bytes) -> None:
    fields = [os.fsdecode(field) for field in data.split(b"\x00")]
    flags = data[0] if data else 0
    session_id = VALID_ID if flags & 1 else (fields[1] if len(fields) > 1 else "")
    project = fields[2] if len(fields) > 2 else ""
    names = fields[3:7]
    for path in (project, *names):
        _check_name(path)
    config = _ROOT / str(next(_COUNTER))
    try:
        expected = _lay_out(config, flags, session_id, project, names)
        before = _snapshot(config)
        environ = {"CLAUDE_CONFIG_DIR": str(config)}
        found = find_session(session_id, Path(project) if project else None, environ)
        if found is not None:
            if not is_session_id(session_id) or found.name != f"{session_id}.jsonl":
                raise BrokenLookupError(f"found {found} for {session_id!r}")
            if found.parent.parent != config / "projects" or not found.stat().st_size:
                raise BrokenLookupError(f"found {found} outside the projects dir or empty")
            subagent_transcripts(found)
        placed = flags & 4 and project and is_session_id(session_id) and expected.is_file()
        if placed and found != expected:
            raise BrokenLookupError(f"found {found}, the project's own copy is {expected}")
        if _snapshot(config) != before:
            raise BrokenLookupError("the config dir changed during the lookup")
    finally:
        shutil.rmtree(config, ignore_errors=True)


if __name__ == "__main__":
    from rechain.fuzz.worker import exec_harness

    exec_harness("rechain.fuzz.fuzz_sessions:one_input", sys.argv[1:])
