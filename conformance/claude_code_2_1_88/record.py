"""Record Claude Code 2.1.88's expectations for corpus cases: per entry point, two views.

``resumed-chain``: the rows 2.1.88 wrote to a forked session before the prompt
(type, uuid, and message content; a synthetic row's random uuid is replaced by
``synthetic:continue`` or ``synthetic:no-response``). ``api``: the first model
request's messages with the harness's own blocks and the prompt taken out
(``api.harness_free``). When 2.1.88 fails on the input (non-zero exit, no
request), the ``api`` expectation carries an ``error`` outcome instead, and so
does ``resumed-chain`` unless the fork had already written the conversation and
the prompt (the failure came later, while building the request). Everything comes from the
real program; an unchanged output keeps its old provenance.

    python -m rechain.conformance.claude_code_2_1_88.record corpus/cases/*            # run 2.1.88
    python -m rechain.conformance.claude_code_2_1_88.record --from-dump DIR corpus/cases/*
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from rechain.conformance.claude_code_2_1_88.compare import observed, observed_request, wrote_prompt
from rechain.conformance.claude_code_2_1_88.forked import known_uuids, undump
from rechain.conformance.oracles import OracleError
from rechain.conformance.oracles.claude_cli import (
    HANG_MARK,
    PROMPT,
    ClaudeCliOracle,
    CliCase,
    hangs_on_cycles,
)
from rechain.conformance.oracles.registry import get as get_oracle
from rechain.corpus.cases_io import dumps_case
from rechain.corpus.splice import expectation_key, splice
from rechain.reference.model import Json
from rechain.reference.profiles.claude_code_2_1_88.resume import ENTRY_POINTS
from rechain.reference.profiles.claude_code_2_1_88.views import PROFILE_NAME

VIEW = "resumed-chain"
API_VIEW = "api"
RECORDED_BY = "rechain.conformance.claude_code_2_1_88.record"


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


UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def failure(result: Any, data: bytes) -> Json | None:
    """The ``error`` outcome of a run that failed (None when 2.1.88 answered).

    A uuid the run made up (a fresh session id) reads ``<fresh-uuid>`` so that
    re-recording gives the same text.
    """
    if result.ok:
        return None
    lines = [line for line in result.stderr.strip().splitlines() if line.strip()]
    text = lines[-1] if lines else "(no output)"
    text = UUID.sub(lambda m: m.group() if m.group().encode() in data else "<fresh-uuid>", text)
    return {"message": text, "exit_code": result.returncode}


HUNG = {"message": "hangs: no exit before the deadline (killed)", "exit_code": None}


def hung() -> dict[str, tuple[list[Json], Json | None]]:
    """Both views of a run killed at the deadline: the release never exits (a cycle,
    before cycle detection), recorded as that error."""
    return {VIEW: ([], dict(HUNG)), API_VIEW: ([], dict(HUNG))}


def outputs(data: bytes, result: Any) -> dict[str, tuple[list[Json], Json | None]]:
    """Per view: the recorded messages and the error outcome (if any) of one run."""
    error = failure(result, data)
    views: dict[str, tuple[list[Json], Json | None]] = {}
    if error is None or wrote_prompt(result.forked, PROMPT):
        # the fork wrote the whole conversation before anything after it failed
        views[VIEW] = (as_rows(observed(result.forked, known_uuids(data), PROMPT)), None)
    else:
        views[VIEW] = ([], error)
    views[API_VIEW] = ((observed_request(result.messages, result.prompt_turn, PROMPT), None)
                       if error is None else ([], error))
    return views


def merge(document: Json, entry: str, views: dict[str, tuple[list[Json], Json | None]],
          version: str, today: str, profile: str = PROFILE_NAME) -> Json:
    """The case document with this entry point's expectations of ``profile`` (a release of
    the 2.1.88 line) replaced."""
    fresh = []
    olds = {(e["view"], e["options"].get("entry")): e for e in document["expectations"]
            if e["profile"] == profile}
    for view, (messages, error) in views.items():
        provenance = {"oracle": "claude-code", "version": version,
                      "recorded_by": RECORDED_BY, "recorded_at": today}
        old = olds.get((view, entry))
        if old is not None and old["messages"] == messages and old.get("error") == error \
                and old["provenance"].get("version") == version:
            provenance = old["provenance"]
        expectation: Json = {
            "profile": profile, "view": view,
            "options": {"include_system_messages": False, "limit": None, "offset": 0,
                        "entry": entry},
            "messages": messages}
        if error is not None:
            expectation["error"] = error
        expectation["provenance"] = provenance
        fresh.append(expectation)
    def replaced(e: Json) -> bool:
        return e["profile"] == profile and e["options"].get("entry") == entry and e["view"] in views

    def key(e: Json) -> Hashable:
        return expectation_key(e["profile"], e["view"], e["options"])

    return {**document, "expectations": splice(document["expectations"], fresh, replaced, key)}


def record(case_dirs: list[Path], dump: Path | None, workers: int = 2,
           release: str = "2.1.88") -> list[str]:
    """Record every case at every entry point with the real ``release`` (a JS bundle of the
    2.1.88 line, under profile ``claude-code@<release>``); one line per case (or problem)."""
    spec = get_oracle(f"claude-code@{release}")
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    sessions = {d: json.loads((d / "case.json").read_text("utf-8")) for d in case_dirs}
    updates: dict[Path, dict[str, dict[str, tuple[list[Json], Json | None]]]] = {}
    lines: list[str] = []
    with ClaudeCliOracle(spec=spec) as probe:
        version = probe.version()
    for entry in ENTRY_POINTS:
        if dump is not None:
            results: list[Any] = []
            for directory in case_dirs:
                path = dump / f"{directory.name}.{entry}.json"
                results.append(undump(path) if path.exists() else OracleError("not dumped"))
        else:
            with ClaudeCliOracle(spec=spec, entry=entry, fork=True,
                                 workers=workers, timeout=90) as oracle:
                results = oracle.resume_all(
                    CliCase((d / "transcript.jsonl").read_bytes(),
                            sessions[d]["session_id"], sessions[d].get("env"))
                    for d in case_dirs)
        for directory, result in zip(case_dirs, results, strict=True):
            hung_here = isinstance(result, OracleError) and HANG_MARK in str(result) \
                and hangs_on_cycles(release)
            if isinstance(result, OracleError) and not hung_here:
                lines.append(f"{directory.name} [{entry}]: not recorded: {result}")
                continue
            data = (directory / "transcript.jsonl").read_bytes()
            updates.setdefault(directory, {})[entry] = (
                hung() if isinstance(result, OracleError) else outputs(data, result))
    for directory, per_entry in updates.items():
        # re-read just before writing: other recorders edit other profiles' expectations
        document = json.loads((directory / "case.json").read_text("utf-8"))
        for entry, views in per_entry.items():
            document = merge(document, entry, views, version, today, f"claude-code@{release}")
        encoded = dumps_case(document)
        if encoded != (directory / "case.json").read_bytes():
            (directory / "case.json").write_bytes(encoded)
            lines.append(f"{directory.name}: recorded")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Command line: record the given case directories."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="+", type=Path)
    parser.add_argument("--from-dump", type=Path,
                        help="results of the same cases saved as JSON (forked.undump; no new runs)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--release", default="2.1.88",
                        help="a JS-bundle release of the 2.1.88 line (its oracle installed)")
    args = parser.parse_args(argv)
    dirs = [p for p in args.cases if (p / "case.json").exists()]
    if not dirs:
        print("no case directories given", file=sys.stderr)
        return 2
    for line in record(dirs, args.from_dump, args.workers, args.release):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
