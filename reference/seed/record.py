"""Record 2.1.88 expectations for ``corpus/cases/seed-*``: one ``resumed-chain`` per entry point.

The expectation's ``messages`` are the rows 2.1.88 wrote to a forked session
before the prompt (type, uuid, and message or subtype); a synthetic row's
random uuid is replaced by ``synthetic:continue`` or ``synthetic:no-response``.
"""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path
from typing import Any

from rechain.reference.model import Json
from rechain.reference.seed.compare import observed
from rechain.reference.seed.differential import known_uuids
from rechain.reference.seed.resume import ENTRY_POINTS
from rechain.reference.seed.views import PROFILE_NAME

VIEW = "resumed-chain"


def as_rows(items: list[tuple[Any, ...]]) -> list[Json]:
    """Comparable tuples back to JSON rows."""
    rows: list[Json] = []
    for item in items:
        if len(item) == 2:
            rows.append({"type": item[0], "uuid": f"synthetic:{item[1]}"})
        elif item[0] == "system":
            rows.append({"type": item[0], "uuid": item[1]})
        else:
            rows.append({"type": item[0], "uuid": item[1], "content": item[2]})
    return rows


def as_items(rows: list[Json]) -> list[tuple[Any, ...]]:
    """JSON rows to comparable tuples (the inverse of ``as_rows``)."""
    items: list[tuple[Any, ...]] = []
    for row in rows:
        uuid = row["uuid"]
        if uuid.startswith("synthetic:"):
            items.append((row["type"], uuid.removeprefix("synthetic:")))
        else:
            items.append((row["type"], uuid, row.get("content")))
    return items


def record(case_dir: Path) -> None:
    """Run 2.1.88 at every entry point on the case and rewrite its 2.1.88 expectations."""
    from rechain.conformance.oracles.claude_cli import PROMPT, ClaudeCliOracle
    from rechain.conformance.oracles.registry import CLAUDE_CODE_2_1_88

    document = json.loads((case_dir / "case.json").read_text("utf-8"))
    data = (case_dir / "transcript.jsonl").read_bytes()
    kept = [e for e in document["expectations"] if e["profile"] != PROFILE_NAME]
    for entry in ENTRY_POINTS:
        with ClaudeCliOracle(spec=CLAUDE_CODE_2_1_88, entry=entry, fork=True) as oracle:
            result = oracle.resume(data, session_id=document["session_id"])
            version = oracle.version()
        rows = as_rows(observed(result.forked, known_uuids(data), PROMPT)) if result.ok else []
        kept.append({
            "profile": PROFILE_NAME,
            "view": VIEW,
            "options": {"include_system_messages": False, "limit": None, "offset": 0,
                        "entry": entry},
            "messages": rows,
            "provenance": {"oracle": "claude-code", "version": version,
                           "recorded_by": "rechain.reference.seed.record",
                           "recorded_at": datetime.date.today().isoformat()},
        })
    document["expectations"] = kept
    (case_dir / "case.json").write_text(json.dumps(document, indent=2, ensure_ascii=False)
                                        + "\n", "utf-8")


if __name__ == "__main__":
    for path in sys.argv[1:]:
        record(Path(path))
        print("recorded", path)
