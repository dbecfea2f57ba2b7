"""Join the reports of ``rechain check --shard I/N`` runs into the unsplit run's report.

Each shard numbers its case lines by their position in the full run, so the
merged case lines, in ``seq`` order, are the unsplit run's; the footer is
recounted from them with ``report.footer`` (the same exit code). Timing fields
(``started``, ``seconds``, rates) are combined: the earliest start, the slowest
shard, the summed calls and seconds. Findings are shrunk per shard, so two
shards may find the same kind of disagreement: one finding per kind is kept
(the smallest case), with the sightings summed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rechain.conformance import report
from rechain.conformance.replay_line import ReplayLine
from rechain.conformance.report_resume import option_value
from rechain.errors import UsageError

Json = dict[str, Any]
#: header fields every shard of one run shares
SAME = ("report_version", "rechain", "protocol", "seed", "examples", "profile", "strictness",
        "implementations", "targets")


def merge(reports: Sequence[Sequence[Json]], names: Sequence[str]) -> list[Json]:
    """One report from the shards' lines (``names`` for the error messages)."""
    if not reports:
        raise UsageError("report merge: name at least one report")
    heads = [_header(lines, name) for lines, name in zip(reports, names, strict=True)]
    _same_run(heads, names)
    _complete(heads, names)
    cases = _cases(reports, names)
    findings = _findings(_found_here(line, lines[0], name)
                         for lines, name in zip(reports, names, strict=True)
                         for line in lines if line.get("kind") == "finding")
    cases = [_replayed_here(line, heads) for line in cases]
    findings = [_replayed_here(line, heads) for line in findings]
    feet = [lines[-1] for lines in reports if lines and lines[-1].get("kind") == "footer"]
    interrupted = len(feet) < len(reports) or any(f.get("interrupted") for f in feet)
    seconds = max((float(f.get("seconds", 0.0)) for f in feet), default=0.0)
    head = {key: value for key, value in heads[0].items() if key != "shard"}
    head["started"] = min(h["started"] for h in heads)
    head["argv"] = _without_shard(head.get("argv", []))
    foot = report.footer(cases, _rates(feet), seconds, interrupted=interrupted)
    return [head, *cases, *findings, foot]


def _header(lines: Sequence[Json], name: str) -> Json:
    if not lines or lines[0].get("kind") != "header":
        raise UsageError(f"{name}: not a rechain report (no header line)")
    return lines[0]


#: options of ``check`` that decide which cases a run covers and how each is judged: every
#: shard of one run has the same (values of path options compared as each shard's
#: directory reads them: relative to it, so shards run in other directories or on other
#: machines agree; a path outside it as the absolute path it is)
JUDGING = {"--case": False, "--corpus": True, "--skips": True, "--contract": True,
           "--fields": False, "--invariant-every": False}
JUDGING_SWITCHES = ("--no-corpus", "--no-skips", "--validate")
#: how to make each header field the same in every shard
REMEDY = {"seed": "give every shard the same --seed",
          "examples": "give every shard the same --examples",
          "implementations": "check the same readers, at the same versions, in every shard",
          "rechain": "run every shard with the same rechain",
          "report_version": "run every shard with the same rechain",
          "protocol": "run every shard with the same rechain",
          "profile": "give every shard the same --profile",
          "strictness": "give every shard the same --fields",
          "targets": "give every shard the same --against"}


def _readers(mine: Any, theirs: Any) -> tuple[str, str]:
    """Two shards' readers as a person compares them: by ``name@version``, and by the
    declared fields that differ when those are the same."""
    def labels(value: Any) -> str:
        return ", ".join(str(entry.get("label")) for entry in value or []) or "no reader"

    if labels(mine) != labels(theirs):
        if len(mine or []) != len(theirs or []):
            return labels(mine), labels(theirs)
        pairs = [(a, b) for a, b in zip(mine, theirs, strict=True)
                 if a.get("label") != b.get("label")]
        return labels([a for a, _ in pairs]), labels([b for _, b in pairs])
    for one, other in zip(mine, theirs, strict=True):
        a, b = dict(one.get("info") or {}), dict(other.get("info") or {})
        fields = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        if fields:
            said = "; ".join(f"{k} {a.get(k)!r}" for k in fields)
            was = "; ".join(f"{k} {b.get(k)!r}" for k in fields)
            return f"{one.get('label')} declaring {said}", was
    return labels(mine), labels(theirs)


def _shown(key: str, value: Any) -> str:
    """A header field's value as a person compares it."""
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "none"
    return "none" if value is None else str(value)


