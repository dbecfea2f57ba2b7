"""A report as text: the terminal summary and Markdown for CI step summaries.

Both are pure functions of the report lines (``report.py``), so a saved
report renders exactly like a live run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rechain.conformance.compare import STATUSES

Json = dict[str, Any]
SHOWN_FAILURES = 10


def _parts(lines: Sequence[Mapping[str, Any]]) -> tuple[Mapping[str, Any], list[Mapping[str, Any]],
                                                        list[Mapping[str, Any]], Mapping[str, Any]]:
    head = lines[0] if lines and lines[0].get("kind") == "header" else {}
    cases = [line for line in lines if line.get("kind") == "case"]
    findings = [line for line in lines if line.get("kind") == "finding"]
    foot = next((line for line in reversed(lines) if line.get("kind") == "footer"), {})
    return head, cases, findings, foot


def _value(value: Any, limit: int = 60) -> str:
    if isinstance(value, dict) and value.get("$missing"):
        return "(nothing)"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_case(line: Mapping[str, Any]) -> str:
    """One failing case in one line: what, where, and both values."""
    difference = line.get("difference")
    where = ""
    if difference:
        where = (f" at {difference['path']}: {_value(difference['left'])} vs "
                 f"{_value(difference['right'])}")
    message = line.get("message") or line["status"]
    return (f"{line['status'].upper():7} {line['id']}  {line['implementation']} vs "
            f"{line['against']}: {message}{where}")


def _rows(foot: Mapping[str, Any], cases: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    from rechain.conformance.report import counts

    table = foot.get("counts") or counts(cases)
    rows = []
    for impl in sorted(table):
        for against in sorted(table[impl]):
            got = table[impl][against]
            rows.append([impl, against, *(str(got.get(s, 0)) for s in STATUSES)])
    return rows


def _rates(foot: Mapping[str, Any]) -> str:
    rates = foot.get("rates") or {}
    parts = [f"{name} {_per_second(rate['per_second'])} cases/s"
             for name, rate in sorted(rates.items()) if rate.get("per_second")]
    return ", ".join(parts)


def _per_second(value: float) -> str:
    return f"{value:,.0f}" if value >= 10 else f"{value:.2g}"


def terminal(lines: Sequence[Mapping[str, Any]]) -> str:
    """The summary ``rechain check`` prints when it ends."""
    head, cases, findings, foot = _parts(lines)
    out = [_title(head, cases, foot)]
    rows = [["IMPLEMENTATION", "AGAINST", *(s.upper() for s in STATUSES)], *_rows(foot, cases)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
        cells += [cell.rjust(width) for cell, width in zip(row[2:], widths[2:], strict=True)]
        out.append("  ".join(cells))
    if rates := _rates(foot):
        out.append(f"throughput: {rates}")
    bad = [line for line in cases if line["status"] in ("fail", "crash", "timeout")]
    if bad:
        out.append(f"not passing ({len(bad)}; first {min(len(bad), SHOWN_FAILURES)}):")
        out.extend("  " + describe_case(line) for line in bad[:SHOWN_FAILURES])
    if findings:
        out.append(f"shrunk disagreements ({len(findings)}):")
        for finding in findings:
            where = finding.get("path") or "(not written)"
            out.append(f"  {finding['case_id']}  seen {finding['seen']}x, "
                       f"{finding.get('lines', '?')} lines: {' '.join(finding['signature'])}")
            out.append(f"    {where}")
            out.append(f"    replay: {finding['replay']}")
    verdict = "interrupted" if foot.get("interrupted") else (
        "all agree or are skipped" if foot.get("exit", 1) == 0 else "disagreements found")
    out.append(f"result: {verdict} (exit {foot.get('exit', 1)})")
    return "\n".join(out) + "\n"


def _title(head: Mapping[str, Any], cases: Sequence[Mapping[str, Any]],
           foot: Mapping[str, Any]) -> str:
    ids = {line["id"] for line in cases}
    generated = {line["id"] for line in cases if line.get("group") in ("generated", "corrupted")}
    seed = head.get("seed")
    seeded = f" (seed {seed})" if seed is not None else ""
    return (f"rechain {head.get('rechain', '?')}: {len(ids) - len(generated)} corpus cases, "
            f"{len(generated)} generated{seeded}, {foot.get('seconds', 0):.1f} s")


def markdown(lines: Sequence[Mapping[str, Any]]) -> str:
    """GitHub-flavoured Markdown for ``$GITHUB_STEP_SUMMARY``."""
    head, cases, findings, foot = _parts(lines)
    ok = foot.get("exit", 1) == 0
    out = [f"### rechain check: {'✅ all agree' if ok else '❌ disagreements'}", "",
           _title(head, cases, foot), "",
           "| implementation | against | " + " | ".join(STATUSES) + " |",
           "|---|---|" + "---:|" * len(STATUSES)]
    out += ["| " + " | ".join(f"`{c}`" if i < 2 else c for i, c in enumerate(row)) + " |"
            for row in _rows(foot, cases)]
    if rates := _rates(foot):
        out += ["", f"Throughput: {rates}."]
    bad = [line for line in cases if line["status"] in ("fail", "crash", "timeout")]
    if bad:
        out += ["", "<details><summary>Cases not passing</summary>", ""]
        out += [f"- `{describe_case(line)}`" for line in bad[:50]]
        out += ["", "</details>"]
    if findings:
        out += ["", "#### Shrunk disagreements", ""]
        for finding in findings:
            out.append(f"- `{finding['case_id']}` (seen {finding['seen']} times): "
                       f"{', '.join(finding['signature'])}  \n  replay: `{finding['replay']}`")
    return "\n".join(out) + "\n"
