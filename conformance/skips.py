"""Known, accepted divergences: a strict skip list (toml-test's ``-skip`` + ``-skip-must-err``).

An entry names an implementation (glob on ``name@version``), optionally what it
is compared with, and either case ids (globs) or a signature token (glob, for
generated transcripts, which have no stable id), with a reason and a link. A
failing case an entry covers is reported as ``skip``; a case an id entry covers
that now *passes* fails the run, so a fixed divergence cannot hide behind a
stale skip. Signature entries are not strict: generated inputs vary per run.

An id entry may also give ``kind``: the signature of its minimal case (the tokens
the shrinker recorded for it, e.g. ``cause:lost-row`` and ``row:user:tool_result``).
A generated transcript that fails with exactly that kind is the same known bug, so
the entry covers it too. Such an entry accepts its ``cause`` only: every other cause
of the case still fails, and so does the same cause on another kind of row (a case
that loses a tool result and a text is not covered by the lost tool result's skip).

A row entry gives ``rows`` instead: globs on the rows a failure is about, written
``<cause>:<row kind>`` (``extra-row:*+duplicate``, ``lost-row:user:tool_result``; see
``contracts.judge.odd_rows``), with ``cases``, its minimal cases. It names one kind of
difference on one kind of row, in any case: a cause of a failure is accepted when every
row of that cause matches a row entry of the reader, and the case is skipped when every
cause is. It is strict on its cases: a listed case that passes, or that still fails but
on no row the entry names, fails the run (the entry no longer matches: remove or update
it).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from importlib.resources import files
from pathlib import Path
from typing import Any

from rechain.conformance.compare import Verdict
from rechain.errors import UsageError

#: the verdict on a listed case that passes (a report's behaviour ``skip-now-passes``)
NOW_PASSES = "skipped case now passes: remove its skip"
#: the verdict on a case a row entry lists that fails on none of its rows
ROWS_GONE = "skipped rows no longer differ: remove or update its skip"
_KEYS = {"implementation", "against", "cases", "signature", "kind", "cause", "reason", "link",
         "rows"}


@dataclass(frozen=True, slots=True)
class Skip:
    """One accepted divergence."""

    implementation: str
    reason: str
    link: str
    against: str = "*"
    cases: tuple[str, ...] = ()
    signature: str | None = None
    cause: str | None = None  # the one cause it accepts; any other cause still fails
    kind: frozenset[str] | None = None  # its minimal case's signature: generated cases too
    row_globs: tuple[str, ...] = ()  # a row entry: the rows it accepts, in any case

    @property
    def strict(self) -> bool:
        """Id entries are strict: the case must still fail."""
        return self.signature is None

    def covers(self, implementation: str, against: str, case_id: str,
               signature: Iterable[str] = ()) -> bool:
        if self.row_globs or not self.about(implementation, against):
            return False  # a row entry covers rows, never a case (``SkipList.apply``)
        if self.signature is not None:
            return any(fnmatchcase(token, self.signature) for token in signature)
        return self.by_id(case_id) or (self.kind is not None and self.kind == set(signature))

    def about(self, implementation: str, against: str) -> bool:
        """The entry is about this reader and what it is compared with."""
        return (fnmatchcase(implementation, self.implementation)
                and fnmatchcase(against, self.against))

    def names(self, row: str) -> bool:
        """A row entry names this row of a failure (``<cause>:<row kind>``)."""
        return any(fnmatchcase(row, glob) for glob in self.row_globs)

    def by_id(self, case_id: str) -> bool:
        return any(fnmatchcase(case_id, pattern) for pattern in self.cases)

    def rows(self) -> frozenset[str]:
        """The kinds of row its cause is about (``row:`` tokens of its kind), if any."""
        return frozenset(t.removeprefix("row:") for t in self.kind or () if t.startswith("row:"))


@dataclass(frozen=True, slots=True)
class SkipList:
    """The entries in file order; the first that covers a case decides."""

    entries: tuple[Skip, ...] = ()

    def find(self, implementation: str, against: str, case_id: str,
             signature: Iterable[str] = ()) -> Skip | None:
        tokens = tuple(signature)
        for entry in self.entries:
            if entry.covers(implementation, against, case_id, tokens):
                return entry
        return None

    def known_kind(self, implementation: str, against: str, kind: Iterable[str]) -> bool:
        """Whether ``kind`` is a listed bug's kind: shrinking it again can only find that
        bug's minimal case (a case of that kind fails for the other rows or causes it has)."""
        tokens = frozenset(kind)
        causes = [t.removeprefix("cause:") for t in tokens if t.startswith("cause:")]
        rows = [f"{c}:{t.removeprefix('row:')}" for c in causes for t in tokens
                if t.startswith("row:")]
        return any((e.kind == tokens or (rows and all(e.names(r) for r in rows)))
                   and e.about(implementation, against) for e in self.entries)

    def apply(self, verdict: Verdict, implementation: str, against: str, case_id: str,
              signature: Iterable[str] = (), rows: Iterable[str] = ()) -> Verdict:
        """The verdict after the skip list: covered failures skip, covered passes fail.

        ``rows`` are the failure's rows by cause (``lost-row:user:tool_result``, see
        ``contracts.judge.odd_rows``): an entry matched by its kind accepts its cause only
        when every row of that cause is of a kind some matching entry names."""
        if verdict.status not in ("fail", "pass"):
            return verdict
        rows = tuple(rows)
        verdict = self._by_rows(verdict, implementation, against, case_id, rows)
        if verdict.status not in ("fail", "pass") or verdict.message.startswith(ROWS_GONE):
            return verdict
        entry = self.find(implementation, against, case_id, signature)
        if entry is None:
            return verdict
        if verdict.status == "fail" and entry.cause is not None:
            tokens = tuple(signature)
            known = [e for e in self.entries if e.cause is not None
                     and e.covers(implementation, against, case_id, tokens)]
            listed = [e for e in self.entries if e.kind is not None
                      and fnmatchcase(implementation, e.implementation)
                      and fnmatchcase(against, e.against)]  # its known kinds of row
            accepted = {c for c in verdict.causes if _accepted(
                c, [e for e in known if e.cause == c], [e for e in listed if e.cause == c],
                case_id, rows)}
            rest = tuple(c for c in verdict.causes if c not in accepted)
            if rest == verdict.causes:
                return verdict
            if rest:  # a skip names one cause and never hides another in the same case
                return _besides(verdict, accepted, rest)
        if verdict.status == "fail":
            return Verdict("skip", f"known divergence: {entry.reason} ({entry.link})",
                           verdict.difference, verdict.causes)
        if entry.strict:
            return Verdict("fail", f"{NOW_PASSES} ({entry.reason})")
        return verdict


    def _by_rows(self, verdict: Verdict, implementation: str, against: str, case_id: str,
                 rows: Iterable[str]) -> Verdict:
        """The verdict after the row entries: each cause whose every row they name is
        accepted (all accepted: a skip); a case they list that passes, or fails on none of
        the rows it names, fails."""
        entries = [e for e in self.entries if e.row_globs and e.about(implementation, against)]
        if not entries:
            return verdict
        odd = sorted(set(rows))
        listed = [e for e in entries if e.by_id(case_id)]
        if verdict.status == "pass":
            return Verdict("fail", f"{NOW_PASSES} ({listed[0].reason})") if listed else verdict
        gone = [e for e in listed if not any(e.names(r) for r in odd)]
        if gone:
            return replace(verdict, status="fail", message=f"{ROWS_GONE} ({gone[0].reason}; "
                           f"its rows {', '.join(gone[0].row_globs)}, the case's "
                           f"{', '.join(odd) or 'none'})")
        accepted = {c for c in verdict.causes
                    if (mine := [r for r in odd if r.startswith(f"{c}:")])
                    and all(any(e.names(r) for e in entries) for r in mine)}
        if not accepted:
            return verdict
        used = next(e for e in entries if any(e.names(r) for r in odd))
        rest = tuple(c for c in verdict.causes if c not in accepted)
        if not rest:
            return Verdict("skip", f"known divergence: {used.reason} ({used.link})",
                           verdict.difference, verdict.causes)
        return _besides(verdict, accepted, rest)


