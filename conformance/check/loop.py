"""One ``rechain check`` run: plan, run every case, shrink, and write the report lines.

The command gives the settings, a way to say things and a progress bar, and gets the
report's lines back to render; nothing here prints the results.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from rechain import interrupts, shard
from rechain.conformance import differential as diff
from rechain.conformance import report, report_resume, skips
from rechain.conformance.annotate import annotations, loose_readers, merged_readers
from rechain.conformance.check import inputs
from rechain.conformance.check.plan import Plan
from rechain.conformance.check.replays import corpus_replay
from rechain.conformance.check.settings import Settings
from rechain.conformance.check.shrinking import shrink_all
from rechain.conformance.compare import Verdict
from rechain.conformance.impls import label
from rechain.conformance.protocol import ImplementationInfo, Outcome
from rechain.conformance.report_locations import checkout, inside
from rechain.conformance.report_resume import Previous
from rechain.conformance.runner import Against, Connections, Item, Record, recorded_by, run_items
from rechain.errors import UsageError

Json = dict[str, Any]
Say = Callable[[str], None]


class Bar(Protocol):
    """A progress display: one step per case (with its failures), then the end."""

    def step(self, not_passing: int = 0) -> None: ...

    def end(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Finished:
    """The report's lines, and the stop (Ctrl-C, SIGTERM) that cut the run short, if any."""

    lines: list[Json]
    interrupted: KeyboardInterrupt | None = None

    @property
    def exit(self) -> int:
        return int(self.lines[-1]["exit"])


def _signer(item: Item, verdict: Verdict, got: Outcome, expected: Outcome) -> frozenset[str]:
    return diff.signature(item.case.data, verdict, got, expected)


def _infos(connected: Connections) -> list[tuple[str, ImplementationInfo]]:
    """The header's readers: each under test, then each real reader compared against."""
    infos = [(label("", i.info), i.info) for i in connected.implementations]
    infos += [(t.label, t.implementation.info) for t in connected.targets
              if isinstance(t, Against)]
    return infos


