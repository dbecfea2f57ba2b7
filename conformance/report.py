"""The JSONL run report (``rechain/schemas/report.json``): build lines, write, read, count.

Lines are plain dicts built by pure functions from runner records, so every
renderer (terminal, Markdown, HTML) works from a report file as well as from a
live run, and a report from another machine renders the same.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from rechain import __version__
from rechain.conformance.compare import STATUSES
from rechain.conformance.protocol import PROTOCOL_VERSION, ImplementationInfo, outcome_to_json
from rechain.conformance.report_bounds import clip, declared
from rechain.conformance.runner import Record
from rechain.errors import UsageError

Json = dict[str, Any]
REPORT_VERSION = 1


def header(
    implementations: Sequence[tuple[str, ImplementationInfo]],
    targets: Sequence[str],
    *,
    argv: Sequence[str] = (),
    seed: int | None = None,
    examples: int = 0,
    profile: str = "",
    started: dt.datetime | None = None,
    strictness: str | None = None,
) -> Json:
    """The first line: who ran what, with which versions."""
    moment = started or dt.datetime.now(dt.UTC)
    return {
        "kind": "header",
        "report_version": REPORT_VERSION,
        "rechain": __version__,
        "protocol": PROTOCOL_VERSION,
        "started": moment.isoformat(timespec="seconds"),
        "argv": list(argv),
        "seed": seed,
        "examples": examples,
        "profile": profile,
        "fields": strictness,
        "implementations": [{"label": label, "info": declared(info.to_json())}
                            for label, info in implementations],
        "targets": list(targets),
    }


def case_line(record: Record, *, tags: Sequence[str] = (),
              explanation: Json | None = None) -> Json:
    """One case line from a runner record; ``tags`` the case's features, ``explanation``
    why it did not pass (``explain.explain``), computed once and rendered by every report.
    What the reader answered is abbreviated (``report_bounds``): the line stays within
    ``LINE_LIMIT`` whatever the answer."""
    difference = record.difference
    return {
        "kind": "case",
        "seq": record.seq,
        "id": record.case_id,
        "group": record.group,
        "implementation": record.implementation,
        "against": record.against,
        "status": record.status,
        "message": clip(record.verdict.message),
        "difference": difference.to_json() if difference is not None else None,
        "signature": sorted(clip(token) for token in record.signature),
        "cause": clip(record.verdict.cause) if record.verdict.cause is not None else None,
        "causes": [clip(cause) for cause in record.verdict.causes],
        "outcome": outcome_to_json(record.outcome),
        "expected": outcome_to_json(record.expected) if record.expected is not None else None,
        "seconds": round(record.seconds, 6),
        "tags": list(tags),
        "explanation": explanation,
    }


@dataclass(frozen=True, slots=True)
class Rate:
    """Calls to one implementation and the seconds they took (connecting excluded)."""

    calls: int
    seconds: float

    @property
    def per_second(self) -> float | None:
        return self.calls / self.seconds if self.seconds > 0 else None

    def to_json(self) -> Json:
        per = self.per_second
        return {"calls": self.calls, "seconds": round(self.seconds, 3),
                "per_second": round(per, 1) if per is not None else None}


def counts(lines: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, dict[str, int]]]:
    """implementation -> target -> status -> count, over the case lines."""
    table: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    for line in lines:
        if line.get("kind") == "case":
            table[line["implementation"]][line["against"]][line["status"]] += 1
    return {impl: {against: {s: c[s] for s in STATUSES if c[s]} for against, c in by.items()}
            for impl, by in table.items()}


def _total(table: Mapping[str, Mapping[str, Mapping[str, int]]], statuses: set[str]) -> int:
    return sum(n for by in table.values() for c in by.values()
               for s, n in c.items() if s in statuses)


def compared_nothing(table: Mapping[str, Mapping[str, Mapping[str, int]]]) -> bool:
    """No case was compared: there was none, or every one was skipped."""
    return _total(table, {"pass", "fail", "crash", "timeout"}) == 0


#: a reader under test that compared fewer than this share of its cases tested nearly
#: nothing: its green verdict would rest on a handful of cases (a release with few recorded
#: expectations, a harness that declines almost every case)
NEARLY_NOTHING = 0.1


def untested(table: Mapping[str, Mapping[str, Mapping[str, int]]]) -> dict[str, tuple[int, int]]:
    """implementation -> (compared, cases) for each reader that compared nothing or under
    ``NEARLY_NOTHING`` of its cases: per reader, because another reader's passes say
    nothing about it."""
    found = {}
    for impl, by in table.items():
        compared = _total({impl: by}, {"pass", "fail", "crash", "timeout"})
        cases = _total({impl: by}, set(STATUSES))
        if compared < NEARLY_NOTHING * cases or compared == 0:
            found[impl] = (compared, cases)
    return found


def exit_code(table: Mapping[str, Mapping[str, Mapping[str, int]]]) -> int:
    """1 when any case failed, crashed or timed out, or when nothing (or nearly nothing) was
    compared, for the run or for one of its readers (a run that tested nothing is never a
    pass); else 0 (skips beside passes are fine)."""
    bad = _total(table, {"fail", "crash", "timeout"})
    return 1 if bad or compared_nothing(table) or untested(table) else 0


def verdict(foot: Mapping[str, Any]) -> str:
    """The run's verdict in words, for every report that shows one (terminal, Markdown,
    HTML): why it failed when nothing failed."""
    table = foot.get("counts") or {}
    if foot.get("interrupted"):
        return "interrupted"
    if foot.get("exit", 1) == 0:
        return "all agree or are skipped"
    if compared_nothing(table):
        return "nothing was compared: there was no case, or every case was skipped"
    readers = untested(table)
    said = ["disagreements found"] if _total(table, {"fail", "crash", "timeout"}) else []
    if readers:
        said.append("nearly nothing was compared: " + "; ".join(
            f"{impl} compared {compared} of its {cases} cases, the rest skipped"
            for impl, (compared, cases) in sorted(readers.items())))
    return "; ".join(said)


def footer(case_lines: Iterable[Mapping[str, Any]], rates: Mapping[str, Rate], seconds: float,
           *, interrupted: bool = False, stopped_exit: int = 1) -> Json:
    """The last line: counts, throughput and the exit code the run ends with (an interrupted
    run's is ``stopped_exit``: 130 for Ctrl-C, 1 for SIGTERM, as the process exits)."""
    table = counts(case_lines)
    return {
        "kind": "footer",
        "counts": table,
        "rates": {name: rate.to_json() for name, rate in rates.items()},
        "seconds": round(seconds, 3),
        "exit": stopped_exit if interrupted else exit_code(table),
        "interrupted": interrupted,
    }


def dumps_line(line: Mapping[str, Any]) -> bytes:
    """One report line; values a lenient reader produced (NaN) become null, never a crash."""
    from rechain.jsonio import dumps

    return dumps(dict(line)) + b"\n"


class Writer:
    """Appends report lines to a file as they come, so a killed run leaves a useful file."""

    def __init__(self, stream: IO[bytes] | None) -> None:
        self.stream = stream
        self.lines: list[Json] = []

    def write(self, line: Json) -> None:
        self.write_all([line])

    def write_all(self, lines: Sequence[Json]) -> None:
        """Several lines in one write (one case's records): an interrupted run keeps all or
        none of them, so a resumed run knows which cases are done."""
        self.lines.extend(lines)
        if self.stream is not None and lines:
            self.stream.write(b"".join(dumps_line(line) for line in lines))
            self.stream.flush()


def read(path: Path) -> list[Json]:
    """The lines of a report file (UsageError when it is not one)."""
    from rechain.jsonio import loads

    try:
        raw = path.read_bytes()
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror}") from None
    lines = []
    for number, text in enumerate(raw.splitlines(), start=1):
        if not text.strip():
            continue
        try:
            lines.append(loads(text))
        except (ValueError, RecursionError):
            raise UsageError(f"{path}:{number}: not a JSON line") from None
    if not lines or lines[0].get("kind") != "header":
        raise UsageError(f"{path}: not a rechain report (no header line)")
    return lines


def problems(lines: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every line that breaks ``report.json``, as ``line N: why`` (empty when valid)."""
    from rechain.conformance.protocol import schema_problem

    found = []
    for number, line in enumerate(lines, start=1):
        problem = schema_problem(dict(line), "report")
        if problem is not None:
            found.append(f"line {number}: {problem}")
    return found
