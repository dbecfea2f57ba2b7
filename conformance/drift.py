"""Behaviour changes between two releases of one real reader, each bisected to its release.

A drift run is a differential ``rechain check`` of the newer release against the
older one (corpus + generated transcripts, disagreements on generated input shrunk
to minimal cases), followed by a bisection of every change over the releases the
registry lists between the two: the first release whose answer is no longer the
older one's is where the change came in. Bisection assumes a change, once made,
stays (a later revert shows as the newest release it was seen in).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rechain import portable
from rechain.conformance.impls import Implementation, connect
from rechain.conformance.protocol import FORKED_VIEWS
from rechain.conformance.protocol_process import Limits
from rechain.conformance.runner import Against, Item, corpus_items, judge_pair, run_one
from rechain.corpus.cases_io import load_case, load_cases
from rechain.reference.profiles.family import in_seed_line

Json = dict[str, Any]
FAILING = frozenset({"fail", "crash", "timeout"})


@dataclass(frozen=True, slots=True)
class Change:
    """One input on which the two releases answer differently, and where that began."""

    case_id: str
    entry: str
    before: str
    after: str
    first_release: str | None
    source: str  # the corpus case id, or the shrunk case's directory
    probed: tuple[str, ...] = ()

    def to_json(self) -> Json:
        return {"kind": "change", "case": self.case_id, "entry": self.entry,
                "before": self.before, "after": self.after,
                "first_release": self.first_release, "source": self.source,
                "probed": list(self.probed)}


def profile_for(oracle: str, older: str | None = None, newer: str | None = None) -> str:
    """The expectation profile whose views the oracle answers in: two JS bundles of the
    2.1.88 line are compared in the older one's (what a forked resume wrote and sent,
    per entry point), since the request and the tip alone miss what the resume keeps."""
    if oracle == "claude-code" and older and newer and all(
            in_seed_line(f"claude-code@{v}") for v in (older, newer)):
        return f"claude-code@{older}"
    return "cli" if oracle == "claude-code" else "sdk"


def view_for(profile: str) -> str:
    """The check view a drift run's items are in, for ``profile_for``'s profile."""
    if profile == "cli":
        return "api"
    return FORKED_VIEWS[0] if profile.startswith("claude-code@") else "session-messages"


def check_argv(oracle: str, older: str, newer: str, *, examples: int, seed: int, jobs: int,
               report: Path, cases: Path) -> list[str]:
    """The ``rechain check`` run that compares the newer release with the older one."""
    return [sys.executable, "-m", "rechain", "check",
            "--impl", f"{oracle}@{newer}", "--against", f"{oracle}@{older}",
            "--profile", profile_for(oracle, older, newer), "--examples", str(examples),
            "--seed", str(seed), "--jobs", str(jobs), "--report", str(report),
            "--save-cases", str(cases), "--no-skips"]


def run_check(argv: Sequence[str], say: Callable[[str], None]) -> int:
    """Run the differential check, its progress passed through to stderr (first the
    command, as the person watching would run it)."""
    say("$ " + portable.rechain(argv[3:]))
    return subprocess.run(list(argv), check=False, stdout=subprocess.DEVNULL).returncode


def _shown(value: Any) -> str:
    if isinstance(value, dict) and value.get("$missing"):
        return "(nothing)"
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:79] + "…"


def _parted(old: Any, new: Any) -> tuple[Any, Any]:
    """Two long texts from a little before the first character where they part."""
    if not (isinstance(old, str) and isinstance(new, str)):
        return old, new
    same = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
                min(len(old), len(new)))
    start = max(0, same - 20)
    return ((old[start:], new[start:]) if start == 0 else ("…" + old[start:], "…" + new[start:]))


def sides(line: Mapping[str, Any]) -> tuple[str, str]:
    """(older answer, newer answer) at the first difference of one failing case line; long
    texts are shown from just before the first character that differs."""
    difference = line.get("difference")
    if isinstance(difference, Mapping):
        where = str(difference.get("path", ""))
        old, new = _parted(difference.get("right"), difference.get("left"))
        return f"{where}: {_shown(old)}", f"{where}: {_shown(new)}"
    return (str((line.get("expected") or {}).get("status", "?")),
            f"{line.get('status')}: {line.get('message', '')}"[:120])


def changed_inputs(lines: Iterable[Mapping[str, Any]]) -> list[tuple[Mapping[str, Any], str]]:
    """The failing corpus cases and the shrunk generated ones, each with where its input is.

    A generated case is represented by its shrunk finding (one per kind of change);
    the failing generated originals are its evidence, not changes of their own.
    """
    lines = list(lines)
    found: list[tuple[Mapping[str, Any], str]] = []
    for line in lines:
        if line.get("kind") == "case" and line.get("status") in FAILING and line.get(
                "group") not in ("generated", "corrupted"):
            found.append((line, str(line["id"])))
    for line in lines:
        if line.get("kind") == "finding" and line.get("path"):
            found.append((line, str(line["path"])))
    unshrunk = [line for line in lines if line.get("kind") == "case"
                and line.get("status") in FAILING and line.get("group") in ("generated",
                                                                             "corrupted")]
    if unshrunk and not any(line.get("kind") == "finding" for line in lines):
        found += [(line, str(line["id"])) for line in unshrunk]
    return found


def item_for(source: str, profile: str, view: str, case_id: str) -> Item | None:
    """The corpus item (or shrunk case) a change was seen on, to replay it on other releases."""
    path = Path(source)
    if path.is_dir():
        items = corpus_items([load_case(path)], profile, view)
        return items[0] if items else None
    base = case_id.split("[", 1)[0]
    cases = [case for case in load_cases() if case.id == base]
    return next((item for item in corpus_items(cases, profile, view)
                 if item.case.id == case_id), None)


def first_changed(versions: Sequence[str], changed: Callable[[str], bool]) -> tuple[str | None,
                                                                                  list[str]]:
    """The first release in ``versions`` (oldest first, the last one known changed) that is
    changed, by bisection; and the releases probed on the way."""
    low, high = 0, len(versions) - 1
    probed: list[str] = []
    if not versions:
        return None, probed
    while low < high:
        middle = (low + high) // 2
        probed.append(versions[middle])
        if changed(versions[middle]):
            high = middle
        else:
            low = middle + 1
    return versions[low], probed


class Releases:
    """Connections to releases of one oracle, installed on first use and kept open."""

    def __init__(self, oracle: str, limits: Limits, install: Callable[[str], None]) -> None:
        self.oracle, self.limits, self.install = oracle, limits, install
        self.open: dict[str, Implementation] = {}

    def get(self, version: str) -> Implementation:
        if version not in self.open:
            self.install(f"{self.oracle}@{version}")
            self.open[version] = connect(f"{self.oracle}@{version}", self.limits)
        return self.open[version]

    def close(self) -> None:
        for implementation in self.open.values():
            implementation.close()


def bisect_change(item: Item, older: str, candidates: Sequence[str],
                  releases: Releases) -> tuple[str | None, list[str]]:
    """The first release among ``candidates`` whose answer differs from ``older``'s."""
    base = releases.get(older)
    before = run_one(base, item.case)

    def changed(version: str) -> bool:
        implementation = releases.get(version)
        got = run_one(implementation, item.case)
        return judge_pair(implementation.info, Against(base), got, before).status != "pass"

    return first_changed(candidates, changed)


def table(changes: Sequence[Change], oracle: str, older: str, newer: str,
          summary: str) -> str:
    """The Markdown table of changes, in the layout of ``docs/changes.md``."""
    lines = [f"# {oracle} {older} → {newer}", "", summary, ""]
    if changes:
        lines += ["| case | entry point | before | after | first release |",
                  "|---|---|---|---|---|"]
        for change in changes:
            cells = [change.case_id, change.entry, change.before, change.after,
                     change.first_release or "?"]
            lines.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", "\\n")
                                          for c in cells) + " |")
    return "\n".join(lines) + "\n"