def _besides(verdict: Verdict, accepted: set[str], rest: tuple[str, ...]) -> Verdict:
    """A failure some of whose causes the list accepts: the verdict of the ``rest``, led by
    the first row of the first of them when its judge said which (``Verdict.leads``), not
    by a row of an accepted cause."""
    message, difference = verdict.message, verdict.difference
    if verdict.cause in accepted:
        lead = next((lead for lead in verdict.leads if lead[0] == rest[0]), None)
        if lead is not None:
            message, difference = lead[1], lead[2]
    return replace(verdict, message=f"{message} (besides the known "
                   f"{', '.join(sorted(accepted))})", difference=difference, causes=rest,
                   leads=tuple(lead for lead in verdict.leads if lead[0] in rest[1:]))


def _accepted(cause: str, known: Sequence[Skip], listed: Sequence[Skip], case_id: str,
              rows: Iterable[str]) -> bool:
    """Whether the entries covering a case (``known``, those naming ``cause``) account for
    every row of that cause: each must be of a kind of row some entry for the reader
    (``listed``) names as a known bug of that cause."""
    if not known:
        return False
    if any(e.by_id(case_id) or e.kind is None or not e.rows() for e in known):
        return True  # the listed case itself, or an entry about the cause as a whole
    named = {row for e in listed for row in e.rows()}
    return all(row.removeprefix(f"{cause}:") in named for row in rows
               if row.startswith(f"{cause}:"))