def _same_run(heads: Sequence[Json], names: Sequence[str]) -> None:
    for head, name in zip(heads[1:], names[1:], strict=True):
        for key in SAME:
            if head.get(key) != heads[0].get(key):
                mine, theirs = (_readers(head.get(key), heads[0].get(key))
                                if key == "implementations" else
                                (_shown(key, head.get(key)), _shown(key, heads[0].get(key))))
                raise UsageError(
                    f"{name}: {key} differs from {names[0]}'s: {mine}, not {theirs}: not "
                    "shards of one run "
                    f"({REMEDY.get(key, 'give every shard the same options')}, and merge "
                    "only the shards of one run)")
        judged, first = _judging(head), _judging(heads[0])
        for flag in sorted(set(judged) | set(first)):
            if judged.get(flag) != first.get(flag):
                mine, theirs = judged.get(flag), first.get(flag)
                said = (f"{flag} {' '.join(mine)}" if mine is not None else f"no {flag}")
                other = (f"{flag} {' '.join(theirs)}" if theirs is not None
                         else f"no {flag}")
                paths = " (paths as read from each shard's directory)" if JUDGING.get(
                    flag) else ""
                raise UsageError(
                    f"{name}: {flag} differs from {names[0]}'s: {said}, not {other}{paths}: "
                    "not shards of one run (run every shard with the same options, and "
                    "merge only the shards of one run)")


def _judging(head: Json) -> dict[str, list[str]]:
    """The judging options of a shard's command line, flag -> values in order."""
    argv = [str(word) for word in head.get("argv", [])]
    cwd = str(head.get("cwd") or "")
    found: dict[str, list[str]] = {}
    for i, word in enumerate(argv):
        flag, _, value = word.partition("=")
        if word in JUDGING_SWITCHES:
            found.setdefault(word, []).append("on")
            continue
        if flag not in JUDGING:
            continue
        if not value and i + 1 < len(argv) and "=" not in word:
            value = argv[i + 1]
        if JUDGING[flag]:
            value = _portable_path(value, cwd)
        found.setdefault(flag, []).append(value)
    return found


def _portable_path(value: str, cwd: str) -> str:
    """A path option's value as its shard's directory reads it: relative to that
    directory when inside it (whatever the directory is called on that machine), else
    absolute."""
    import os
    from pathlib import PurePath

    absolute = PurePath(os.path.normpath(PurePath(cwd or ".", value)))
    if cwd:
        try:
            return absolute.relative_to(os.path.normpath(cwd)).as_posix()
        except ValueError:
            pass
    return absolute.as_posix()


def _complete(heads: Sequence[Json], names: Sequence[str]) -> None:
    """Every shard 1..N exactly once (or a single unsplit report)."""
    shards = [head.get("shard") for head in heads]
    if shards == [None]:
        return
    if None in shards:
        name = names[shards.index(None)]
        raise UsageError(f"{name}: not a shard (run with --shard I/N); merge shards of one run")
    count = shards[0]["count"]  # type: ignore[index]
    seen: dict[int, str] = {}
    for found, name in zip(shards, names, strict=True):
        assert found is not None
        if found["count"] != count:
            raise UsageError(f"{name}: shard {found['index']}/{found['count']} is not of {count}")
        if found["index"] in seen:
            raise UsageError(f"{name}: shard {found['index']}/{count} again "
                             f"(also {seen[found['index']]})")
        seen[found["index"]] = name
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in seen]
    if missing:
        raise UsageError(f"report merge: shard {', '.join(missing)} missing")


def _cases(reports: Sequence[Sequence[Json]], names: Sequence[str]) -> list[Json]:
    cases: list[Json] = []
    where: dict[tuple[int, str, str], str] = {}
    for lines, name in zip(reports, names, strict=True):
        for line in lines:
            if line.get("kind") != "case":
                continue
            key = (line["seq"], line["implementation"], line["against"])
            if key in where:
                raise UsageError(f"{name}: case {line['id']} is also in {where[key]}: the shards "
                                 "overlap")
            where[key] = name
            cases.append(line)
    return sorted(cases, key=lambda line: line["seq"])  # stable: the runner's target order


