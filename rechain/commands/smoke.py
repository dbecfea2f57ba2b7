"""``rechain smoke``: is this harness wired up right? (Bowtie's ``smoke``.)

A handful of transcripts so plain that every reader agrees on them: an empty
file, one exchange, a skipped non-JSON line, paging. A failure here means the
*harness* is broken (wrong output shape, wrong session file, options ignored),
not that the reader differs from Claude Code; ``rechain check`` is for that.
Every answer is validated against ``result.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rechain import portable
from rechain.conformance.compare import leaf_of
from rechain.conformance.impls import Validating, connect
from rechain.conformance.outcome_text import sentence
from rechain.conformance.protocol import Answered, CaseInput, Outcome, outcome_to_json
from rechain.conformance.protocol_process import Limits
from rechain.conformance.report_bounds import clip, head
from rechain.conformance.runner import run_one
from rechain.strategies import rows

SESSION = "5e55a1d0-0b1e-4c0d-9e1a-6b2c3d4e5f60"
STAMP = "2026-01-01T00:00:0{}.000Z"


def register(subparsers: Any) -> None:
    """Add ``smoke``."""
    parser = subparsers.add_parser(
        "smoke",
        help="check that a reader's harness answers trivial transcripts correctly",
        description="Run a few trivial transcripts through one reader; a failure means the "
                    "harness is broken, not the reader.",
    )
    parser.add_argument("--impl", required=True, metavar="SPEC",
                        help="the reader (same specs as `rechain check --impl`)")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="S",
                        help="per-case limit in seconds (default 30)")
    parser.add_argument("--memory-mb", type=int, default=2048, metavar="MB",
                        help="memory limit of the reader's process (default 2048)")
    parser.add_argument("--venv", type=Path, metavar="DIR",
                        help="run a python:MOD:FN reader with this virtual environment's "
                             "interpreter (default: rechain's)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text (default): a line per case; json: one document")
    parser.set_defaults(handler=run)


def _row(kind: str, uuid: str, parent: str | None, n: int, text: str) -> bytes:
    """A row with the fields 2.1.332 writes, in its key order (``format.md`` §3.3), compact."""
    message = rows.user_message(text)
    own: dict[str, Any] = {"type": kind, "message": message, "uuid": uuid,
                           "timestamp": STAMP.format(n)}
    if kind == "assistant":
        own["message"] = rows.assistant_message(
            [rows.text(text)], f"msg_smoke{n}", model="claude-sonnet-4-6",
            usage=rows.usage(1, 1, service_tier=None), model_first=False)
        own["message"]["stop_reason"] = "end_turn"
        own["requestId"] = f"req_smoke{n}"
    stamped = rows.stamps(SESSION, cwd="/work/project", version="2.1.332", git_branch="main")
    return rows.line(rows.row(rows.chain(parent), own, stamped))


U1 = "00000000-0000-4000-8000-000000000001"
A1 = "00000000-0000-4000-8000-000000000002"


@dataclass(frozen=True, slots=True)
class SmokeCase:
    """A trivial transcript and the uuids every reader returns for it."""

    name: str
    data: bytes
    uuids: tuple[str, ...]
    options: dict[str, Any] | None = None


def smoke_cases() -> list[SmokeCase]:
    """The cases, as data: what each checks is its name."""
    exchange = _row("user", U1, None, 0, "hi") + _row("assistant", A1, U1, 1, "hello")
    return [
        SmokeCase("an empty file has no conversation", b"", ()),
        SmokeCase("one exchange comes back in order", exchange, (U1, A1)),
        SmokeCase("a line that is not JSON is skipped", exchange + b"not json\n", (U1, A1)),
        SmokeCase("the session id of each row comes back", exchange, (U1, A1)),
        SmokeCase("limit 1 returns the first message", exchange, (U1,),
                  {"include_system_messages": False, "limit": 1, "offset": 0}),
    ]


def check_one(outcome: Outcome, case: SmokeCase, resume_view: bool) -> str | None:
    """Why the answer is wrong for a smoke case, or None."""
    if not isinstance(outcome, Answered):
        if resume_view and not case.uuids:
            return None  # a resume of nothing may refuse
        return f"expected messages, but {sentence(outcome)}"
    if resume_view:
        want = case.uuids[-1] if case.uuids else None
        got = leaf_of(outcome)
        return None if got == want else f"resumed from {clip(repr(got))}, expected {want!r}"
    got_uuids = tuple(m.get("uuid") for m in outcome.messages)
    if got_uuids != case.uuids:  # a runaway answer's first uuids, the rest counted
        return f"got uuids {tuple(head(got_uuids))}, expected {case.uuids}"
    if case.name.startswith("the session id") and any(
            m.get("session_id", SESSION) != SESSION for m in outcome.messages):
        return "session_id is not the row's sessionId"
    return None


def run(args: argparse.Namespace) -> int:
    """Connect, run every smoke case, say what is wrong; exit 1 when anything is."""
    limits = Limits(timeout=args.timeout, memory_mb=args.memory_mb)
    implementation = Validating(connect(args.impl, limits, strict=True, venv=args.venv))
    results = []
    skipped = 0
    try:
        info = implementation.info
        resume_view = "session-messages" not in info.views
        for case in smoke_cases():
            options = case.options or {"include_system_messages": False, "limit": None,
                                       "offset": 0}
            outcome = run_one(implementation, CaseInput(f"smoke:{case.name}", case.data,
                                                        SESSION, options))
            problem = check_one(outcome, case, resume_view)
            if outcome_to_json(outcome)["status"] == "skipped":
                problem = None
                skipped += 1
            results.append((case.name, problem))
    finally:
        implementation.close()
    failed = [name for name, problem in results if problem]
    if skipped == len(results):  # nothing was checked: never a pass
        failed = [name for name, _ in results]
        results = [(name, "skipped: the reader answered no smoke case") for name, _ in results]
    if args.format == "json":
        print(json.dumps({"implementation": info.to_json(),
                          "results": [{"case": n, "problem": p} for n, p in results],
                          "ok": not failed}, indent=2))
    else:
        print(f"{info.slug} ({info.language}; views {', '.join(info.views)})")
        for name, problem in results:
            print(f"  {'ok  ' if problem is None else 'FAIL'} {name}"
                  + (f": {problem}" if problem else ""))
        if skipped == len(results):
            print("the reader skipped every smoke case: nothing was checked, which is no pass")
        elif failed and len(failed) == len(results):
            print("every smoke case failed: this is a broken harness or host, not a "
                  "conformance problem (check the output shape and the session file)")
        elif not failed:
            spec = portable.spec(args.impl, Path.cwd())
            print("the harness works: run "
                  f"`{portable.rechain(['check', '--impl', spec.text], spec.env)}` next")
    sys.stdout.flush()
    return 1 if failed else 0