def covering(lines: Iterable[Mapping[str, Any]], generated: Iterable[str] = ()) -> dict[str, Any]:
    """A skip list that covers every failing corpus case of a report (toml-test ``-script``).

    One entry per (implementation, target, first message), ids escaped for globs; the
    reason and link are for a person to fill in before the list is committed.
    """
    skipped_groups = set(generated)
    grouped: dict[tuple[str, str, str], list[str]] = {}
    for line in lines:
        if line.get("kind") != "case" or line.get("status") not in ("fail", "crash", "timeout"):
            continue
        if line.get("group") in skipped_groups:
            continue
        key = (line["implementation"], line["against"], str(line.get("message") or line["status"]))
        grouped.setdefault(key, []).append(_escape(line["id"]))
    entries = [{"implementation": _escape(impl), "against": _escape(against), "cases": ids,
                "reason": f"TODO: {message}", "link": "TODO"}
               for (impl, against, message), ids in sorted(grouped.items())]
    return {"version": 1, "skips": entries}


def _escape(text: str) -> str:
    """A literal for ``fnmatch``: brackets, stars and question marks stand for themselves."""
    return "".join(f"[{c}]" if c in "[]*?" else c for c in text)


def parse(data: Any, source: str = "skips") -> SkipList:
    """Validate and build a skip list; every mistake names the entry (UsageError)."""
    if not isinstance(data, Mapping) or data.get("version") != 1:
        raise UsageError(f"{source}: expected an object with \"version\": 1")
    raw = data.get("skips", [])
    if not isinstance(raw, Sequence):
        raise UsageError(f"{source}: \"skips\" must be a list")
    entries = []
    for index, item in enumerate(raw):
        where = f"{source}: skips[{index}]"
        if not isinstance(item, Mapping) or set(item) - _KEYS:
            raise UsageError(f"{where}: unknown keys {sorted(set(item) - _KEYS)}")
        for key in ("implementation", "reason", "link"):
            if not isinstance(item.get(key), str) or not item[key]:
                raise UsageError(f"{where}: needs a non-empty string {key!r}")
        cases, signature, globs = item.get("cases"), item.get("signature"), item.get("rows")
        if globs is not None and (cases is None or any(
                item.get(k) is not None for k in ("kind", "cause")) or not isinstance(
                globs, list) or not globs or not all(isinstance(g, str) and ":" in g
                                                     for g in globs)):
            raise UsageError(f"{where}: \"rows\" is a non-empty list of globs on "
                             "<cause>:<row kind>, given with \"cases\" (its minimal cases) "
                             "and without \"kind\" or \"cause\"")
        if (cases is None) == (signature is None):
            raise UsageError(f"{where}: give exactly one of \"cases\" or \"signature\"")
        if cases is not None and (not isinstance(cases, list) or not cases
                                  or not all(isinstance(c, str) for c in cases)):
            raise UsageError(f"{where}: \"cases\" must be a non-empty list of globs")
        kind = item.get("kind")
        if kind is not None and (cases is None or item.get("cause") is None or not isinstance(
                kind, list) or not kind or not all(isinstance(t, str) for t in kind)
                or f"cause:{item['cause']}" not in kind):
            raise UsageError(f"{where}: \"kind\" is its case's signature (a non-empty list "
                             "of tokens with cause:<its cause>), given with \"cases\"")
        entries.append(Skip(
            implementation=item["implementation"], reason=item["reason"], link=item["link"],
            against=str(item.get("against", "*")), cases=tuple(cases or ()),
            signature=str(signature) if signature is not None else None,
            cause=str(item["cause"]) if item.get("cause") is not None else None,
            kind=frozenset(kind) if kind is not None else None,
            row_globs=tuple(globs or ()),
        ))
    return SkipList(tuple(entries))


