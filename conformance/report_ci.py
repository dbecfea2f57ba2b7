"""Reports CI systems read: JUnit XML, SARIF 2.1.0, a shields.io endpoint badge and GitHub
workflow-command annotations.

Pure functions of the run report's lines (plus, for SARIF, ``rechain fuzz`` findings),
like the terminal, Markdown and HTML views; each failure carries the same explanation
text. Locations are case files: a shrunk case's transcript, or a corpus case's under
the run's corpus directory, named as ``report_locations`` says (never by an absolute
path).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from rechain.conformance import report_locations as locations
from rechain.conformance import summary
from rechain.conformance.explain import as_text

Json = dict[str, Any]
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION = "https://pypi.org/project/rechain/"
#: at most this many ``::error`` lines (GitHub shows only the first few of a step anyway)
ANNOTATIONS = 50
#: XML 1.0 forbids these code points even escaped
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def failure_text(line: Mapping[str, Any]) -> str:
    """A failing case line as plain text: the explanation, else the verdict's message; then
    the command that re-runs that case alone, when the line has one (a corpus case)."""
    explanation = line.get("explanation")
    replay = f"\nreplay: {line['replay']}" if line.get("replay") else ""
    if explanation:
        return "\n".join(as_text(explanation, got=str(line.get("implementation", "yours")),
                                 expected=str(line.get("against", "expected")))) + replay
    difference = line.get("difference") or {}
    where = f" at {difference.get('path')}" if difference else ""
    return f"{line.get('message') or line.get('status')}{where}{replay}"


def _xml(text: str) -> str:
    return escape(_XML_BAD.sub("\ufffd", text))


def _attr(text: str) -> str:
    return quoteattr(_XML_BAD.sub("\ufffd", text))


def junit(lines: Sequence[Mapping[str, Any]]) -> str:
    """JUnit XML: a test suite per (reader, target), a test case per case and comparison."""
    head = lines[0] if lines and lines[0].get("kind") == "header" else {}
    suites: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for line in lines:
        if line.get("kind") == "case":
            suites.setdefault((str(line["implementation"]), str(line["against"])), []).append(
                line)
    _gate(lines, suites)
    out = ['<?xml version="1.0" encoding="UTF-8"?>']
    total = {s: sum(1 for cases in suites.values() for c in cases if c["status"] == s)
             for s in ("fail", "crash", "timeout", "skip")}
    count = sum(len(cases) for cases in suites.values())
    out.append(f'<testsuites name="rechain check" tests="{count}" '
               f'failures="{total["fail"]}" errors="{total["crash"] + total["timeout"]}" '
               f'skipped="{total["skip"]}">')
    for (impl, against), cases in suites.items():
        bad = {s: sum(c["status"] == s for c in cases) for s in ("fail", "crash", "timeout",
                                                                  "skip")}
        seconds = sum(float(c.get("seconds") or 0) for c in cases)
        out.append(f'  <testsuite name={_attr(f"{impl} vs {against}")} tests="{len(cases)}" '
                   f'failures="{bad["fail"]}" errors="{bad["crash"] + bad["timeout"]}" '
                   f'skipped="{bad["skip"]}" time="{seconds:.3f}" '
                   f'timestamp={_attr(str(head.get("started", "")))}>')
        for case in cases:
            name = _attr(str(case["id"]))
            group = _attr(f"rechain.{case.get('group', 'corpus')}")
            opening = (f'    <testcase name={name} classname={group} '
                       f'time="{float(case.get("seconds") or 0):.3f}"')
            status = case["status"]
            if status == "pass":
                out.append(opening + "/>")
                continue
            out.append(opening + ">")
            title = (case.get("explanation") or {}).get("sentence") or case.get("message") or ""
            if status == "skip":
                out.append(f"      <skipped message={_attr(str(case.get('message') or ''))}/>")
            else:
                tag = "failure" if status == "fail" else "error"
                out.append(f"      <{tag} message={_attr(str(title))} type={_attr(status)}>"
                           f"{_xml(failure_text(case))}</{tag}>")
            out.append("    </testcase>")
        out.append("  </testsuite>")
    out.append("</testsuites>")
    return "\n".join(out) + "\n"


def _gate(lines: Sequence[Mapping[str, Any]],
          suites: dict[tuple[str, str], list[Mapping[str, Any]]]) -> None:
    """A failing test case where the run failed for what it did not compare (no case, or a
    reader that compared nothing or nearly nothing): a JUnit viewer counting failures would
    otherwise show such a run all green, or all skipped."""
    from rechain.conformance import report

    table = report.counts(lines)
    for impl, (compared, cases) in sorted(report.untested(table).items()):
        key = next(k for k in suites if k[0] == impl)
        suites[key].append({"id": "enough cases compared", "group": "run", "status": "fail",
                            "message": f"{impl} compared {compared} of its {cases} cases, the "
                            "rest skipped: nearly nothing was tested"})
    if not suites and lines:
        suites[("rechain", "nothing")] = [{
            "id": "enough cases compared", "group": "run", "status": "fail",
            "message": "nothing was compared: there was no case"}]


# --- SARIF ----------------------------------------------------------------------------------


def _first_line(explanation: Mapping[str, Any] | None) -> int | None:
    """The input line of the first difference (the row marked first, either side)."""
    for row in (explanation or {}).get("rows", []):
        if row.get("first"):
            for side in ("got", "expected"):
                number = str(row.get(side, "")).split(" · ", 1)[0]
                if number.isdigit():
                    return int(number)
    return None


def _rule(rule_id: str, title: str, text: str) -> Json:
    name = "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", rule_id) if part)
    return {"id": rule_id, "name": name or "Failure", "shortDescription": {"text": title},
            "fullDescription": {"text": text}, "defaultConfiguration": {"level": "error"},
            "helpUri": INFORMATION}


def _location(artifact: Json, line: int | None) -> list[Json]:
    """A SARIF location: the path as a URI reference (percent-encoded), and its line."""
    from urllib.parse import quote

    physical: Json = {"artifactLocation": {**artifact, "uri": quote(artifact["uri"], safe="/")}}
    if line is not None:
        physical["region"] = {"startLine": line}
    return [{"physicalLocation": physical}]


def sarif(lines: Sequence[Mapping[str, Any]], crashes: Sequence[Mapping[str, Any]] = (),
          base: Path | None = None) -> Json:
    """SARIF 2.1.0: one rule per behaviour (or fuzz crash kind), one result per failing
    comparison (a shrunk case stands for the generated cases it was shrunk from). Every
    result has a location GitHub code scanning takes: a case file inside the checkout
    ``base`` relative to it (``%SRCROOT%``), any other relative to a base the run
    describes (``report_locations``)."""
    from rechain import __version__

    head = lines[0] if lines and lines[0].get("kind") == "header" else {}
    corpus = locations.corpus_root(head)
    version = str(head.get("rechain") or __version__)
    rules: dict[str, Json] = {}
    results: list[Json] = []

    def add(rule_id: str, title: str, text: str, message: str, artifact: Json,
            line: int | None, fingerprint: str) -> None:
        if rule_id not in rules:
            rules[rule_id] = _rule(rule_id, title, text)
        results.append({"ruleId": rule_id, "ruleIndex": list(rules).index(rule_id),
                        "level": "error", "message": {"text": message},
                        "locations": _location(artifact, line),
                        "partialFingerprints": {"rechainCase/v1": fingerprint}})

    for line in summary.not_passing(lines):
        if line.get("group") in ("generated", "corrupted") and summary.findings(lines):
            continue  # the shrunk cases below stand for them
        token, title = summary.behaviour_of(line)
        explanation = line.get("explanation") or {}
        add(token, title, f"rechain check: {title}", _message(line),
            locations.artifact(line, base, corpus), _first_line(explanation),
            f"{line['id']}|{line['implementation']}|{line['against']}")
    for finding in summary.findings(lines):
        for comparison in summary.comparisons(finding):
            merged = {**finding, **comparison, "id": finding["case_id"], "status": "fail"}
            token, title = summary.behaviour_of(merged)
            add(token, title, f"rechain check: {title}", _message(merged),
                locations.artifact(finding, base, corpus),
                _first_line(comparison.get("explanation")),
                f"{finding['case_id']}|{merged['implementation']}|{merged['against']}")
    for crash in crashes:
        kind = str(crash.get("exception") or crash.get("signature", "crash")).split("@", 1)[0]
        signature = str(crash.get("signature", kind))
        add(f"crash/{kind}", f"fuzz crash: {kind}", "rechain fuzz: the reader under test "
            f"broke its contract with {kind}",
            f"{crash.get('target', '?')}: {kind}: {crash.get('message', '')} "
            f"(at {crash.get('where', '?')}; {crash.get('count', 1)} inputs)",
            locations.crash_artifact(crash.get("input_path"), signature, base), None,
            signature)
    used = {result["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"]
            for result in results}
    run: Json = {
        "tool": {"driver": {"name": "rechain", "version": version,
                            "informationUri": INFORMATION, "rules": list(rules.values())}},
        "results": results,
    }
    if used:
        run["originalUriBaseIds"] = locations.bases(used, head, version)
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _message(line: Mapping[str, Any]) -> str:
    explanation = line.get("explanation") or {}
    why = explanation.get("sentence") or line.get("message") or line.get("status", "")
    return f"{line['id']}: {line['implementation']} vs {line['against']}: {why}"


# --- badge and annotations -------------------------------------------------------------------


def badge(lines: Sequence[Mapping[str, Any]]) -> Json:
    """A shields.io endpoint: the share of cases that passed (skips left out), over every
    reader under test; a run that tested nothing, or a reader that tested nearly nothing
    (``report.untested``), says so in grey."""
    statuses = [status for status, _tags in summary.case_status(lines).values()
                if status != "skip"]
    readers = sorted({reader for reader, _case in summary.case_status(lines)})
    label = f"rechain: {readers[0]}" if len(readers) == 1 else "rechain"
    if not statuses:
        return {"schemaVersion": 1, "label": label, "message": "nothing tested",
                "color": "lightgrey"}
    from rechain.conformance import report

    if report.untested(report.counts(lines)):  # the run failed for it: never a green badge
        return {"schemaVersion": 1, "label": label, "message": "nearly nothing tested",
                "color": "lightgrey"}
    share = 100 * sum(s == "pass" for s in statuses) / len(statuses)
    percent = int(share) if share < 100 else 100  # never round a failure up to 100%
    colors = ((100, "brightgreen"), (90, "green"), (75, "yellowgreen"), (50, "yellow"),
              (25, "orange"), (0, "red"))
    color = next(name for floor, name in colors if percent >= floor)
    return {"schemaVersion": 1, "label": label, "message": f"{percent}% passing",
            "color": color}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotations(lines: Sequence[Mapping[str, Any]], limit: int = ANNOTATIONS,
                base: Path | None = None) -> list[str]:
    """GitHub workflow commands (``::error file=…,line=…,title=…::text``): one per kind of
    failure (its example) and one per shrunk case, at most ``limit``; ``file=`` only for a
    case file inside the checkout ``base``, relative to it (GitHub links nothing else)."""
    head = lines[0] if lines and lines[0].get("kind") == "header" else {}
    corpus = locations.corpus_root(head)
    out = []
    examples = [kind.example for kind in summary.kinds(lines)]
    examples += [{**f, "id": f["case_id"]} for f in summary.findings(lines)
                 if f["case_id"] not in {e.get("id") for e in examples}]
    for example in examples[:limit]:
        title = summary.behaviour_of(example)[1]
        artifact = locations.artifact(example, base, corpus)
        where = artifact["uri"] if artifact["uriBaseId"] == locations.SRCROOT else None
        properties = [f"title={_escape_property(f'rechain: {title}')}"]
        if where is not None:
            properties.insert(0, f"file={_escape_property(where)}")
            number = _first_line(example.get("explanation"))
            if number is not None:
                properties.insert(1, f"line={number}")
        text = _message(example)
        if example.get("replay"):
            text += f"\nreplay: {example['replay']}"
        out.append(f"::error {','.join(properties)}::{_escape_data(text)}")
    gate = _not_enough(lines)
    if gate:
        out.append(f"::error title={_escape_property('rechain: not enough compared')}::"
                   f"{_escape_data(gate)}")
    return out


def _not_enough(lines: Sequence[Mapping[str, Any]]) -> str | None:
    """Why the run failed for what it did not compare, if it did (no failure says it)."""
    from rechain.conformance import report

    foot = next((line for line in reversed(lines) if line.get("kind") == "footer"), None)
    if foot is None or foot.get("interrupted"):
        return None
    table = foot.get("counts") or {}
    if not (report.compared_nothing(table) or report.untested(table)):
        return None
    return report.verdict(foot).removeprefix("disagreements found; ")


def write(args: Any, lines: Sequence[Mapping[str, Any]]) -> None:
    """The files ``--junit``, ``--sarif`` and ``--badge`` name, and the annotations when
    running in GitHub Actions (``GITHUB_ACTIONS=true``), printed to stdout."""
    import json
    import os
    import sys

    from rechain.errors import UsageError

    root = locations.checkout(Path.cwd())  # what GitHub resolves relative paths against
    texts = {"junit": lambda: junit(lines),
             "sarif": lambda: json.dumps(sarif(lines, base=root), indent=1) + "\n",
             "badge": lambda: json.dumps(badge(lines)) + "\n"}
    for name, text in texts.items():
        path = getattr(args, name, None)
        if path is None:
            continue
        try:
            path.write_text(text(), encoding="utf-8")
        except OSError as error:
            raise UsageError(f"--{name} {path}: cannot write: {error.strerror}") from None
    if os.environ.get("GITHUB_ACTIONS") == "true":
        for command in annotations(lines, base=root):
            sys.stdout.write(command + "\n")
