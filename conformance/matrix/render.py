"""The matrix as Markdown, a self-contained HTML page and a shields badge per reader.

Pure: report lines in (one ``rechain check`` report per reader), text out.
"""

from __future__ import annotations

import html
import shlex
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rechain.conformance.replay_line import ReplayLine
from rechain.wording import counted

Json = dict[str, Any]
#: ``NAME=VALUE`` before a command: the environment it needs, kept
FAILING = ("fail", "crash", "timeout")


@dataclass(frozen=True, slots=True)
class Row:
    """One reader's line of the matrix."""

    slug: str
    contract: str
    passed: int
    total: int
    causes: Mapping[str, int]
    findings: tuple[Json, ...]
    skipped: int
    cases: tuple[Mapping[str, Any], ...] = ()  # its case lines, the failing ones explained

    @property
    def percent(self) -> int:
        return int(100 * self.passed / self.total) if self.total else 0


def row_of(slug: str, contract: str, lines: Sequence[Mapping[str, Any]], name: str = "",
           cases_dir: Any = None) -> Row:
    """A reader's matrix row from its report lines (replays as ``adapter:NAME`` when named)."""
    cases = [line for line in lines if line.get("kind") == "case"]
    causes = Counter(str(line.get("cause") or line["status"]) for line in cases
                     if line["status"] in FAILING)
    findings = tuple({**line, "replay": portable(str(line["replay"]), name, cases_dir)}
                     if name else line for line in lines if line.get("kind") == "finding")
    return Row(slug, contract, sum(line["status"] == "pass" for line in cases),
               sum(line["status"] != "skip" for line in cases), dict(causes.most_common()),
               findings, sum(line["status"] == "skip" for line in cases), tuple(cases))


def data(row: Row, header: Mapping[str, Any], cases: Sequence[Mapping[str, Any]]) -> list[Json]:
    """A reader's results as the matrix keeps them in the repository (``matrix-data``):
    a header (reader, contract, seed, examples), one line per case, one per finding, so
    ``row_of`` gives the same row again from a fresh checkout."""
    out: list[Json] = [{"kind": "header", "slug": row.slug, "contract": row.contract,
                        "seed": header.get("seed"), "examples": header.get("examples")}]
    out += [{"kind": "case", "id": c.get("id"), "status": c["status"], "cause": c.get("cause"),
             "causes": list(c.get("causes") or ()),
             **({"why": why(c)} if why(c) and c["status"] in FAILING else {})}
            for c in cases if c.get("kind") == "case"]
    keep = ("kind", "cause", "seen", "case_id", "lines", "difference", "replay")
    out += [{**{k: f.get(k) for k in keep}, **({"why": why(f)} if why(f) else {})}
            for f in row.findings]
    return out


def why(line: Mapping[str, Any]) -> str:
    """A case's or finding's explanation in one sentence (``title: sentence``), as the
    terminal's ``why:`` line says it; empty when the line holds none."""
    if isinstance(line.get("why"), str):
        return str(line["why"])
    explanation = line.get("explanation")
    if not isinstance(explanation, Mapping):
        return ""
    title, sentence = str(explanation.get("title", "")), str(explanation.get("sentence", ""))
    return sentence if not title or sentence.startswith(title) else f"{title}: {sentence}"


def unshrunk(row: Row) -> list[tuple[str, int, Mapping[str, Any]]]:
    """The causes of failure no minimal case shows (a listed bug's kind with this cause
    besides, or past ``--max-shrink``): (cause, cases, the first such case line)."""
    shown = {str(f.get("cause")) for f in row.findings}
    out: dict[str, list[Mapping[str, Any]]] = {}
    for line in row.cases:
        cause = str(line.get("cause") or line["status"])
        if line["status"] in FAILING and cause not in shown:
            out.setdefault(cause, []).append(line)
    return [(cause, len(lines), lines[0]) for cause, lines in out.items()]


def row_of_data(lines: Sequence[Mapping[str, Any]]) -> Row:
    """The row a ``matrix-data`` file keeps (its replays already as the docs show them)."""
    header = lines[0]
    return row_of(str(header["slug"]), str(header["contract"]), lines[1:])


def command(headers: Sequence[Mapping[str, Any]]) -> str:
    """The ``rechain matrix`` command that produced the rows (their seed and size), as the
    committed page shows it: ``rechain``, the name a reader of the docs has installed."""
    seeds = sorted({str(h.get("seed")) for h in headers})
    sizes = sorted({str(h.get("examples")) for h in headers})
    return " ".join(["rechain", "matrix", "--seed", "/".join(seeds) or "?", "--examples",
                     "/".join(sizes) or "?"])


def markdown(rows: Sequence[Row], command: str, program: str = "rechain") -> str:
    """``docs/matrix.md`` (``program``: the words that start a printed ``rechain`` command;
    the committed page keeps ``rechain``, the terminal's the words that run this one)."""
    out = ["# Real readers, each judged by the contract it declares", "",
           f"Produced by `{command}` (generated transcripts per reader: the total of its "
           "passing column). A reader's design choices are its contract (what it "
           "declares it shows); a failure is what still differs, by cause. Each kind of "
           "failure was shrunk by Hypothesis to the minimal transcript below; the replay "
           "command re-runs it.", "",
           "| reader | contract | passing | failures by cause | known (skipped) |",
           "|---|---|---|---|---|"]
    for row in rows:
        causes = ", ".join(f"{c} {n}" for c, n in row.causes.items()) or "none"
        out.append(f"| {row.slug} | {row.contract} | {row.passed}/{row.total} "
                   f"({row.percent} %) | {causes} | {row.skipped} |")
    for row in rows:
        left = unshrunk(row)
        if not row.findings and not left:
            continue
        out += ["", f"## {row.slug}", ""]
        for finding in row.findings:
            lines = finding.get("lines")
            out += [f"- **{finding.get('cause', '?')}** "
                    f"({counted(int(finding['seen']), 'generated case')}), minimal case "
                    f"`{finding['case_id']}` "
                    f"({counted(lines, 'line') if isinstance(lines, int) else '? lines'}): "
                    f"{why(finding) or _difference(finding)}",
                    f"  replay: `{finding['replay']}`"]
        for cause, count, first in left:
            out.append(f"- **{cause}** ({counted(count, 'generated case')}, no minimal case: "
                       f"{NOT_SHRUNK}), first `{first.get('id')}`: "
                       f"{why(first) or first.get('status')}")
        if left:
            out.append(f"  every case explained: `{_rerun(row, command, program)}`")
    return "\n".join(out) + "\n"


