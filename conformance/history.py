"""How each verified Claude Code release resumes one transcript, grouped into ranges.

Every release of the profile family answers with the chain it resumes (the rows the
new prompt continues, and the entry it is chained to). Consecutive releases with the
same answer form one range, so a user reads "2.1.88 to 2.1.100 resume the older branch;
from 2.1.101 the last-written one" instead of a row per release.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from rechain.reference import Options, get_profile, rebuild
from rechain.reference.profiles.family import same_range

Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Resumed:
    """What one release resumes: the chain's uuids, the tip, or the error it fails with; and
    what it sends the model (each API message as compact JSON)."""

    uuids: tuple[str, ...]
    tip: str | None
    error: str | None = None
    sent: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.error, self.tip, self.uuids, self.sent)


@dataclass(frozen=True, slots=True)
class Span:
    """A run of consecutive releases that resume the transcript alike."""

    first: str
    last: str
    resumed: Resumed
    differs_at: int | None  # index of the first chain row that differs from the span before

    @property
    def releases(self) -> str:
        return self.first if self.first == self.last else f"{self.first} to {self.last}"


def resume_of(profile_name: str, data: bytes, entry: str | None) -> Resumed:
    """The ``chain`` view of one release's profile, in one shape for every profile."""
    profile = get_profile(profile_name)
    result = rebuild(data, profile, Options(entry=entry))
    view = result.view("chain")
    chain = view.get("chain") or []
    uuids = tuple(str(row.get("uuid") if isinstance(row, dict) else row) for row in chain)
    tip = view.get("tip", view.get("leaf"))
    api = result.view("api") if "api" in profile.views else {}
    # json, not orjson: a release that sends a lone surrogate as it is (2.1.120) has one here
    sent = tuple(json.dumps(m, sort_keys=True, separators=(",", ":"))
                 for m in api.get("messages") or ())
    error = view.get("error") or api.get("error")  # the CLI's chain view has no error
    error = _ONE_WORDING.get(error, error) if isinstance(error, str) else error
    return Resumed(uuids, tip if isinstance(tip, str) else None,
                   str(error) if error else None, sent)


# the 2.1.88 line's profiles name a failure the CLI's profile words as the CLI prints it:
# one wording, so releases that fail alike read alike
_ONE_WORDING = {"no-conversation": "No conversation found"}


def _parting(before: Sequence[str], after: Sequence[str]) -> int | None:
    """The index of the first item where two sequences part (None when they are equal)."""
    if before == after:
        return None
    same = (i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b)
    return next(same, min(len(before), len(after)))


def first_difference(before: Resumed, after: Resumed) -> int | None:
    """The index of the first chain row where two answers part (None when equal); when the
    chains agree, the number of rows (what differs is then what is sent)."""
    if before.key == after.key:
        return None
    found = _parting(before.uuids, after.uuids)
    return len(before.uuids) if found is None else found


def first_sent_difference(before: Resumed, after: Resumed) -> int | None:
    """The index of the first API message that differs (None when all are equal)."""
    return _parting(before.sent, after.sent)


def _anywhere(before: str, after: str) -> bool:
    return True


def spans(answers: Iterable[tuple[str, Resumed]],
          together: Callable[[str, str], bool] = _anywhere) -> list[Span]:
    """Group (release, answer) pairs, oldest release first, into runs of equal answers;
    ``together(a, b)`` says whether the releases between a and b are answered too (a range
    never spans releases that were not verified)."""
    out: list[Span] = []
    for release, resumed in answers:
        if out and out[-1].resumed.key == resumed.key and together(out[-1].last, release):
            out[-1] = Span(out[-1].first, release, resumed, out[-1].differs_at)
            continue
        differs = first_difference(out[-1].resumed, resumed) if out else None
        out.append(Span(release, release, resumed, differs))
    return out


def history(data: bytes, releases: Sequence[tuple[str, str]], entry: str | None = None,
            ) -> list[Span]:
    """How each (release, profile name) resumes ``data``, oldest first, as spans."""
    return spans(((release, resume_of(name, data, entry)) for release, name in releases),
                 together=same_range)


def rows_by_uuid(data: bytes) -> dict[str, tuple[int, Json]]:
    """uuid → (1-based line, row) for the rows a table names (the last line wins)."""
    found: dict[str, tuple[int, Json]] = {}
    for number, line in enumerate(data.split(b"\n"), 1):
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(row, dict) and isinstance(row.get("uuid"), str):
            found[row["uuid"]] = (number, row)
    return found


def _text(row: Json) -> str:
    message = row.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        parts = [str(b.get("text") or b.get("name") or b.get("type")) for b in content
                 if isinstance(b, dict)]
        content = " ".join(parts)
    if not isinstance(content, str):
        content = row.get("content")
        content = content if isinstance(content, str) else str(row.get("subtype") or "")
    text = " ".join(content.split())
    return text if len(text) <= 40 else text[:39] + "…"


def describe(uuid: str | None, rows: dict[str, tuple[int, Json]]) -> str:
    """``line 12 · assistant · "short text"`` for a uuid of the file."""
    if uuid is None:
        return "(nothing)"
    if uuid not in rows:
        return f"{uuid[:8]}… (not a row of the file)"
    line, row = rows[uuid]
    return f"line {line} · {row.get('type')} · \"{_text(row)}\""


def table(found: Sequence[Span], data: bytes, say_entry: str) -> str:
    """The spans as a Markdown table a person reads."""
    rows = rows_by_uuid(data)
    lines = [f"How each verified release resumes this transcript ({say_entry}):", "",
             "| releases | resumes from | messages | first difference from the row above |",
             "|---|---|---|---|"]
    previous: Span | None = None
    for span in found:
        resumed = span.resumed
        tip = f"fails: {resumed.error}" if resumed.error else describe(resumed.tip, rows)
        if previous is None:
            change = "—"
        elif span.differs_at is None:
            change = "the same; the releases between are not answered"
        else:
            at = span.differs_at
            old = previous.resumed.uuids[at] if at < len(previous.resumed.uuids) else None
            new = resumed.uuids[at] if at < len(resumed.uuids) else None
            sent_at = first_sent_difference(previous.resumed, resumed)
            if old != new:
                change = f"message {at + 1}: {describe(old, rows)} → {describe(new, rows)}"
            elif sent_at is not None and previous.resumed.uuids == resumed.uuids:
                change = f"the same rows; API message {sent_at + 1} is sent differently"
            else:
                change = "the tip or the failure"
        cells = [span.releases, tip, str(len(resumed.uuids)), change]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        previous = span
    return "\n".join(lines) + "\n"


def as_json(found: Sequence[Span]) -> list[Json]:
    """The spans for machines."""
    return [{"first": s.first, "last": s.last, "tip": s.resumed.tip, "error": s.resumed.error,
             "messages": len(s.resumed.uuids), "chain": list(s.resumed.uuids),
             "differs_at": s.differs_at} for s in found]

