"""Sessions on disk: the config dir, project dir names, finding a transcript by id.

Read-only: nothing here creates or writes anything under a config dir.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterator, Mapping
from pathlib import Path

MAX_SANITIZED = 200
SESSION_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
_UNSAFE = re.compile(r"[^A-Za-z0-9]")


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``CLAUDE_CONFIG_DIR`` or ``~/.claude``, NFC-normalised as the SDKs do."""
    env = os.environ if environ is None else environ
    raw = env.get("CLAUDE_CONFIG_DIR") or str(Path.home() / ".claude")
    return Path(unicodedata.normalize("NFC", raw))


def _utf16_units(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def string_hash(text: str) -> int:
    """The 32-bit ``h = (h << 5) - h + unit`` hash over UTF-16 code units, signed."""
    value = 0
    for unit in _utf16_units(text):
        value = (value * 31 + unit) & 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if number == 0:
        return "0"
    out = []
    while number:
        number, rest = divmod(number, 36)
        out.append(digits[rest])
    return "".join(reversed(out))


def project_dir_name(path: str) -> str:
    """Every UTF-16 unit outside ``[A-Za-z0-9]`` becomes ``-``; long names get a hash suffix."""
    sanitized = "".join(
        chr(u) if u < 128 and _UNSAFE.match(chr(u)) is None else "-" for u in _utf16_units(path)
    )
    if len(sanitized) <= MAX_SANITIZED:
        return sanitized
    return f"{sanitized[:MAX_SANITIZED]}-{_base36(abs(string_hash(path)))}"


def is_session_id(value: str) -> bool:
    return SESSION_ID.fullmatch(value) is not None


def _project_dirs_for(projects: Path, directory: Path) -> Iterator[Path]:
    """The exact project dir for ``directory`` and its realpath, then long-name variants."""
    seen: set[str] = set()
    for candidate in (str(directory), os.path.realpath(directory)):
        name = project_dir_name(candidate)
        if name in seen:
            continue
        seen.add(name)
        yield projects / name
        if len(name) > MAX_SANITIZED and projects.is_dir():
            prefix = name[:MAX_SANITIZED] + "-"
            for entry in sorted(projects.iterdir()):
                if entry.name.startswith(prefix) and entry.name != name:
                    yield entry


def find_session(
    session_id: str, project: Path | None = None, environ: Mapping[str, str] | None = None
) -> Path | None:
    """The transcript of ``session_id``, like the SDK: in ``project``'s dir, else any project."""
    if not is_session_id(session_id):
        return None
    projects = config_dir(environ) / "projects"
    if project is not None:
        directories: Iterator[Path] = _project_dirs_for(projects, project)
    else:
        try:
            directories = iter(sorted(p for p in projects.iterdir() if p.is_dir()))
        except OSError:
            return None
    for directory in directories:
        candidate = directory / f"{session_id}.jsonl"
        try:
            if candidate.is_file() and candidate.stat().st_size > 0:
                return candidate
        except OSError:
            continue
    return None


def subagent_transcripts(transcript: Path) -> dict[str, Path]:
    """Agent id → file, under ``<project>/<session>/subagents/**/agent-<id>.jsonl``."""
    root = transcript.with_suffix("") / "subagents"
    found: dict[str, Path] = {}
    if not root.is_dir():
        return found
    for path in sorted(root.rglob("agent-*.jsonl")):
        found.setdefault(path.name[len("agent-") : -len(".jsonl")], path)
    return found
