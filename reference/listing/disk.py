"""The IO edge of session listing: find project dirs, read heads and tails, read sidecars.

Read-only, and bounded: a session file is read at most twice, 64 KiB from the
start and 64 KiB from the end, whatever its size. The only larger read is the
SDK's own check of a ``continued-in`` target (at most 16 MiB of that file).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rechain.reference.js.text import decode
from rechain.reference.listing.agent_sdk_0_3_332 import Lite, lite_of
from rechain.reference.sessions import MAX_SANITIZED, is_session_id, project_dir_name

LITE_READ_BYTES = 65536
SIDECAR_ARCHIVED_BYTES = 4096
PARENT_MARKER = b'"parentUuid":'
TARGET_SCAN_BYTES = 16 * 1024 * 1024
TARGET_CHUNK_BYTES = 1024 * 1024
_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A ``<uuid>.jsonl`` in a project dir, with the project path it was found for."""

    session_id: str
    path: Path
    project_path: str | None


def _pread_full(fd: int, size: int, offset: int) -> bytes:
    """Up to ``size`` bytes at ``offset`` (loops over short reads, like the SDK)."""
    chunks: list[bytes] = []
    got = 0
    while got < size:
        piece = os.pread(fd, size - got, offset + got)
        if not piece:
            break
        chunks.append(piece)
        got += len(piece)
    return b"".join(chunks)


def read_lite(path: Path) -> tuple[Lite, bytes, bytes] | None:
    """The head and tail of a regular file (decoded, plus raw), or None if empty/unreadable."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        head = _pread_full(fd, LITE_READ_BYTES, 0)
        if not head:
            return None
        tail_at = max(0, info.st_size - LITE_READ_BYTES)
        tail = _pread_full(fd, LITE_READ_BYTES, tail_at) if tail_at > 0 else head
    except OSError:
        return None
    finally:
        os.close(fd)
    lite = lite_of(head, None if tail is head else tail, info.st_size, mtime_ms(info))
    return lite, head, tail


def mtime_ms(info: os.stat_result) -> int:
    """``stats.mtime.getTime()``: Node rounds the nanosecond mtime to whole ms."""
    return round(info.st_mtime_ns / 1_000_000)


def birth_ms(path: Path) -> int | None:
    """``stats.birthtime.getTime()`` where the platform reports it (None otherwise)."""
    try:
        info = path.stat()
    except OSError:
        return None
    born = getattr(info, "st_birthtime", None)
    return round(born * 1000) if isinstance(born, float) else None


def read_text(path: Path, limit: int | None = None) -> str | None:
    """A small sidecar's text, or None when absent, unreadable or over ``limit`` bytes."""
    try:
        with path.open("rb") as handle:
            data = handle.read() if limit is None else handle.read(limit + 1)
    except OSError:
        return None
    if limit is not None and len(data) > limit:
        return None
    return decode(data)


def has_chain_entries(path: Path) -> bool:
    """Whether a hand-off target holds a conversation (``"parentUuid":``)."""
    read = read_lite(path)
    if read is None:
        return False
    lite, head, tail = read
    if PARENT_MARKER in head or PARENT_MARKER in tail:
        return True
    if lite.size <= LITE_READ_BYTES:
        return False
    try:
        with path.open("rb") as handle:
            carry, scanned = b"", 0
            while scanned < TARGET_SCAN_BYTES:
                chunk = handle.read(TARGET_CHUNK_BYTES)
                if not chunk:
                    return False
                if PARENT_MARKER in carry + chunk:
                    return True
                carry = (carry + chunk)[-len(PARENT_MARKER) :]
                scanned += len(chunk)
    except OSError:
        return False
    return True  # the SDK gives up after 16 MiB and assumes a conversation


def project_dirs(projects: Path, directory: Path) -> tuple[str, list[Path]]:
    """(project path, its project dirs): the realpath's dir, then long-name variants."""
    real = os.path.realpath(directory)
    name = project_dir_name(real)
    found: list[Path] = []
    exact = projects / name
    if exact.is_dir():
        found.append(exact)
    if len(name) > MAX_SANITIZED:
        prefix = name[:MAX_SANITIZED] + "-"
        try:
            entries = sorted(projects.iterdir())
        except OSError:
            entries = []
        found += [e for e in entries if e.name.startswith(prefix) and e != exact and e.is_dir()]
    return real, found


def all_project_dirs(projects: Path) -> list[Path]:
    """Every directory under ``projects/``."""
    try:
        return sorted(p for p in projects.iterdir() if p.is_dir())
    except OSError:
        return []


def candidates(directory: Path, project_path: str | None) -> Iterator[Candidate]:
    """``<uuid>.jsonl`` names in one project dir (any case of hex digits)."""
    try:
        names = sorted(p.name for p in directory.iterdir())
    except OSError:
        return
    for name in names:
        if name.endswith(".jsonl") and is_session_id(name[: -len(".jsonl")]):
            yield Candidate(name[: -len(".jsonl")], directory / name, project_path)


def cwd_collides(cwd: str, project_path: str) -> bool:
    """A cwd that sanitizes like the project path but is another real directory."""
    if cwd == project_path or project_dir_name(cwd) != project_dir_name(project_path):
        return False
    if any(part == ".." for part in cwd.replace("\\", "/").split("/")):
        return False
    try:
        real = os.path.realpath(cwd, strict=True)
    except (OSError, ValueError):
        return False
    other = os.path.realpath(project_path)
    return project_dir_name(real) == project_dir_name(other) and real != other
