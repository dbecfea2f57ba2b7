"""Generate the one corpus case over 5 MiB: the large-file pre-compaction skip.

Files over 5 MiB (5,242,880 bytes) are read in 1 MiB chunks and everything
before the last ``compact_boundary`` without preserved messages is dropped. The
bytes are generated, not hand-written, so they stay small in review and exact:

* ``x``: a conversation of about 1.2 MiB of tool output, then file-history
  snapshots up to about 4.6 MiB, with ``attribution-snapshot`` lines between.
* ``cb1``: a boundary in the current key order, where ``"compact_boundary"``
  is within the first 256 bytes of the line: the reader skips to it.
* ``y``: the conversation goes on from the last ``x`` reply (so the skip shows
  as a missing parent), with ``cb2``, a boundary in the 2.0/2.1.3x key order
  (stamps first) whose marker lies past byte 256, and an assistant row whose
  tool input holds the string ``"compact_boundary"`` within its first 256 bytes.
* ``cb3``: a boundary in the current order that straddles the 5 MiB chunk
  border, then ``z``, the last turn.

Run ``python -m rechain.corpus.make_large_case OUT.jsonl`` to write the bytes.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from rechain.corpus.build import Line, Row, Session, dumps, jsonl, text
from rechain.corpus.scenario import collector
from rechain.strategies import rows

SCENARIOS, scenario = collector()

MIB = 1024 * 1024
CHUNK_BORDER = 5 * MIB
MARKER = b'"compact_boundary"'
_WORDS = [
    "def",
    "return",
    "self",
    "value",
    "index",
    "parse",
    "line",
    "chunk",
    "reader",
    "buffer",
    "offset",
    "marker",
    "session",
    "entry",
    "parent",
    "uuid",
    "leaf",
    "chain",
    "branch",
    "result",
    "tool",
    "stream",
    "token",
]


def filler_text(seed: str, size: int) -> str:
    """Deterministic code-like text of exactly ``size`` ASCII characters."""
    out: list[str] = []
    length = 0
    counter = 0
    while length < size:
        digest = hashlib.sha256(f"{seed}/{counter}".encode()).digest()
        words = [_WORDS[b % len(_WORDS)] for b in digest[:8]]
        line = f"    {words[0]}_{words[1]} = {words[2]}({words[3]}, {words[4]}[{digest[8]}])\n"
        out.append(line)
        length += len(line)
        counter += 1
    return "".join(out)[:size]


def _snapshot(s: Session, n: int, files: int) -> Row:
    """A file-history-snapshot line tracking ``files`` backups (not read by the SDK)."""
    backups = {
        f"/home/dev/projects/orbit/src/module_{n:03d}_{k:04d}.py": {
            "backupFileName": hashlib.sha256(f"{n}/{k}".encode()).hexdigest()[:16] + "@v2",
            "version": 2,
            "backupTime": "2026-11-20T09:10:00.000Z",
        }
        for k in range(files)
    }
    message_id = s.uid(f"x-snap-{n}")
    return {
        "type": "file-history-snapshot",
        "messageId": message_id,
        "snapshot": {
            "messageId": message_id,
            "trackedFileBackups": backups,
            "timestamp": "2026-11-20T09:10:00.000Z",
        },
        "isSnapshotUpdate": True,
    }


def _attribution(s: Session, n: int) -> Row:
    return {
        "type": "attribution-snapshot",
        "messageId": s.uid(f"attr-{n}"),
        "surface": "cli",
        "fileStates": {"src/cli.py": {"claudeLines": 40 + n, "humanLines": 12}},
    }


def _x_chain(s: Session) -> list[Line]:
    """The pre-boundary conversation: twelve Read calls with ~100 KB results each."""
    rows: list[Line] = [s.user("x0", "Read every module in src/ and summarise.", None)]
    parent = "x0"
    for n in range(1, 13):
        call = s.tool_use(f"xt{n}", "Read", file_path=f"/home/dev/projects/orbit/src/m{n}.py")
        rows.append(s.assistant(f"xa{n}", [call], parent))
        body = filler_text(f"read-{n}", 100_000)
        rows.append(s.result(f"xr{n}", f"xt{n}", f"xa{n}", source=f"xa{n}", output=body))
        parent = f"xr{n}"
    rows.append(s.assistant("xlast", [text("Twelve modules; the reader is the biggest.")], parent))
    return rows


def _legacy_boundary(s: Session, label: str, logical: str) -> Row:
    """A boundary with the stamps first (2.0.x to 2.1.3x), so its marker is past byte 256."""
    row = s.boundary(label, logical=logical)
    head = {k: row[k] for k in ("parentUuid", "logicalParentUuid", "isSidechain")}
    stamps = {
        k: row[k] for k in ("userType", "entrypoint", "cwd", "sessionId", "version", "gitBranch")
    }
    stamps["slug"] = "idempotent-sprouting-ocean"
    rest = {k: v for k, v in row.items() if k not in head and k not in stamps}
    return rows.row(head, rest, stamps, stamps_first=True)


def _y_chain(s: Session) -> list[Line]:
    grep = rows.tool_use(s.tool_id("yt1"), "Grep", {"pattern": "compact_boundary"})
    early = {"type": "assistant",
             "message": {"id": s.msg_id("ya2"), "content": [grep], "role": "assistant"}}
    early_marker = rows.row(rows.chain(s.uid("yu2")), early, s.assistant("ya2", [grep], "yu2"))
    return [
        s.user("yu1", "Now look at how the reader skips old bytes.", "xlast"),
        s.assistant("ya1", [text("It looks for compact boundaries.")], "yu1"),
        _legacy_boundary(s, "cb2", "ya1"),
        s.user("yu2", "Find where the marker is searched.", "ya1"),
        early_marker,
        s.result("yr2", "yt1", "ya2", source="ya2", output="src/reader.py:88"),
        s.assistant("ya3", [text("In src/reader.py, line 88.")], "yr2"),
    ]


def _pad_to(s: Session, start: int, target: int, n: int) -> list[bytes]:
    """Snapshot lines (plus a short last one) that move the write position to ``target``."""
    lines: list[bytes] = []
    position = start
    while target - position > 70_000:
        line = dumps(_snapshot(s, n + len(lines), 300)) + b"\n"
        lines.append(line)
        position += len(line)
    gap = target - position
    pad = {"type": "file-history-snapshot", "messageId": s.uid("pad"), "snapshot": {"pad": ""}}
    base = len(dumps(pad)) + 1
    if gap < base:
        raise ValueError("padding gap too small")
    pad["snapshot"]["pad"] = "x" * (gap - base)
    lines.append(dumps(pad) + b"\n")
    return lines


def build(s: Session) -> bytes:
    """The whole file; every assumption about offsets is checked, not hoped for."""
    head = jsonl([*_x_chain(s), _attribution(s, 1)])
    body = b"".join(dumps(_snapshot(s, n, 300)) + b"\n" for n in range(30))
    head += body + jsonl([_attribution(s, 2)])
    cb1 = dumps(s.boundary("cb1", logical="xlast")) + b"\n"
    assert 0 <= cb1.find(MARKER) < 256
    middle = jsonl(_y_chain(s))
    marked = [line for line in middle.split(b"\n") if MARKER in line]
    assert any(line.find(MARKER) > 256 and b'"system"' in line for line in marked)
    assert any(line.find(MARKER) < 256 and b'"Grep"' in line for line in marked)
    prefix = head + cb1 + middle
    cb3 = dumps(s.boundary("cb3", logical="ya3")) + b"\n"
    cb3_start = CHUNK_BORDER - 100
    padding = b"".join(_pad_to(s, len(prefix), cb3_start, 100))
    tail = jsonl(
        [
            _attribution(s, 3),
            s.user("zu1", "Summarise what we found.", "ya3"),
            s.assistant("za1", [text("The skip needs the marker early in the line.")], "zu1"),
        ]
    )
    data = prefix + padding + cb3 + tail
    assert data.index(cb3) == cb3_start < CHUNK_BORDER < cb3_start + len(cb3)
    assert 5 * MIB < len(data) < 6 * MIB
    return data


@scenario(
    "large-file-compact-skip",
    "large-file",
    "compaction",
    "attribution-snapshot",
    source="generated",
)
def large_file(s: Session) -> bytes:
    """A 5.1 MiB file: the reader skips to the last boundary it can see, missing two later ones."""
    return build(s)


def main(argv: list[str]) -> int:
    """Write the case's bytes to the path given on the command line."""
    if len(argv) != 1:
        print("usage: python -m rechain.corpus.make_large_case OUT.jsonl", file=sys.stderr)
        return 2
    data = SCENARIOS[0]().data
    Path(argv[0]).write_bytes(data)
    print(f"wrote {len(data)} bytes to {argv[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
