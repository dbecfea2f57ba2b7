"""A static HTML report: failures grouped by behaviour, each explained as text.

One self-contained file that opens from disk (no server, no network): every fact is
page text (nothing only in a tooltip), so a screenshot, a print-out or a CI artefact
shows it. Each kind of failure shows one example's explanation in full; every failing
case is a ``<details>`` whose summary says why and whose body holds its explanation.
A few lines of inline script filter by reader and status and open every ``<details>``
before printing. A pure function of the report lines, like the text views.
"""

from __future__ import annotations

import html
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from importlib.resources import files
from string import Template
from typing import Any

from rechain.conformance import report, summary
from rechain.conformance.compare import STATUSES
from rechain.conformance.explain import lines_that_matter
from rechain.wording import counted, counted_lines

Json = dict[str, Any]
#: failing cases of one kind whose whole explanation is in the page (the rest: summaries)
EXPLAINED_PER_KIND = 200
#: ids listed per group and status among the cases that passed or were skipped
IDS_LISTED = 400
esc = html.escape


def explanation_html(explanation: Mapping[str, Any], got: str, expected: str) -> str:
    """The sentence, the input lines that matter and both answers side by side."""
    also = "".join(f"<li>{esc(str(text))}</li>" for text in explanation.get("also", ()))
    shown = explanation.get("input", [])
    total = explanation.get("input_lines", len(shown))
    matter = lines_that_matter(shown)
    which = "all" if matter == total else f"the {matter} that matter"
    lines = "\n".join(esc(str(item["text"])) for item in shown)
    rows = []
    for row in explanation.get("rows", []):
        first = bool(row.get("first"))
        marker = "first difference ▶ " if first else ""
        rows.append(f'<tr class="m{_mark_class(row["mark"])}{" first" if first else ""}">'
                    f'<td class="mark">{esc(marker + str(row["mark"]))}</td>'
                    f'<td>{esc(str(row.get("expected", "")))}</td>'
                    f'<td>{esc(str(row.get("got", "")))}</td></tr>')
    sides = ""
    if rows:
        sides = (f'<table class="sides"><tr><th></th><th>expected: {esc(expected)}</th>'
                 f'<th>got: {esc(got)}</th></tr>{"".join(rows)}</table>')
    return (f'<p class="why"><b>{esc(str(explanation.get("title", "")))}</b>: '
            f'{esc(str(explanation.get("sentence", "")))}</p>'
            + (f'<ul class="also">{also}</ul>' if also else "")
            + f'<div class="input">input ({counted(total, "line")}, {which}):'
            + f'<pre>{lines}</pre></div>'
            + sides)


def _mark_class(mark: str) -> str:
    return {"=": "same", "≠": "diff", "+": "got", "-": "expected"}.get(mark, "fold")


def _case_attributes(line: Mapping[str, Any]) -> str:
    return (f'data-impl="{esc(str(line["implementation"]))}" '
            f'data-status="{esc(str(line["status"]))}"')


def _failing_case(line: Mapping[str, Any], explain_it: bool) -> str:
    explanation = line.get("explanation") or {}
    cause = f" · cause {esc(str(line['cause']))}" if line.get("cause") else ""
    head = (f'<span class="status {esc(str(line["status"]))}">{esc(str(line["status"]))}'
            f'</span> <code>{esc(str(line["id"]))}</code> {esc(str(line["implementation"]))} '
            f'vs {esc(str(line["against"]))}{cause}: '
            f'{esc(str(explanation.get("sentence") or line.get("message") or ""))}')
    replay = (f'<p class="replay">replay: <code>{esc(str(line["replay"]))}</code></p>'
              if line.get("replay") else "")
    if not explain_it or not explanation:
        if replay:
            return (f'<li class="case" {_case_attributes(line)}><details><summary>{head}'
                    f'</summary>{replay}</details></li>')
        return f'<li class="case" {_case_attributes(line)}>{head}</li>'
    body = explanation_html(explanation, str(line["implementation"]), str(line["against"]))
    return (f'<li class="case" {_case_attributes(line)}><details><summary>{head}</summary>'
            f'{body}{replay}</details></li>')


def _kind_section(kind: summary.Kind) -> str:
    example = kind.example
    pairs = ", ".join(f"{esc(impl)} vs {esc(against)}: {n}"
                      for (impl, against), n in kind.pairs().most_common())
    readers = " ".join(sorted({esc(str(c["implementation"])) for c in kind.cases}))
    explanation = example.get("explanation") or {}
    replay = (f'<p>replay: <code>{esc(str(example["replay"]))}</code></p>'
              if example.get("replay") else "")
    shown = (f'<div class="example"><p class="label">example: <code>'
             f'{esc(str(example.get("id")))}</code> {esc(str(example["implementation"]))} vs '
             f'{esc(str(example["against"]))}</p>'
             f'{explanation_html(explanation, str(example["implementation"]), str(example["against"]))}'  # noqa: E501
             f'{replay}</div>') if explanation else ""
    cases = sorted(kind.cases, key=lambda c: (str(c["id"]), str(c["implementation"]),
                                               str(c["against"])))
    listed = "".join(_failing_case(c, n < EXPLAINED_PER_KIND) for n, c in enumerate(cases))
    return (f'<section class="kind" data-readers="{readers}">'
            f'<h3>{esc(kind.title)} <span class="count">{kind.count}</span></h3>'
            f'<p class="pairs">{pairs}</p>{shown}'
            f'<p class="label">every failing comparison of this kind ({kind.count}); open one '
            f'for its explanation:</p><ul class="cases">{listed}</ul></section>')


