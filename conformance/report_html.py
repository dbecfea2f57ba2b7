"""A static HTML matrix of a report: columns are (implementation, target), rows are cases.

Cases of one group that got the same status in every column collapse into one
row (JSONTestSuite's pruned view), so a run of thousands of cases stays a page
long. One self-contained file: it opens from disk, no server, no scripts.
"""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Mapping, Sequence
from importlib.resources import files
from string import Template
from typing import Any

from rechain.conformance.compare import STATUSES

Json = dict[str, Any]
CASES_LISTED = 60


def _columns(cases: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    seen: dict[tuple[str, str], None] = {}
    for line in cases:
        seen.setdefault((line["implementation"], line["against"]), None)
    return list(seen)


def _hint(line: Mapping[str, Any] | None) -> str:
    if line is None:
        return ""
    difference = line.get("difference")
    text = line.get("message") or ""
    if difference:
        text += f" at {difference['path']}: {difference['left']!r} vs {difference['right']!r}"
    return text[:400]


Row = tuple[str, tuple[str, ...], list[str], list[str]]


def rows(lines: Sequence[Mapping[str, Any]]) -> list[Row]:
    """(group, status vector, case ids, hint per column) for each distinct vector of a group."""
    cases = [line for line in lines if line.get("kind") == "case"]
    columns = _columns(cases)
    index = {column: n for n, column in enumerate(columns)}
    by_case: dict[str, list[Mapping[str, Any] | None]] = {}
    group_of: dict[str, str] = {}
    for line in cases:
        slots = by_case.setdefault(line["id"], [None] * len(columns))
        slots[index[(line["implementation"], line["against"])]] = line
        group_of[line["id"]] = line["group"]
    grouped: dict[tuple[str, tuple[str, ...]], list[str]] = defaultdict(list)
    first: dict[tuple[str, tuple[str, ...]], list[Mapping[str, Any] | None]] = {}
    for case_id, slots in by_case.items():
        vector = tuple(slot["status"] if slot else "none" for slot in slots)
        key = (group_of[case_id], vector)
        grouped[key].append(case_id)
        first.setdefault(key, slots)
    order = sorted(grouped, key=lambda k: (k[0], -sum(s != "pass" for s in k[1]), k[1]))
    return [(group, vector, grouped[(group, vector)], [_hint(s) for s in first[(group, vector)]])
            for group, vector in order]


def render(lines: Sequence[Mapping[str, Any]]) -> str:
    """The whole page."""
    head = lines[0] if lines and lines[0].get("kind") == "header" else {}
    cases = [line for line in lines if line.get("kind") == "case"]
    columns = _columns(cases)
    esc = html.escape
    meta = (f"rechain {esc(str(head.get('rechain', '?')))} · started "
            f"{esc(str(head.get('started', '?')))} · seed {esc(str(head.get('seed')))} · "
            f"{len({c['id'] for c in cases})} cases")
    totals = ["<table><tr><th>implementation</th><th>against</th>"
              + "".join(f"<th>{s}</th>" for s in STATUSES) + "</tr>"]
    for impl, against in columns:
        mine = [c["status"] for c in cases
                if c["implementation"] == impl and c["against"] == against]
        totals.append(f"<tr><td><code>{esc(impl)}</code></td><td><code>{esc(against)}</code></td>"
                      + "".join(f'<td class="n">{mine.count(s)}</td>' for s in STATUSES) + "</tr>")
    totals.append("</table>")
    header = "".join(f"<th><code>{esc(impl)}</code><br>vs <code>{esc(against)}</code></th>"
                     for impl, against in columns)
    matrix = [f"<table><tr><th>group</th><th>cases</th>{header}<th>ids</th></tr>"]
    for group, vector, ids, hints in rows(lines):
        cells = "".join(f'<td class="cell {status}" title="{esc(hint)}">{status}</td>'
                        for status, hint in zip(vector, hints, strict=True))
        listed = ", ".join(f"<code>{esc(i)}</code>" for i in ids[:CASES_LISTED])
        more = f" … and {len(ids) - CASES_LISTED} more" if len(ids) > CASES_LISTED else ""
        noun = "id" if len(ids) == 1 else "ids"
        ids_cell = f"<details><summary>{len(ids)} {noun}</summary>{listed}{more}</details>"
        matrix.append(f"<tr><td>{esc(group)}</td><td class=\"n\">{len(ids)}</td>{cells}"
                      f"<td>{ids_cell}</td></tr>")
    matrix.append("</table>")
    found = [line for line in lines if line.get("kind") == "finding"]
    findings = ""
    if found:
        items = "".join(
            f"<li><code>{esc(f['case_id'])}</code> (seen {f['seen']} times): "
            f"{esc(' '.join(f['signature']))}<br>replay: <code>{esc(f['replay'])}</code></li>"
            for f in found)
        findings = f"<h2>Shrunk disagreements</h2><ul>{items}</ul>"
    template = files("rechain.conformance").joinpath("templates", "matrix.html")
    return Template(template.read_text(encoding="utf-8")).substitute(
        meta=meta, totals="\n".join(totals), matrix="\n".join(matrix), findings=findings)
