"""A report as text: the terminal summary and Markdown for CI step summaries.

Both are pure functions of the report lines (``report.py``), so a saved
report renders exactly like a live run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rechain.conformance import summary
from rechain.conformance.compare import STATUSES
from rechain.conformance.explain import as_text
from rechain.conformance.report import verdict
from rechain.wording import counted, counted_lines

Json = dict[str, Any]
SHOWN_FAILURES = 10
WIDTH = 60  # the expected column of an explanation, in characters


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
    """One failing case in one line: what, where, both values, and why when it is known."""
    difference = line.get("difference")
    where = ""
    if difference:
        where = (f" at {difference['path']}: {_value(difference['left'])} vs "
                 f"{_value(difference['right'])}")
    message = str(line.get("message") or line["status"])
    explanation = line.get("explanation") or {}
    why = ""
    if explanation:  # the sentence, unless it is the message again (a skip that now passes)
        title, sentence = str(explanation["title"]), str(explanation["sentence"])
        said = sentence if sentence.startswith(title) else f"{title}: {sentence}"
        why = "" if sentence == message else f" — {said}"
    return (f"{line['status'].upper():7} {line['id']}  {line['implementation']} vs "
            f"{line['against']}: {message}{where}{why}")


def explained(line: Mapping[str, Any], *, width: int = 0) -> list[str]:
    """A case line (or a finding's comparison) with its whole explanation, as text lines."""
    explanation = line.get("explanation")
    cause = f" (cause: {line['cause']})" if line.get("cause") else ""
    head = (f"{line.get('id') or line.get('case_id')}  {line['implementation']} vs "
            f"{line['against']}{cause}")
    if not explanation:
        return [head, describe_case(line) if line.get("status") else head]
    body = as_text(explanation, got=str(line["implementation"]), expected=str(line["against"]),
                   width=width)
    return [head, *body]


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
    out += _aligned(rows, left=2)
    if rates := _rates(foot):
        out.append(f"throughput: {rates}")
    kinds = summary.kinds(lines)
    if kinds:
        total = sum(kind.count for kind in kinds)
        out += ["", f"not passing: {counted(total, 'comparison')}, "
                    f"{counted(len(kinds), 'kind')} of behaviour"]
        out += [f"  {kind.count:5}  {kind.title}" for kind in kinds]
    for kind in kinds:
        out += ["", f"── {kind.title} ({kind.count}) " + "─" * max(4, 60 - len(kind.title))]
        out += ["  " + text for text in explained(kind.example, width=WIDTH)]
        if kind.example.get("replay"):
            out.append(f"  replay: {kind.example['replay']}")
        others = sorted({c["id"] for c in kind.cases} - {kind.example.get("id")})
        if others:
            more = f" … and {len(others) - SHOWN_FAILURES} more" if len(
                others) > SHOWN_FAILURES else ""
            out.append(f"  also: {', '.join(others[:SHOWN_FAILURES])}{more}")
            if kind.example.get("replay") and any(c.get("replay") for c in kind.cases
                                                  if c.get("id") in others):
                out.append("  each alone: the replay above with its id after --case")
    if findings:
        out += ["", f"shrunk cases ({len(findings)}, one per minimal input):"]
        for finding in findings:
            against = ", ".join(c.get("against", "?") for c in summary.comparisons(finding))
            out.append(f"  {finding['case_id']}  seen {finding['seen']}x, "
                       f"{counted_lines(finding.get('lines'))}, fails against {against}")
            out.append(f"    {finding.get('path') or '(not written)'}")
            out.append(f"    replay: {finding['replay']}")
    out += _coverage_text(lines)
    out.append(f"result: {verdict(foot)} (exit {foot.get('exit', 1)})")
    return "\n".join(out) + "\n"


def _aligned(rows: Sequence[Sequence[str]], left: int) -> list[str]:
    """Rows as columns: the first ``left`` columns left-aligned, the rest right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [cell.ljust(width) if i < left else cell.rjust(width)
                 for i, (cell, width) in enumerate(zip(row, widths, strict=True))]
        out.append("  ".join(cells).rstrip())
    return out


def coverage_rows(lines: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    """The feature table: a header, then one row per tag with ``passed/run`` per reader."""
    readers, rows = summary.coverage(lines)
    if not rows:
        return []
    table = [["FEATURE", *readers]]
    for tag, cells in rows:
        table.append([tag, *(f"{cells[r][0]}/{cells[r][1]}" if r in cells else "-"
                             for r in readers)])
    return table


def _coverage_text(lines: Sequence[Mapping[str, Any]]) -> list[str]:
    table = coverage_rows(lines)
    if not table:
        return []
    return ["", "features (case tags), cases passed/run per reader:",
            *("  " + row for row in _aligned(table, left=1))]


def _title(head: Mapping[str, Any], cases: Sequence[Mapping[str, Any]],
           foot: Mapping[str, Any]) -> str:
    ids = {line["id"] for line in cases}
    generated = {line["id"] for line in cases if line.get("group") in ("generated", "corrupted")}
    seed = head.get("seed")
    seeded = f" (seed {seed})" if seed is not None else ""
    fields = summary.fields_level(head)
    compared = f", fields compared: {fields}" if fields else ""
    return (f"rechain {head.get('rechain', '?')}: "
            f"{counted(len(ids) - len(generated), 'corpus case')}, "
            f"{len(generated)} generated{seeded}, {foot.get('seconds', 0):.1f} s{compared}")


#: GitHub's step summary takes at most 1 MiB; the Markdown stays well under it
MARKDOWN_BUDGET = 900 * 1024


def markdown(lines: Sequence[Mapping[str, Any]], *, budget: int = MARKDOWN_BUDGET) -> str:
    """GitHub-flavoured Markdown for ``$GITHUB_STEP_SUMMARY``, under ``budget`` bytes at any
    run size: every kind of failure with one full explanation, then counts, then where the
    full report is."""
    head, cases, findings, foot = _parts(lines)
    ok = foot.get("exit", 1) == 0
    out = [f"### rechain check: {'✅' if ok else '❌'} {verdict(foot)}", "",
           _title(head, cases, foot), ""]
    tail = ["| implementation | against | " + " | ".join(STATUSES) + " |",
            "|---|---|" + "---:|" * len(STATUSES)]
    tail += ["| " + " | ".join(f"`{c}`" if i < 2 else c for i, c in enumerate(row)) + " |"
             for row in _rows(foot, cases)]
    if rates := _rates(foot):
        tail += ["", f"Throughput: {rates}."]
    if findings:
        tail += ["", f"Shrunk cases: {len(findings)} (one per minimal input), e.g. "
                 f"replay `{findings[0]['replay']}`."]
    table = coverage_rows(lines)
    if table:
        tail += ["", "Features (case tags), cases passed/run per reader:", "",
                 "| " + " | ".join(table[0]) + " |", "|---|" + "---:|" * (len(table[0]) - 1)]
        tail += ["| " + " | ".join(row) + " |" for row in table[1:]]
    where = _full_reports(head)
    tail += ["", f"Full report: {where}." if where else
             "Full report: run with `--report FILE --html FILE` to keep every case."]
    room = budget - len("\n".join([*out, *tail]).encode("utf-8")) - 100  # the note below
    kinds = summary.kinds(lines)
    left_out = 0
    for kind in kinds:
        section = _kind_markdown(kind)
        size = len(section.encode("utf-8"))
        if size > room:
            left_out += 1
            continue
        room -= size
        out.append(section)
    if left_out:
        out += [f"*{left_out} more kinds of failure are in the full report.*", ""]
    return "\n".join([*out, *tail]) + "\n"


def _kind_markdown(kind: summary.Kind) -> str:
    """One kind of failure: its title and count, the example explained, other cases' ids."""
    pairs = ", ".join(f"`{impl}` vs `{against}` {n}" for (impl, against), n in
                      kind.pairs().most_common(6))
    text = explained(kind.example, width=WIDTH)
    fence = "`" * max(3, 1 + max(_backticks(line) for line in text))
    body = [f"#### {kind.title}: {kind.count}", "", pairs, "", f"{fence}text", *text, fence]
    if kind.example.get("replay"):
        body += ["", f"replay: `{kind.example['replay']}`"]
    others = sorted({c["id"] for c in kind.cases} - {kind.example.get("id")})
    if others:
        shown = ", ".join(f"`{i}`" for i in others[:SHOWN_FAILURES])
        more = f" and {len(others) - SHOWN_FAILURES} more" if len(others) > SHOWN_FAILURES else ""
        body += ["", f"<details><summary>{len(others)} other cases</summary>", "",
                 f"{shown}{more}.", "", "</details>"]
    return "\n".join(body) + "\n"


def _backticks(text: str) -> int:
    """The longest run of backticks in a line (a code fence must be longer)."""
    run = best = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        best = max(best, run)
    return best


def _full_reports(head: Mapping[str, Any]) -> str:
    """The report files the run wrote, read off its command line."""
    argv = [str(a) for a in head.get("argv") or []]
    found = []
    for flag in ("--report", "--html", "--junit", "--sarif"):
        for i, arg in enumerate(argv):
            if arg == flag and i + 1 < len(argv):
                found.append(f"`{argv[i + 1]}`")
            elif arg.startswith(flag + "="):
                found.append(f"`{arg.split('=', 1)[1]}`")
    return ", ".join(found)