def _findings(lines: Any) -> list[Json]:
    kept: dict[tuple[str, str, tuple[str, ...]], Json] = {}
    for line in lines:
        key = (line["implementation"], line["against"], tuple(line["signature"]))
        other = kept.get(key)
        if other is None:
            kept[key] = dict(line)
            continue
        seen = int(other["seen"]) + int(line["seen"])
        smaller = min(other, line, key=lambda f: (f.get("lines") or 0, f["case_id"]))
        kept[key] = {**smaller, "seen": seen}
    return sorted(kept.values(), key=lambda f: (-int(f["seen"]), f["case_id"]))


def _found_here(finding: Json, head: Json, name: str) -> Json:
    """A shard's finding with its case folder where this machine has it: a shard saves its
    cases beside its report (the action's ``cases/``), and the merge job downloads both
    elsewhere, so a path and replay that name the shard machine's folder are rewritten to
    the same place beside the report file given here, when the case is there."""
    written, path = option_value(head.get("argv", []), "--report"), finding.get("path")
    if not written or not path or Path(path).exists():
        return finding
    before = Path(str(head.get("cwd") or "/"), written).parent
    try:
        inside = Path(path).relative_to(before)
    except ValueError:
        return finding
    here = Path(name).resolve().parent / inside
    if not here.is_dir():
        return finding
    old, new = str(Path(path).parent), str(here.parent)
    replay = str(finding.get("replay", ""))
    line = ReplayLine.parse(replay)
    if line is not None and line.option("--corpus") == old:
        replay = str(line.with_option("--corpus", new))
    return {**finding, "path": str(here), "replay": replay}


def _replayed_here(line: Json, heads: Sequence[Json]) -> Json:
    """A case's or finding's replay with the paths under a shard's directory (its reader,
    corpus, skip list, venv), when that directory is not on this machine, named under this
    one instead where the same file is here: a merge downloads the shards' reports into a
    checkout of the same project, and a replay naming another runner's workspace ran
    nowhere."""
    replay = line.get("replay")
    if not replay:
        return line
    words = ReplayLine.parse(str(replay))
    if words is None:
        return line
    here = str(Path.cwd())
    moved = words
    for shard in {str(head.get("cwd") or "") for head in heads}:
        if shard and shard != here and not Path(shard).exists():
            moved = _moved(moved, shard.rstrip("/") + "/", here.rstrip("/") + "/")
    return line if moved is words else {**line, "replay": str(moved)}


def _moved(words: ReplayLine, before: str, after: str) -> ReplayLine:
    """Each word's paths under ``before`` named under ``after``, each only if the file is
    there (a path ends at a ``:``, as in ``python:PATH:FUNCTION``, or at the word's end)."""

    def moved(word: str) -> str:
        at = word.find(before)
        if at == -1:
            return word
        end = word.find(":", at + len(before))
        path = after + word[at + len(before): end if end != -1 else len(word)]
        if not Path(path).exists():
            return word
        return word[:at] + path + (word[end:] if end != -1 else "")

    changed = ReplayLine(tuple(map(moved, words.assignments)), words.program,
                         tuple(map(moved, words.arguments)))
    return words if changed == words else changed


def _rates(feet: Sequence[Mapping[str, Any]]) -> dict[str, report.Rate]:
    summed: dict[str, tuple[int, float]] = {}
    for foot in feet:
        for name, rate in foot.get("rates", {}).items():
            calls, seconds = summed.get(name, (0, 0.0))
            summed[name] = (calls + int(rate["calls"]), seconds + float(rate["seconds"]))
    return {name: report.Rate(calls, seconds) for name, (calls, seconds) in summed.items()}


#: the options naming a file a run writes (a merged report names the merge's own)
OUTPUT_FLAGS = ("--report", "--markdown", "--html", "--junit", "--sarif", "--badge",
                "--write-skips")


def with_outputs(head: Json, outputs: Mapping[str, str]) -> Json:
    """The merged header naming the files the merge writes (``outputs``: flag -> path) in
    place of the first shard's: its summary's "Full report" points at the merged report
    and HTML, not at one shard's."""
    out: list[str] = []
    skip = False
    for word in head.get("argv", []):
        if skip:
            skip = False
        elif word in OUTPUT_FLAGS:
            skip = True
        elif not word.startswith(tuple(f"{flag}=" for flag in OUTPUT_FLAGS)):
            out.append(word)
    for flag, path in outputs.items():
        out += [flag, path]
    return {**head, "argv": out}


def _without_shard(argv: Sequence[str]) -> list[str]:
    """The command line with ``--shard I/N`` (or ``--shard=I/N``) taken out."""
    out: list[str] = []
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word == "--shard":
            skip = True
        elif not word.startswith("--shard="):
            out.append(word)
    return out
