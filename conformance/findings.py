"""Shrunk disagreements, one per minimal input: which kinds a shrink already covers, and the
finding line that lists every comparison failing on that input.

A shrink is costly, and the same minimal input usually fails against several targets
(the intended chain and the TS SDK agree with each other, not with the reader). So after
each shrink the minimal input is checked against every target, and a kind whose
(reader, target, signature) it already shows is not shrunk again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rechain.conformance.annotate import tags_of
from rechain.conformance.compare import Verdict
from rechain.conformance.differential import Disagreement, signature
from rechain.conformance.explain import explain, profile_for
from rechain.conformance.impls import label
from rechain.conformance.report_bounds import clip
from rechain.conformance.runner import Connections, Item, judge_pair, run_one, with_causes

Json = dict[str, Any]


@dataclass
class Ledger:
    """What the findings so far cover: (reader, target, signature) and the inputs written."""

    covered: set[tuple[str, str, frozenset[str]]] = field(default_factory=set)
    digests: set[str] = field(default_factory=set)

    def covers(self, implementation: str, against: str, signature: frozenset[str]) -> bool:
        return (implementation, against, signature) in self.covered

    def add(self, comparisons: Sequence[Disagreement]) -> bool:
        """Record a finding's comparisons; False when its input was already written."""
        for d in comparisons:
            self.covered.add((d.implementation, d.against, d.signature))
        digest = comparisons[0].digest
        if digest in self.digests:
            return False
        self.digests.add(digest)
        return True


def seen_counts(records: Sequence[Any], generated: frozenset[str]
                ) -> dict[tuple[str, str, str, frozenset[str]], list[int]]:
    """(reader, target, group, signature) -> the sweep's example numbers of that kind."""
    kinds: dict[tuple[str, str, str, frozenset[str]], list[int]] = {}
    for record in records:
        if record.group in generated and record.signature and record.status != "pass":
            key = (record.implementation, record.against, record.group, record.signature)
            kinds.setdefault(key, []).append(int(record.case_id.rsplit("-", 1)[1]))
    return kinds


def _verdict(implementation: Any, target: Any, item: Item, got: Any, expected: Any) -> Verdict:
    """A comparison's verdict: a reader's own contract judges its answer, else the views."""
    if getattr(target, "owner", None) is implementation:
        return target.judge(item, got, 0)  # type: ignore[no-any-return]
    return with_causes(judge_pair(implementation.info, target, got, expected), got, expected)


def every_comparison(first: Connections, shrunk: Disagreement, item: Item,
                      kinds: dict[tuple[str, str, str, frozenset[str]], list[int]], kind: str
                      ) -> tuple[list[Disagreement], list[Verdict]]:
    """The shrunk comparison, then every other (reader, target) that fails on its input."""
    found: list[Disagreement] = []
    verdicts: list[Verdict] = []
    done: set[tuple[str, str]] = set()  # one label is one answer: the recorded and the live
    for implementation in first.implementations:
        impl_label = label("", implementation.info)
        got = shrunk.got if impl_label == shrunk.implementation else run_one(
            implementation, item.case)
        for target in first.targets:
            owner = getattr(target, "owner", None)
            if owner is not None and owner is not implementation:
                continue  # another reader's contract
            if (impl_label, target.label) in done:
                continue
            mine = (impl_label, target.label) == (shrunk.implementation, shrunk.against)
            expected = target.expect(item) if not mine or owner is not None else shrunk.expected
            if expected is None:
                continue
            done.add((impl_label, target.label))
            verdict = _verdict(implementation, target, item, got, expected)
            if verdict.status != "fail" and not mine:
                continue
            tokens = shrunk.signature if mine else signature(item.case.data, verdict, got,
                                                                  expected)
            seen = len(kinds.get((impl_label, target.label, kind, tokens), ()))
            one = shrunk if mine else Disagreement(
                impl_label, target.label, tokens, shrunk.data, shrunk.session_id, got,
                expected, seen, shrunk.first_index, 0)
            at = 0 if mine else len(found)
            found.insert(at, one)
            verdicts.insert(at, verdict)
    return found, verdicts


def finding_line(comparisons: Sequence[Disagreement], verdicts: Sequence[Verdict], item: Item,
                 profile: str, *, identifier: str, path: str | None, replay: str,
                 merged: frozenset[str] = frozenset(),
                 loose: frozenset[str] = frozenset()) -> Json:
    """The report's finding line: the first comparison's fields at the top (what a reader of
    one comparison needs), and every comparison with its own difference and explanation."""
    tags = tags_of(item)
    differences = [v.difference.to_json() if v.difference else None for v in verdicts]
    explanations = [explain(c.data, c.got, c.expected, d, target=c.against,
                            profile=profile_for(c.against, profile), tags=tags,
                            message=v.message, causes=v.causes, leads=v.leads,
                            merged=c.implementation in merged,
                            loose=c.implementation in loose)
                    for c, v, d in zip(comparisons, verdicts, differences, strict=True)]
    first = comparisons[0]
    listed = [{"implementation": d.implementation, "against": d.against,
               "cause": clip(v.cause or next(iter(sorted(d.signature)), "")),
               "signature": sorted(clip(token) for token in d.signature), "seen": d.seen,
               "difference": difference,
               "explanation": explanation}
              for d, v, difference, explanation in zip(comparisons, verdicts, differences,
                                                        explanations, strict=True)]
    return {
        "kind": "finding", "implementation": first.implementation, "against": first.against,
        "cause": listed[0]["cause"],
        "signature": listed[0]["signature"], "seen": max(1, max(d.seen for d in comparisons)),
        "case_id": identifier, "path": path, "replay": replay,
        "lines": first.data.count(b"\n"), "shrink_calls": first.shrink_calls,
        "difference": differences[0], "explanation": explanations[0], "comparisons": listed,
    }
