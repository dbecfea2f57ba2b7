"""Each kind of disagreement on generated input shrunk to a minimal transcript, once."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from rechain import portable
from rechain.conformance import differential as diff
from rechain.conformance import example_db, findings, skips
from rechain.conformance.annotate import loose_readers, merged_readers
from rechain.conformance.check.freezing import freeze
from rechain.conformance.check.inputs import group_seeds, group_sizes
from rechain.conformance.check.plan import GENERATED, Plan
from rechain.conformance.check.settings import Settings
from rechain.conformance.contracts.judge import kind_of
from rechain.conformance.contracts.setup import shrink_order
from rechain.conformance.impls import Implementation, label
from rechain.conformance.protocol import Outcome
from rechain.conformance.runner import (
    Connections,
    Item,
    Record,
    Recorded,
    Target,
    judge_pair,
    run_one,
)
from rechain.wording import counted

Say = Callable[[str], None]


def shrink_all(settings: Settings, plan: Plan, first: Connections, records: Sequence[Record],
               by_id: dict[str, Item], examples: int, say: Say) -> Iterator[dict[str, Any]]:
    """Shrink each kind of disagreement on generated input; yield one finding line per
    minimal input, with every comparison that fails on it (kinds it shows are not shrunk
    again)."""
    sizes = group_sizes(examples)
    seeds = group_seeds(settings.seed)
    per_pair: dict[tuple[str, str], int] = {}
    ledger = findings.Ledger()
    fresh = [r for r in records if r.case_id in by_id]  # a replayed saved failure is minimal
    kinds = findings.seen_counts(fresh, GENERATED)
    known = (skips.SkipList() if settings.no_skips
             else skips.for_run(settings.skips, settings.impl))
    for (impl_label, target_label, kind, tokens), indices in shrink_order(fresh, GENERATED):
        pair = (impl_label, target_label)
        if per_pair.get(pair, 0) >= settings.max_shrink or ledger.covers(*pair, tokens) or (
                known.known_kind(impl_label, target_label, tokens)):
            continue
        per_pair[pair] = per_pair.get(pair, 0) + 1
        implementation = next(i for i in first.implementations if label("", i.info) == impl_label)
        target = next(t for t in sorted(first.targets, key=lambda t: isinstance(t, Recorded))
                      if t.label == target_label)  # generated input: not the corpus's record
        say(f"shrinking {impl_label} vs {target_label}: {' '.join(sorted(tokens))} "
            f"({counted(len(indices), 'example')})…")
        start = min(indices)
        first_id = diff.generated_id(kind, start)
        finding = shrink_one(plan, implementation, target, kind, tokens, seeds[kind],
                             sizes[kind], start, len(indices), by_id[first_id].case.data)
        if finding is None:
            # flaky (a reader that is not deterministic) or generation changed: keep the
            # original example, unshrunk, so the disagreement is not lost
            say("  the disagreement did not reproduce; kept unshrunk")
            original = next(r for r in records if r.case_id == first_id
                            and r.implementation == impl_label and r.against == target_label)
            item = by_id[original.case_id]
            assert original.expected is not None
            finding = (diff.Disagreement(impl_label, target_label, tokens, item.case.data,
                                         item.case.session_id, original.outcome,
                                         original.expected, len(indices), start, 0), item)
        disagreement, item = finding
        comparisons, verdicts = findings.every_comparison(first, disagreement, item, kinds, kind)
        if not ledger.add(comparisons):
            continue
        identifier = diff.case_id(comparisons[0], comparisons[1:])
        impl_specs = [plan.impl_specs[n] for n, i in enumerate(first.implementations)
                      if label("", i.info) in {c.implementation for c in comparisons}]
        targets = {t.label: t for t in sorted(first.targets, key=lambda t: not isinstance(
            t, Recorded))}  # generated input: a label's live target, not the corpus's record
        against = next((spec for c in comparisons
                        if (spec := plan.against_spec_for(targets[c.against])) is not None), None)
        # the report's line is read now, by the person who ran this rechain: the words
        # that run it; the case file travels (committed, shared): the portable ``rechain``
        replay, stored = (diff.replay_command(impl_specs, against, str(settings.save_cases),
                                              identifier, Path.cwd(), plan.venv,
                                              settings.judged_as(), program)
                          for program in (None, portable.PORTABLE))
        path = freeze(settings.save_cases, plan.limits, comparisons, item, identifier,
                      seeds[kind], kind, stored)
        yield findings.finding_line(comparisons, verdicts, item, plan.profile,
                                    identifier=identifier, path=str(path) if path else None,
                                    replay=replay,
                                    merged=merged_readers(first.implementations),
                                    loose=loose_readers(first.implementations))


def shrink_one(plan: Plan, implementation: Implementation, target: Target, kind: str,
               tokens: frozenset[str], seed: int, size: int, start: int, seen: int,
               first_bytes: bytes) -> tuple[diff.Disagreement, Item] | None:
    """The minimal generated transcript on which ``implementation`` and ``target`` still
    disagree with signature ``tokens``; None when the disagreement does not reproduce."""
    def outcomes(value: Any) -> tuple[Item, Outcome, Outcome | None]:
        item = diff.make_item(value, kind, 0, plan.profile, view=plan.view)
        return item, run_one(implementation, item.case), target.expect(item)

    def fails(value: Any) -> bool:
        item, got, expected = outcomes(value)
        if expected is None:
            return False
        if getattr(target, "owner", None) is implementation:
            again = 0 if any("unchanged-by" in token for token in tokens) else 1
            verdict = target.judge(item, got, again)  # type: ignore[attr-defined]
            return kind_of(item.case.data, verdict, got, expected) == tokens
        verdict = judge_pair(implementation.info, target, got, expected)
        return diff.signature(item.case.data, verdict, got, expected) == tokens

    database = None if plan.database is None else example_db.Prefixed(plan.database, kind)
    shrunk = diff.shrink(diff.strategy_for(kind), size, seed, start, fails, first_bytes,
                         database=database)
    if shrunk is None:
        return None
    value, calls = shrunk
    item, got, expected = outcomes(value)
    assert expected is not None
    return diff.Disagreement(label("", implementation.info), target.label, tokens,
                             item.case.data, item.case.session_id, got, expected, seen, start,
                             calls), item