def _totals(cases: Sequence[Mapping[str, Any]]) -> str:
    table: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for line in cases:
        table[(str(line["implementation"]), str(line["against"]))][str(line["status"])] += 1
    rows = "".join(
        f'<tr {_case_attributes({"implementation": impl, "status": "all"})}>'
        f"<td><code>{esc(impl)}</code></td><td><code>{esc(against)}</code></td>"
        + "".join(f'<td class="n">{counts[s]}</td>' for s in STATUSES) + "</tr>"
        for (impl, against), counts in sorted(table.items()))
    head = "".join(f"<th>{s}</th>" for s in STATUSES)
    return f"<table><tr><th>reader</th><th>against</th>{head}</tr>{rows}</table>"


def _coverage(lines: Sequence[Mapping[str, Any]]) -> str:
    readers, rows = summary.coverage(lines)
    if not rows:
        return ""
    head = "".join(f"<th>{esc(r)}</th>" for r in readers)
    body = "".join(
        f"<tr><td>{esc(tag)}</td>" + "".join(
            f'<td class="n{" bad" if r in cells and cells[r][0] < cells[r][1] else ""}">'
            + (f"{cells[r][0]}/{cells[r][1]}" if r in cells else "-") + "</td>"
            for r in readers) + "</tr>"
        for tag, cells in rows)
    return (f"<h2>Features</h2><p>Cases passed / run per reader, by the case's tags.</p>"
            f"<table><tr><th>feature</th>{head}</tr>{body}</table>")


def _findings(lines: Sequence[Mapping[str, Any]]) -> str:
    found = summary.findings(lines)
    if not found:
        return ""
    items = []
    for finding in found:
        against = ", ".join(f"{esc(str(c.get('implementation', finding['implementation'])))} vs "
                            f"{esc(str(c.get('against')))}"
                            for c in summary.comparisons(finding))
        where = esc(str(finding.get("path") or "(not written)"))
        items.append(f"<li><code>{esc(str(finding['case_id']))}</code>: "
                     f"{counted_lines(finding.get('lines'))}, "
                     f"seen {counted(int(finding['seen']), 'time')}; "
                     f"fails for {against}<br>case: <code>{where}</code><br>replay: "
                     f"<code>{esc(str(finding['replay']))}</code></li>")
    return (f"<h2>Shrunk cases</h2><p>One case file per minimal input, holding every "
            f"comparison that failed on it.</p><ul>{''.join(items)}</ul>")


def _others(cases: Sequence[Mapping[str, Any]]) -> str:
    """Cases that passed or were skipped: per reader, target and status, ids as text."""
    grouped: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for line in cases:
        if line["status"] in ("pass", "skip"):
            key = (str(line["implementation"]), str(line["against"]), str(line["status"]))
            grouped[key].append(str(line["id"]))
    items = []
    for (impl, against, status), ids in sorted(grouped.items()):
        listed = ", ".join(esc(i) for i in sorted(ids)[:IDS_LISTED])
        more = f" … and {len(ids) - IDS_LISTED} more" if len(ids) > IDS_LISTED else ""
        items.append(f'<li class="case" {_case_attributes({"implementation": impl, "status": status})}>'  # noqa: E501
                     f'<details><summary><span class="status {status}">{status}</span> '
                     f"{len(ids)} cases: {esc(impl)} vs {esc(against)}</summary>"
                     f'<p class="ids">{listed}{more}</p></details></li>')
    return f"<h2>Passing and skipped</h2><ul>{''.join(items)}</ul>" if items else ""


def _filter(cases: Sequence[Mapping[str, Any]]) -> str:
    readers = sorted({str(line["implementation"]) for line in cases})
    options = "".join(f'<option value="{esc(r)}">{esc(r)}</option>' for r in readers)
    statuses = "".join(f'<option value="{s}">{s}</option>' for s in STATUSES)
    return (f'<form class="filter" id="filter">reader <select id="reader"><option value="">'
            f'every reader</option>{options}</select> status <select id="status"><option '
            f'value="">every status</option>{statuses}</select></form>')


def render(lines: Sequence[Mapping[str, Any]]) -> str:
    """The whole page."""
    head = lines[0] if lines and lines[0].get("kind") == "header" else {}
    cases = [line for line in lines if line.get("kind") == "case"]
    foot = next((line for line in reversed(lines) if line.get("kind") == "footer"), {})
    fields = summary.fields_level(head)
    meta = (f"rechain {esc(str(head.get('rechain', '?')))} · started "
            f"{esc(str(head.get('started', '?')))} · seed {esc(str(head.get('seed')))} · "
            f"profile {esc(str(head.get('profile') or '?'))} · "
            f"{len({c['id'] for c in cases})} cases"
            + (f" · fields compared: {esc(fields)}" if fields else ""))
    kinds = summary.kinds(lines)
    failures = "".join(_kind_section(kind) for kind in kinds) or "<p>None.</p>"
    template = files("rechain.conformance").joinpath("templates", "matrix.html")
    return Template(template.read_text(encoding="utf-8")).substitute(
        meta=meta, verdict=esc(f"{report.verdict(foot)} (exit {foot.get('exit', 1)})"),
        filter=_filter(cases), totals=_totals(cases), failures=failures,
        findings=_findings(lines), coverage=_coverage(lines), others=_others(cases))
