"""What every report says about a run, as data: failures grouped by behaviour, each with one
example explained in full, and each feature's pass counts per reader.

Pure functions of the report lines (``report.py``), so the terminal, Markdown, HTML,
JUnit and SARIF views of a live run, of a saved report and of merged shards agree.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Json = dict[str, Any]
NOT_PASSING = ("fail", "crash", "timeout")
#: a case's status for a reader over all its comparisons: the worst one (skips count last)
_RANK = {"crash": 0, "timeout": 1, "fail": 2, "pass": 3, "skip": 4}


@dataclass(frozen=True)
class Kind:
    """One behaviour the failures share: how many, on which comparisons, one example."""

    behaviour: str
    title: str
    example: Mapping[str, Any]  # a case line or a finding with an ``explanation``
    cases: list[Mapping[str, Any]] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.cases)

    def pairs(self) -> Counter[tuple[str, str]]:
        return Counter((c["implementation"], c["against"]) for c in self.cases)


def behaviour_of(line: Mapping[str, Any]) -> tuple[str, str]:
    """(token, title) of a not-passing case line; lines without an explanation use status."""
    explanation = line.get("explanation") or {}
    if explanation.get("behaviour"):
        return str(explanation["behaviour"]), str(explanation.get("title")
                                                  or explanation["behaviour"])
    status = str(line.get("status", "fail"))
    return status, str(line.get("message") or status)


def not_passing(lines: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [line for line in lines if line.get("kind") == "case"
            and line.get("status") in NOT_PASSING]


def findings(lines: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [line for line in lines if line.get("kind") == "finding"]


def _size(line: Mapping[str, Any]) -> int:
    explanation = line.get("explanation") or {}
    return int(explanation.get("input_lines") or 10**9)


def kinds(lines: Sequence[Mapping[str, Any]]) -> list[Kind]:
    """Failures grouped by behaviour, most frequent first.

    The example is a shrunk finding of that behaviour when there is one (the minimal
    input), else the failing case with the fewest input lines.
    """
    grouped: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    titles: dict[str, str] = {}
    for line in not_passing(lines):
        token, title = behaviour_of(line)
        grouped[token].append(line)
        titles.setdefault(token, title)
    shrunk: dict[str, Mapping[str, Any]] = {}
    every = [(finding, c) for finding in findings(lines) for c in comparisons(finding)]
    # a real reader's answer explains better than the generator's intent: those first
    every.sort(key=lambda pair: pair[1].get("against") == "intended")
    for finding, comparison in every:
        explanation = comparison.get("explanation") or {}
        token = explanation.get("behaviour")
        if token and token not in shrunk:
            shrunk[token] = {**finding, **comparison, "id": finding["case_id"]}
    out = []
    for token, cases in grouped.items():
        example = shrunk.get(token) or min(
            cases, key=lambda c: (c.get("against") == "intended", _size(c)))
        out.append(Kind(token, titles[token], example, cases))
    return sorted(out, key=lambda k: (-k.count, k.behaviour))


def comparisons(finding: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A finding's comparisons (one per target that failed on the shrunk input)."""
    listed = finding.get("comparisons")
    if isinstance(listed, list) and listed:
        return listed
    return [{key: finding.get(key) for key in ("against", "signature", "difference",
                                               "explanation")}]


def case_status(lines: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], tuple[str, list[str]]]:
    """(implementation, case id) -> (worst status over its comparisons, the case's tags)."""
    found: dict[tuple[str, str], tuple[str, list[str]]] = {}
    for line in lines:
        if line.get("kind") != "case":
            continue
        key = (str(line["implementation"]), str(line["id"]))
        status = str(line["status"])
        tags = list(line.get("tags") or [])
        if key in found:
            old, old_tags = found[key]
            status = status if _RANK.get(status, 9) < _RANK.get(old, 9) else old
            tags = old_tags or tags
        found[key] = (status, tags)
    return found


Coverage = list[tuple[str, dict[str, tuple[int, int]]]]


def coverage(lines: Sequence[Mapping[str, Any]]) -> tuple[list[str], Coverage]:
    """(readers, rows): per feature tag, per reader under test, (cases passed, cases run).

    A case counts as passed for a reader when none of its comparisons failed, crashed or
    timed out; a case skipped on every comparison is not counted.
    """
    table: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    readers: dict[str, None] = {}
    for (reader, _case), (status, tags) in case_status(lines).items():
        readers.setdefault(reader, None)
        if status == "skip":
            continue
        for tag in tags or ["(untagged)"]:
            cell = table[tag][reader]
            cell[0] += status == "pass"
            cell[1] += 1
    rows = [(tag, {r: (c[0], c[1]) for r, c in by.items()}) for tag, by in table.items()]
    rows.sort(key=lambda row: (-sum(t - p for p, t in row[1].values()), row[0]))
    return list(readers), rows


def fields_level(head: Mapping[str, Any]) -> str | None:
    """Which fields the run compared, as the header states it (None when it does not)."""
    value = head.get("fields")
    if isinstance(value, str):
        return value
    if "fields" in head and value is None:  # no --fields: what each reader declares
        return "messages (the default: the fields each reader declares)"
    if isinstance(value, Mapping):
        return str(value.get("level") or value.get("name") or "") or None
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return None