#: why a failing kind has no minimal case: it is shrunk once per kind, a listed bug's never
NOT_SHRUNK = "its kind is a listed bug's, which is not shrunk again, or past --max-shrink"


def _rerun(row: Row, command: str, program: str = "rechain") -> str:
    """The ``rechain check`` run that gives one reader's cases of the matrix again."""
    words = command.split()
    seed = words[words.index("--seed") + 1] if "--seed" in words else "?"
    examples = words[words.index("--examples") + 1] if "--examples" in words else "?"
    return (f"{program} check --impl adapter:{row.slug.split('@', 1)[0]} --no-corpus "
            f"--seed {seed} --examples {examples}")


def _difference(finding: Mapping[str, Any]) -> str:
    """A finding's first difference, for data kept without its explanation."""
    difference = finding.get("difference") or {}
    return (f"first difference at `{difference.get('path', '/')}`: "
            f"{_short(difference.get('left'))} vs {_short(difference.get('right'))}")


def page(rows: Sequence[Row], command: str) -> str:
    """The matrix as one self-contained HTML page (no script, prints as it shows)."""
    body = []
    for row in rows:
        causes = "".join(f"<li>{html.escape(c)}: {n}</li>" for c, n in row.causes.items())
        found = "".join(
            f"<li><b>{html.escape(str(f.get('cause', '?')))}</b> "
            f"<code>{html.escape(f['case_id'])}</code><br>{html.escape(why(f))}"
            f"{'<br>' if why(f) else ''}<code>{html.escape(f['replay'])}"
            "</code></li>" for f in row.findings)
        left = unshrunk(row)
        found += "".join(
            f"<li><b>{html.escape(cause)}</b> {counted(count, 'generated case')}, no minimal "
            f"case ({html.escape(NOT_SHRUNK)}), first <code>{html.escape(str(first.get('id')))}"
            f"</code><br>{html.escape(why(first))}</li>" for cause, count, first in left)
        if left:
            found += (f"<li>every case explained: <code>{html.escape(_rerun(row, command))}"
                      "</code></li>")
        body.append(f"<tr><td>{html.escape(row.slug)}</td><td>{html.escape(row.contract)}</td>"
                    f"<td>{row.passed}/{row.total} ({row.percent} %)</td>"
                    f"<td><ul>{causes or '<li>none</li>'}</ul></td><td><ul>{found}</ul></td></tr>")
    return ("<!doctype html><html><head><meta charset='utf-8'><title>rechain matrix</title>"
            "<style>body{font:14px sans-serif;max-width:1400px;margin:1em auto}"
            "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px;"
            "vertical-align:top}code{font-size:12px;word-break:break-all}</style></head><body>"
            f"<h1>Real readers by their declared contracts</h1><p><code>{html.escape(command)}"
            "</code></p><table><tr><th>reader</th><th>contract</th><th>passing</th>"
            "<th>failures by cause</th><th>minimal cases</th></tr>" + "".join(body)
            + "</table></body></html>\n")


def badge(row: Row) -> Json:
    """A shields.io endpoint badge: ``NN% passing``."""
    color = "brightgreen" if row.percent >= 95 else "yellow" if row.percent >= 70 else "red"
    return {"schemaVersion": 1, "label": row.slug, "message": f"{row.percent}% passing",
            "color": color}


def here(row: Row, program: str, root: Any) -> Row:
    """``row`` with each replay as the person who ran the matrix runs it now: ``program``
    for ``rechain`` and the cases folder absolute (the committed page keeps both portable:
    the folder named from ``root``, the repository the page is committed to)."""
    from dataclasses import replace
    from pathlib import Path

    def local(replay: str) -> str:
        line = ReplayLine.parse(replay)
        if line is None or line.program != ("rechain",):
            return replay
        line = line.with_program(shlex.split(program))
        folder = line.option("--corpus")
        if folder is not None and (Path(root) / folder).is_dir():
            line = line.with_option("--corpus", str(Path(root) / folder))
        return str(line)

    return replace(row, findings=tuple({**f, "replay": local(str(f["replay"]))}
                                       for f in row.findings))


def portable(replay: str, name: str, cases_dir: Any = None) -> str:
    """A replay command as a reader of the docs runs it: ``rechain`` (whatever words started
    it on this machine: a venv's console script, ``PYTHON -m rechain``), the shipped adapter
    by name (``--impl adapter:NAME``) and the cases folder as the caller names it (from
    the repository), not this machine's paths."""
    line = ReplayLine.parse(replay)
    if line is None:
        return replay
    line = line.with_program(["rechain"]).with_option("--impl", f"adapter:{name}")
    if cases_dir is not None:
        line = line.with_option("--corpus", str(cases_dir))
    return str(line)


def _short(value: Any) -> str:
    if isinstance(value, Mapping) and value.get("$missing"):
        return "nothing"
    text = repr(value)
    return f"`{text[:80]}`" if len(text) <= 80 else f"`{text[:80]}…`"
