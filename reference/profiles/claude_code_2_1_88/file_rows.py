"""``--resume <file>.jsonl`` before 2.1.88's line: every message row of the file, in order.

2.1.39 does not walk a chain when it resumes a path: it reads the file's lines, keeps
each ``user`` and ``assistant`` row in file order (sidechain rows and other branches
included, no leaf, no recovery), each as its ``type`` and ``message`` alone under a fresh
uuid (so ``isMeta`` and the other flags are gone), and deserialises those. A bare
``null`` line throws while it reads ``.type``: the resume fails (2.0.76 passes over it).
"""

from __future__ import annotations

from rechain.reference.graph import ReaderError
from rechain.reference.model import Diagnostic, Json
from rechain.reference.profiles.claude_code_2_1_88.load import Loaded
from rechain.reference.profiles.claude_code_2_1_88.parse import numbered_lines, parse_values
from rechain.reference.profiles.claude_code_2_1_88.release import SeedRelease


def file_rows(data: bytes, release: SeedRelease) -> tuple[Loaded, list[Json]]:
    """The rows as loaded (for line numbers) and the messages made of them, fresh uuids
    as None; ``ReaderError`` when a ``null`` line makes the read throw."""
    loaded = Loaded()
    rows: list[Json] = []
    for number, value in parse_values(numbered_lines(data), loaded.diagnostics,
                                      release.lines_trimmed):
        if value is None and not release.null_line_stops_loading:
            continue  # 2.0.76 passes over it
        if value is None:
            loaded.diagnostics.append(Diagnostic(number, "load-aborted",
                                                 "a JSON null line throws (reading 'type')"))
            raise ReaderError("Cannot read properties of null (reading 'type')")
        if type(value) is dict and value.get("type") in ("user", "assistant"):
            loaded.messages[("line", number)] = value
            loaded.line[id(value)] = number
            rows.append(value)
    return loaded, rows


def as_fresh(rows: list[Json]) -> list[Json]:
    """Each row as the type and message a path resume keeps, under a fresh uuid (None)."""
    return [{"type": r.get("type"), "message": r.get("message"), "uuid": None} for r in rows]
