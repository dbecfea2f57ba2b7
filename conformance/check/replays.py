"""The replay command of a corpus case that did not pass.

A shrunk generated case carries its replay in its finding line; a corpus case that fails
is already a file, so its replay is ``check`` on that one case: the same reader under
test, the same target, the same corpus directory and the options that decide the verdict
(profile, contract, fields, skip list, limits), built with ``differential.replay_command``
so it runs as printed from any directory. The case line carries it, and every report
renders it from there (the terminal, Markdown, HTML and JUnit read the report's lines).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rechain.conformance import differential as diff
from rechain.conformance.check.plan import Plan
from rechain.conformance.check.settings import Settings
from rechain.conformance.impls import label
from rechain.conformance.runner import Connections, Item, Record, option_sets

#: the statuses a replay is printed for (a pass or a skip has nothing to re-run)
FAILING = frozenset({"fail", "crash", "timeout"})


def _default(name: str) -> object:
    return next(f.default for f in dataclasses.fields(Settings) if f.name == name)


def pattern(case_id: str, alone: bool = False) -> str:
    """A ``--case`` glob matching exactly ``case_id`` (its glob characters taken literally);
    ``alone``: the id is a case's with several option sets, and only its default one is
    meant (``ID[]``)."""
    literal = "".join(f"[{char}]" if char in "*?[" else char for char in case_id)
    return f"{literal}[]" if alone else literal


def decisive(settings: Settings) -> list[str]:
    """The run's options a corpus case's verdict depends on beyond ``judged_as``: the skip
    list (a case it lists counts as known) and the limits (a slow or hungry reader fails
    the same way again), each only when not the default."""
    flags = settings.judged_as()
    if settings.no_skips:
        flags.append("--no-skips")
    elif settings.skips is not None:
        flags += ["--skips", str(Path(settings.skips).expanduser().absolute())]
    if settings.timeout != _default("timeout"):
        flags += ["--timeout", f"{settings.timeout:g}"]
    if settings.memory_mb != _default("memory_mb"):
        flags += ["--memory-mb", str(settings.memory_mb)]
    if settings.invariant_every != _default("invariant_every"):
        flags += ["--invariant-every", str(settings.invariant_every)]
    return flags


def corpus_replay(settings: Settings, plan: Plan, first: Connections, item: Item,
                  record: Record) -> str | None:
    """The line that re-runs ``record``'s corpus case (that option set of it: ``--case`` picks
    one by its id) alone against its target, or None for
    a generated input (its finding has the replay) or a case that passed or was skipped."""
    if record.status not in FAILING or item.recorded is None or item.source is None:
        return None
    specs = [spec for spec, implementation in zip(plan.impl_specs, first.implementations,
                                                   strict=True)
             if label("", implementation.info) == record.implementation]
    target = next((t for t in first.targets if t.label == record.against), None)
    against = plan.against_spec_for(target) if target is not None else plan.against_spec
    alone = record.case_id == item.source.id and len(
        option_sets(item.source, plan.profile, plan.view)) > 1
    corpus = str(settings.corpus) if settings.corpus is not None else None  # None: packaged
    return diff.replay_command(specs or plan.impl_specs[:1], against, corpus,
                               pattern(record.case_id, alone), Path.cwd(), plan.venv,
                               decisive(settings))