def check(settings: Settings, say: Say, progress: Callable[[int], Bar],
          previous: Previous | None = None) -> Finished:
    """Run the check ``settings`` describe (continuing ``previous``'s report when given)."""
    bounds = [("--jobs", settings.jobs, "positive"), ("--timeout", settings.timeout, "positive"),
              ("--memory-mb", settings.memory_mb, "positive"),
              ("--examples", settings.examples, "0 or more"),
              ("--invariant-every", settings.invariant_every, "0 or more (0 turns it off)")]
    wrong = [f"{name} {value:g} must be {rule}" for name, value, rule in bounds
             if value is not None and (value < 0 if rule.startswith("0") else value <= 0)]
    if wrong:
        raise UsageError("; ".join(wrong))
    clock = time.monotonic()
    plan = Plan(settings)
    skip_list = None if settings.no_skips else skips.for_run(settings.skips, settings.impl)
    examples = settings.examples_run
    if examples and plan.view != "session-messages" and not (settings.against
                                                              or plan.default_against):
        say("generated transcripts have nothing to be compared with in the resume views "
            f"without --against (e.g. --against {recorded_by(plan.profile)}); checking the "
            "corpus only")
        examples = 0
    items = ([] if settings.no_corpus
             else inputs.corpus(settings.corpus, plan.profile, plan.view, settings.case))
    if settings.shard is not None:
        shard.require(settings.shard, len(items) + examples, "cases")
    first = plan.connections()
    if previous is not None:
        try:
            report_resume.same_readers(previous, [name for name, _ in _infos(first)])
        except UsageError:
            plan.close()
            raise
    if skip_list is not None and settings.skips is not None:
        every = (None if settings.no_corpus else items if not settings.case
                 else inputs.corpus(settings.corpus, plan.profile, plan.view, ()))
        _warn_stale(skip_list, settings.skips, first,
                    None if every is None else [item.case.id for item in every], say)
    saved = inputs.saved(plan.database, examples, plan.profile, plan.view, say)
    generated = inputs.generated(examples, settings.seed, plan.profile, say, plan.view)
    kept = shard.assign(settings.shard, saved, items + generated)
    if previous is not None:
        kept = report_resume.remaining(kept, previous, lambda pair: pair[1].case.id)
    positions, items = [p for p, _ in kept], [item for _, item in kept]
    with contextlib.ExitStack() as stack:
        opened = (report_resume.reopen(previous) if previous is not None
                  else settings.report.open("wb") if settings.report else None)
        stream = stack.enter_context(opened) if opened is not None else None
        writer = report.Writer(stream)
        infos = _infos(first)
        if previous is not None:
            writer.lines.extend(previous.lines)  # in the file already: counted, not rewritten
        else:
            head = {**report.header(infos, [t.label for t in first.targets],
                                    argv=list(settings.argv), seed=settings.seed,
                                    examples=examples, profile=plan.profile,
                                    started=settings.started, strictness=plan.level),
                    "cwd": str(Path.cwd())}
            writer.write({**head, "shard": settings.shard.to_json()} if settings.shard else head)
        records: list[Record] = []
        interrupted: KeyboardInterrupt | None = None
        bar = progress(len(items))
        merged = merged_readers(first.implementations)
        loose = loose_readers(first.implementations)
        try:
            for item, found in run_items(items, plan.connections, jobs=settings.jobs,
                                         skips=skip_list, signature=_signer, first=first):
                bar.step(sum(r.status in ("fail", "crash", "timeout") for r in found))
                lines = []
                notes = annotations(item, found, plan.profile, merged, loose)
                for local, extra in zip(found, notes, strict=True):
                    record = replace(local, seq=positions[local.seq - 1] + 1)  # as unsplit
                    records.append(record)
                    line = report.case_line(record, **extra)
                    replay = corpus_replay(settings, plan, first, item, record)
                    lines.append({**line, "replay": replay} if replay else line)
                writer.write_all(lines)  # one case's lines together: all on file, or none
            bar.end()
            if not settings.no_shrink:
                by_id = {item.case.id: item for item in generated}
                for line in shrink_all(settings, plan, first, records, by_id, examples, say):
                    writer.write(line)
        except KeyboardInterrupt as stop:  # Ctrl-C or SIGTERM: the summary of what finished
            bar.end()
            interrupted = stop
        finally:
            cases = [line for line in writer.lines if line["kind"] == "case"]
            writer.write(report.footer(
                cases, plan.rates(), time.monotonic() - clock,
                interrupted=interrupted is not None,
                stopped_exit=interrupts.exit_code(interrupted) if interrupted else 1))
            plan.close()
        return Finished(writer.lines, interrupted)


def _warn_stale(skip_list: skips.SkipList, path: Path, first: Any,
                case_ids: list[str] | None, say: Say) -> None:
    """Say which entries of a user's skip list name a case this run's corpus does not have
    (``case_ids``, None without the corpus), or another version of a reader under test:
    such an entry can never fail, so the strict list would keep it silently. A warning, not
    an error: one list may also name the cases of another corpus (an adapter's minimal
    cases) for the replays run there. In GitHub Actions each is a ``::warning``."""
    readers = [label("", i.info) for i in first.implementations]
    stale = ([] if case_ids is None else
             skips.unmatched(skip_list, readers, [t.label for t in first.targets], case_ids))
    texts = [f"{path}: skips[{index}] lists case {glob!r}, which matches no corpus case of "
             "this run: a typo, or a case the corpus no longer has (remove it)"
             for index, glob in stale]
    texts += [f"{path}: skips[{index}] is for {written}, not {reader} that this run checks: "
              f"its known failures count as new (write {written.split('@', 1)[0]}@* to keep "
              "it across versions)"
              for index, written, reader in skips.other_versions(skip_list, readers)]
    # GitHub links a file named from the repository's root, and nothing else: a list
    # outside the checkout (or given absolute, as rechain matrix does) is named from there
    relative = inside(path, checkout(Path.cwd()))
    where = ("" if relative is None else "file=" + relative.replace("%", "%25").replace(
        ":", "%3A").replace(",", "%2C") + ",")
    for text in texts:
        say(text)
        if os.environ.get("GITHUB_ACTIONS") == "true":
            print(f"::warning {where}title=rechain%3A stale skip::{text}", flush=True)
