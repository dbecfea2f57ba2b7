"""``rechain bench listing``: session-list time against file size (it must stay flat).

The lister reads 64 KiB at each end of a transcript. To show that, the same
number of sessions is listed at several file sizes. Files are sparse: a real
head (64 KiB of conversation), a hole, and a real tail (64 KiB with titles,
tags and the last prompt), so a 100 MB session costs ~130 KiB of disk and a
10,000 x 100 MB project (1 TB apparent) fits on a small disk.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path
from typing import Any

from rechain.conformance.owned_dirs import make_owned, release
from rechain.reference.listing import list_sessions
from rechain.reference.sessions import project_dir_name

CHUNK = 64 * 1024


def _row(**entry: Any) -> bytes:
    return json.dumps(entry, separators=(",", ":")).encode() + b"\n"


def _part(session_id: str, prefix: str, size: int, first: bool) -> bytes:
    """About ``size`` bytes of whole JSONL lines (user/assistant pairs)."""
    out = bytearray()
    parent: str | None = None
    n = 0
    while len(out) < size:
        uid = f"{prefix}-{n}"
        kind = "user" if n % 2 == 0 else "assistant"
        text = f"prompt number {n} " if first and n == 0 else "x" * 400
        out += _row(
            type=kind,
            uuid=uid,
            parentUuid=parent,
            sessionId=session_id,
            timestamp="2025-01-01T00:00:00.000Z",
            cwd="/bench",
            gitBranch="main",
            message={"role": kind, "content": text},
        )
        parent, n = uid, n + 1
    return bytes(out)


TEMPLATE_ID = "00000000-0000-0000-0000-000000000000"


def template() -> tuple[bytes, bytes]:
    """Head and tail bytes for ``TEMPLATE_ID`` (the id is swapped per session)."""
    head = _part(TEMPLATE_ID, "h", CHUNK, True)
    tail = (
        _part(TEMPLATE_ID, "t", CHUNK, False)
        + _row(type="custom-title", customTitle="bench", sessionId=TEMPLATE_ID)
        + _row(type="tag", tag="bench", sessionId=TEMPLATE_ID)
    )
    return head, tail


def make_session(
    path: Path, session_id: str, size: int, parts: tuple[bytes, bytes] | None = None
) -> None:
    """A sparse transcript of apparent ``size`` bytes with a real head and tail."""
    head, tail = parts or template()
    head = head.replace(TEMPLATE_ID.encode(), session_id.encode())
    tail = tail.replace(TEMPLATE_ID.encode(), session_id.encode())
    with path.open("wb") as handle:
        handle.write(head)
        if size > len(head) + len(tail):
            handle.seek(size - len(tail) - 1)
            handle.write(b"\n")  # the hole reads as NULs; end it with a line break
        handle.write(tail)


def _layout(root: Path, sessions: int, size: int) -> tuple[Path, Path]:
    cwd = root / "project"
    cwd.mkdir()
    project = root / "config" / "projects" / project_dir_name(os.path.realpath(cwd))
    project.mkdir(parents=True)
    parts = template()
    for number in range(sessions):
        session_id = str(uuid.UUID(int=number + 1))
        make_session(project / f"{session_id}.jsonl", session_id, size, parts)
    return root / "config", cwd


def _disk_bytes(directory: Path) -> int:
    return sum(p.stat().st_blocks * 512 for p in directory.rglob("*.jsonl"))


def run(sessions: int, sizes_mb: list[float], runs: int) -> dict[str, Any]:
    """List ``sessions`` sessions at each size; best-of-``runs`` wall time per size."""
    rows = []
    for size_mb in sizes_mb:
        size = int(size_mb * 1024 * 1024)
        root = make_owned("rechain-bench-listing-")  # gigabytes: gone even after a kill
        try:
            started = time.perf_counter()
            config, cwd = _layout(root, sessions, size)
            made = time.perf_counter() - started
            best = float("inf")
            listed = 0
            for _ in range(runs):
                started = time.perf_counter()
                listed = len(list_sessions(config, cwd))
                best = min(best, time.perf_counter() - started)
            rows.append(
                {
                    "sessions": sessions,
                    "file_mb": size_mb,
                    "apparent_gb": round(sessions * size / 1e9, 2),
                    "disk_mb": round(_disk_bytes(root) / 1e6, 1),
                    "listed": listed,
                    "seconds": round(best, 4),
                    "ms_per_session": round(best * 1000 / sessions, 4),
                    "generate_seconds": round(made, 1),
                }
            )
        finally:
            release(root)
    times = [r["seconds"] for r in rows]
    return {
        "benchmark": "listing",
        "runs": runs,
        "results": rows,
        "max_over_min": round(max(times) / min(times), 3) if times and min(times) > 0 else None,
    }