def unmatched(skip_list: SkipList, readers: Iterable[str], targets: Iterable[str],
              case_ids: Iterable[str]) -> list[tuple[int, str]]:
    """(entry index, case glob) for each glob of an entry about this run's readers and
    targets that matches none of its corpus cases: a typo, or a case the corpus no longer
    has. Such an entry can never fail, so a strict list holding it is not honest."""
    readers, targets, ids = list(readers), list(targets), list(case_ids)
    found = []
    for index, entry in enumerate(skip_list.entries):
        if not (any(fnmatchcase(r, entry.implementation) for r in readers)
                and any(fnmatchcase(t, entry.against) for t in targets)):
            continue
        found += [(index, glob) for glob in entry.cases
                  if not any(fnmatchcase(case_id, glob) for case_id in ids)]
    return found


def other_versions(skip_list: SkipList, readers: Iterable[str]) -> list[tuple[int, str, str]]:
    """(entry index, its implementation, the reader) for each entry written for another
    version of a reader under test (``myreader@1.0.0`` when the run checks
    ``myreader@1.1.0``): it applies to nothing in this run, so every failure it listed
    comes back as new; ``myreader@*`` keeps it across versions."""
    found = []
    readers = list(readers)
    for index, entry in enumerate(skip_list.entries):
        if any(fnmatchcase(r, entry.implementation) for r in readers):
            continue
        name = entry.implementation.split("@", 1)[0]
        found += [(index, entry.implementation, r) for r in readers
                  if fnmatchcase(r.split("@", 1)[0], name)][:1]
    return found


def for_run(path: Path | None, impl_specs: Iterable[str] = ()) -> SkipList:
    """The skip list a run judges by: ``path`` when given; else the one shipped with
    rechain and, for each ``adapter:NAME`` checked, that adapter's own ``skips.json`` (the
    known bugs ``rechain matrix`` reports it with), so one adapter checked alone is judged
    as in the matrix."""
    if path is not None:
        return load(path)
    from rechain.conformance.matrix.adapters import ROOT

    entries = list(load().entries)
    for spec in impl_specs:
        own = ROOT / spec.removeprefix("adapter:") / "skips.json"
        if spec.startswith("adapter:") and own.is_file():
            entries += load(own).entries
    return SkipList(tuple(entries))


def load(path: Path | None = None) -> SkipList:
    """The skip list at ``path``, or the one shipped with rechain."""
    if path is None:
        text = files("rechain.conformance").joinpath("skips.json").read_text(encoding="utf-8")
        return parse(json.loads(text), "conformance/skips.json")
    try:
        return parse(json.loads(path.read_text(encoding="utf-8")), str(path))
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror}") from None
    except ValueError as error:
        raise UsageError(f"{path}: not JSON: {error}") from None
