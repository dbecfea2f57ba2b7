"""Continuing an interrupted run from its report (``rechain check --resume REPORT``).

A report is written and flushed line by line, so a run that was stopped (Ctrl-C,
SIGTERM) or killed leaves every finished case on file. Resuming reads it back: the
header says how the run was made (its argv and seed), the case lines which cases are
done. A killed run's last line may be cut short; it is dropped, as is the footer of
an interrupted run, and the rest of the file is kept as it is: the resumed run
appends its cases and one new footer, so the file ends as one run's report.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

from rechain.errors import UsageError
from rechain.jsonio import loads

Json = dict[str, Any]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Previous:
    """What an earlier run left in its report: the lines to keep and where they end."""

    path: Path
    lines: tuple[Json, ...]  # the header, then case and finding lines, as written
    end: int  # bytes of the file those lines take; the rest is dropped

    @property
    def header(self) -> Json:
        return self.lines[0]

    @property
    def done(self) -> frozenset[str]:
        """The ids of the cases on file (an id is one item: one transcript, one option set)."""
        return frozenset(str(line["id"]) for line in self.lines if line.get("kind") == "case")


def load(path: Path) -> Previous:
    """Read a report to resume; what is not a rechain report is the user's to fix."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise UsageError(f"--resume {path}: cannot read: {error.strerror}") from None
    lines: list[Json] = []
    end = 0
    for number, text in enumerate(raw.splitlines(keepends=True), start=1):
        try:
            line = loads(text) if text.strip() else None
            whole = text.endswith(b"\n")
        except (ValueError, RecursionError):
            whole = False
        if not whole:  # the last line of a killed run, cut short; nothing may follow it
            if raw[end + len(text):].strip():
                raise UsageError(f"--resume {path}:{number}: not a JSON line")
            break
        if isinstance(line, dict) and line.get("kind") == "footer":
            break  # an interrupted run's summary: the resumed run writes the new one
        if line is not None:
            lines.append(line)
        end += len(text)
    if not lines or lines[0].get("kind") != "header":
        raise UsageError(f"--resume {path}: not a rechain report (no header line)")
    return Previous(path, tuple(lines), end)


def remaining(items: Iterable[T], previous: Previous, case_id: Any) -> list[T]:
    """The items whose case is not on file yet (``case_id(item)`` names each)."""
    done = previous.done
    return [item for item in items if case_id(item) not in done]


def reopen(previous: Previous) -> IO[bytes]:
    """The report, cut after its last kept line, open for appending."""
    stream = previous.path.open("r+b")
    stream.truncate(previous.end)
    stream.seek(previous.end)
    return stream


def without_options(argv: Sequence[str], names: Sequence[str]) -> list[str]:
    """``argv`` without the named options and their values (``--name V`` or ``--name=V``)."""
    kept: list[str] = []
    skip = False
    for token in argv:
        if skip:
            skip = False
            continue
        name = token.split("=", 1)[0]
        if name in names:
            skip = "=" not in token
            continue
        kept.append(token)
    return kept


def same_readers(previous: Previous, labels: Sequence[str]) -> None:
    """The readers connected now are the ones the run checked, version and all (a report's
    header names each as ``name@version``): another version's verdicts appended to the
    report would be counted as the run's."""
    was = [str(entry.get("label")) for entry in previous.header.get("implementations") or []]
    if list(labels) == was:
        return
    changed = [f"{then} is now {now}" for then, now in zip(was, labels, strict=False)
               if then != now]
    if len(was) != len(labels):
        changed.append(f"the run checked {', '.join(was) or 'no reader'}, this one "
                       f"{', '.join(labels) or 'no reader'}")
    raise UsageError(f"--resume {previous.path}: not the readers the run checked: "
                     f"{'; '.join(changed)} (install the version the run checked to resume "
                     "it, or start a new run for this one)")


def option_value(argv: Sequence[str], name: str) -> str | None:
    """The value of option ``name`` on a command line (``--name V`` or ``--name=V``)."""
    for i, token in enumerate(argv):
        if token == name and i + 1 < len(argv):
            return str(argv[i + 1])
        if token.startswith(f"{name}="):
            return token.split("=", 1)[1]
    return None
