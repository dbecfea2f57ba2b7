"""``rechain check``: run the corpus and generated transcripts through readers and compare.

With no arguments it checks the embedded reference against the corpus's recorded
expectations and against generated transcripts (valid and corrupted): their
intended conversation, and the TS SDK when it is installed. ``--impl`` picks
the readers under test, ``--against`` another reader to compare with. Every
disagreement on generated input is shrunk by Hypothesis and written as a
corpus case with a one-line replay command. Exit 0 when everything agrees or
is skipped, 1 on any disagreement, crash or timeout, 2 on usage errors.

The real CLI's answers (``--against claude-code``, about a CPU-second each) are
kept in ``<cache>/cli-answers`` and reused for the same input;
``RECHAIN_CLI_ANSWERS=off`` runs the CLI every time.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rechain import __version__, helptext, portable, progress, shard
from rechain.cache import cache_dir
from rechain.commands._resume_args import resumed
from rechain.conformance import differential as diff
from rechain.conformance import (
    example_db,
    findings,
    report,
    report_ci,
    report_html,
    report_resume,
    report_text,
    skips,
)
from rechain.conformance.annotate import annotations
from rechain.conformance.contracts.model import load as load_contract
from rechain.conformance.contracts.setup import contract_targets, shrink_order
from rechain.conformance.impls import Implementation, Validating, connect, label
from rechain.conformance.protocol import DEFAULT_OPTIONS, RESUME_VIEWS, Outcome
from rechain.conformance.protocol_process import Limits
from rechain.conformance.runner import (
    Against,
    Connections,
    Intended,
    Item,
    Record,
    Recorded,
    Target,
    corpus_items,
    judge_pair,
    run_items,
    run_one,
)
from rechain.errors import UsageError

GENERATED = frozenset({"generated", "corrupted"})


def register(subparsers: Any) -> None:
    """Add ``check``."""
    parser = subparsers.add_parser(
        "check",
        help="check readers against the corpus and generated transcripts",
        description=helptext.description(__doc__),
    )
    add = parser.add_argument
    add("--impl", action="append", metavar="SPEC",
        help="reader under test (repeatable): reference[:PROFILE], agent-sdk-ts, agent-sdk-py, "
             "claude-code, python:MOD:FN, cmd:COMMAND, harness:COMMAND, adapter:NAME (default: "
             "the reference in the --profile chosen)")
    add("--against", metavar="SPEC", help="compare with this reader instead of the expectations")
    add("--profile", default="sdk", help="expectation profile (default: sdk = agent-sdk@0.3.332)")
    add("--examples", type=int, default=None, metavar="N",
        help="generated transcripts, half valid, half corrupted (default 200; 0 with --case)")
    add("--seed", type=int, default=None, help="Hypothesis seed (default: random, printed)")
    add("--corpus", type=Path, default=None, metavar="DIR",
        help="case directory (default: the packaged corpus)")
    add("--case", action="append", default=[], metavar="GLOB", help="only corpus cases matching")
    add("--no-corpus", action="store_true", help="skip the corpus, generated transcripts only")
    add("--shard", type=shard.argument, metavar="I/N",
        help="run only slice I of N of the cases (same --seed everywhere; join the reports "
             "with rechain report merge)")
    add("--example-db", metavar="DIR|redis://HOST:PORT",
        help="save shrunk disagreements here and replay them first next run")
    add("--shared-example-db", action="append", default=[], metavar="DIR|redis://HOST:PORT",
        help="also replay the failures saved here, never writing to it (repeatable)")
    add("--report", type=Path, metavar="FILE", help="write the JSONL run report here")
    add("--resume", type=Path, metavar="REPORT",
        help="continue the run that wrote REPORT (stopped or killed): its options and seed, "
             "the cases already in it skipped, the rest appended to it")
    add("--markdown", type=Path, metavar="FILE", help="write a Markdown summary (- for stdout)")
    add("--html", type=Path, metavar="FILE", help="write the static HTML matrix")
    add("--junit", type=Path, metavar="FILE",
        help="write JUnit XML (a test case per case and comparison, the explanation as text)")
    add("--sarif", type=Path, metavar="FILE",
        help="write SARIF 2.1.0 (a rule per behaviour, the case file as location)")
    add("--badge", type=Path, metavar="FILE",
        help="write a shields.io endpoint badge (JSON: share of cases passing)")
    add("--jobs", type=int, default=1, metavar="N", help="parallel workers (each connects anew)")
    add("--timeout", type=float, default=30.0, metavar="S", help="per-case limit (default 30)")
    add("--memory-mb", type=int, default=2048, metavar="MB",
        help="memory limit of each reader process, python: workers included (default 2048)")
    add("--venv", type=Path, metavar="DIR",
        help="run python:MOD:FN readers with this virtual environment's interpreter "
             "(default: rechain's)")
    add("--save-cases", type=Path, default=None, metavar="DIR",
        help="where shrunk disagreements are written as cases (default: a directory for the "
             "run under the rechain cache, <cache>/cases/<run>)")
    add("--no-shrink", action="store_true", help="report disagreements without shrinking them")
    add("--max-shrink", type=int, default=12, metavar="K",
        help="kinds of disagreement to shrink per pair of readers (default 12)")
    add("--skips", type=Path, metavar="FILE", help="skip list (default: the one shipped)")
    add("--no-skips", action="store_true", help="ignore the skip list")
    add("--write-skips", type=Path, metavar="FILE",
        help="write a skip list covering every corpus case that did not pass (toml-test -script)")
    add("--contract", metavar="FILE",
        help="judge the readers under test by this contract (contract.json) instead of "
             "the one they declare")
    add("--fields", choices=("uuids", "types", "messages"), default=None,
        help="how strict the comparison is: which rows in which order (uuids), also each "
             "row's type (types), also the messages as declared (messages, the default)")
    add("--invariant-every", type=int, default=4, metavar="K",
        help="run the reader again on one case in K (an appended invalid line, reformatted "
             "rows) to check its answer does not change; 0 turns it off (default 4)")
    add("--validate", action="store_true",
        help="check every answer against the protocol and result schemas (a break is a crash)")
    add("--progress", action=argparse.BooleanOptionalAction, default=None,
        help="progress on stderr: a bar on a terminal, else a line every ~10 s with the rate "
             "and ETA (default: on; --no-progress for none)")
    parser.set_defaults(handler=run)


# --- setup --------------------------------------------------------------------------------


def _connect(spec: str, limits: Limits, validate: bool, venv: Path | None = None
             ) -> Implementation:
    implementation = connect(spec, limits, strict=validate, venv=venv)
    return Validating(implementation) if validate else implementation


def _default_against(impl_specs: Sequence[str], profile: str, resume: bool = False) -> str | None:
    """The reader generated input is compared with when ``--against`` is not given.

    In the resume views (profile ``cli``) that is the reference, never the slow CLI.
    """
    from rechain.conformance.oracles.ts_sdk import TsSdkOracle

    if not resume and TsSdkOracle.available() is None and "agent-sdk-ts" not in impl_specs:
        return "agent-sdk-ts"
    reference = f"reference:{profile}"
    if not any(spec.startswith("reference") for spec in impl_specs):
        return reference
    return None


class _Plan:
    """What one ``check`` run connects to and compares with; builds worker connections."""

    def __init__(self, args: argparse.Namespace) -> None:
        from rechain.reference import get_profile

        chosen = get_profile(args.profile)
        self.profile = chosen.name
        # the views the profile's expectations are recorded in: the CLI's api + chain, or the
        # SDKs' session messages (what corpus and generated items ask for)
        self.views: tuple[str, ...] = (("api", "chain") if set(chosen.views) >= RESUME_VIEWS
                                       else ("session-messages",))
        self.view = self.views[0]
        self.limits = Limits(timeout=args.timeout, memory_mb=args.memory_mb)
        self.validate = bool(args.validate)
        self.venv: Path | None = args.venv
        self.impl_specs: list[str] = args.impl or [f"reference:{args.profile}"]
        self.against_spec: str | None = args.against
        self.default_against = (None if args.against else _default_against(
            self.impl_specs, self.profile, self.view != "session-messages"))
        self.made: list[Connections] = []
        self.contract = load_contract(args.contract) if args.contract else None
        self.level: str | None = args.fields
        self.every: int = args.invariant_every
        self.database = example_db.open_database(args.example_db, args.shared_example_db)

    def connections(self) -> Connections:
        """A fresh set of connections (one per worker)."""
        implementations = [_connect(s, self.limits, self.validate, self.venv)
                           for s in self.impl_specs]
        judged = contract_targets(implementations, self.contract, self.level, self.profile,
                                  self.every)
        targets: list[Target] = []
        if self.against_spec is not None:
            targets.append(Against(_connect(self.against_spec, self.limits, self.validate,
                                            self.venv)))
        elif len(judged) < len(implementations):  # else each has its contract's answer only
            targets.append(Recorded(self.profile, views=self.views))
            if self.view == "session-messages" and self.default_against != "agent-sdk-ts":
                targets.append(Intended())  # the TS SDK's own answer, when it runs, is the one
            if self.default_against is not None:
                other = _connect(self.default_against, self.limits, self.validate)
                targets.append(Against(other, GENERATED))
        targets += judged
        made = Connections(implementations, targets, level=self.level)
        self.made.append(made)
        return made

    def against_spec_for(self, target: Target) -> str | None:
        """The spec to put in a replay command for a target."""
        if self.against_spec is not None:
            return self.against_spec
        if isinstance(target, Recorded | Intended) or getattr(target, "owner", None):
            return None
        return self.default_against

    def rates(self) -> dict[str, report.Rate]:
        merged: dict[str, list[float]] = {}
        for made in self.made:
            for name, (calls, seconds) in made.seconds.items():
                total = merged.setdefault(name, [0, 0.0])
                total[0] += calls
                total[1] += seconds
        return {name: report.Rate(int(c), s) for name, (c, s) in merged.items()}


# --- the run ------------------------------------------------------------------------------


def _corpus(args: argparse.Namespace, profile: str, view: str) -> list[Item]:
    if args.no_corpus:
        return []
    from rechain.corpus.cases_io import CaseError, load_cases

    root = args.corpus
    if root is not None and not root.is_dir():
        raise UsageError(f"--corpus {root}: not a directory")
    try:
        cases = load_cases(root)
    except CaseError as error:
        raise UsageError(f"corpus: {error}") from None
    items = corpus_items(cases, profile, view, selected=args.case)
    if args.case and not items:
        raise UsageError(f"no corpus case matches {' '.join(args.case)}")
    return items


def _generated(count: int, seed: int, profile: str, say: Callable[[str], None],
               view: Any = "session-messages") -> list[Item]:
    """Half valid, half corrupted transcripts, each kind from its own seed."""
    sizes = {"generated": count - count // 2, "corrupted": count // 2}
    items: list[Item] = []
    for offset, (kind, size) in enumerate(sizes.items()):
        if size <= 0:
            continue
        say(f"generating {size} {kind} transcripts (seed {seed + offset})…")
        values = diff.generate(diff.strategy_for(kind), size, seed + offset)
        items += [diff.make_item(value, kind, index, profile, view=view)
                  for index, value in enumerate(values)]
    return items


def _saved(plan: _Plan, examples: int, say: Callable[[str], None]) -> list[Item]:
    """The failures earlier runs saved in the example database, to replay first."""
    kinds = [kind for kind, size in (("generated", examples - examples // 2),
                                     ("corrupted", examples // 2)) if size > 0]
    if plan.database is None or not kinds:
        return []
    found = example_db.saved_items(plan.database, kinds, plan.profile, plan.view)
    say(f"saved failures to replay first: {len(found)}")
    return found


def _signer(item: Item, verdict: Any, got: Outcome, expected: Outcome) -> frozenset[str]:
    return diff.signature(item.case.data, verdict, got, expected)


def run(args: argparse.Namespace) -> int:
    """Run the check; the exit code is the footer's."""
    previous = None
    if args.resume is not None:  # the interrupted run's own options, from its report
        if args.report is not None and args.report.absolute() != args.resume.absolute():
            raise UsageError("--resume appends to its own report; leave out --report")
        args, previous = resumed(args)
    if args.jobs < 1 or args.timeout <= 0 or (args.examples is not None and args.examples < 0):
        raise UsageError("--jobs and --timeout must be positive, --examples not negative")
    started_at = dt.datetime.now(dt.UTC)
    clock = time.monotonic()
    say = _say(args)
    plan = _Plan(args)
    skip_list = None if args.no_skips else skips.load(args.skips)
    examples = args.examples if args.examples is not None else (0 if args.case else 200)
    if examples and plan.view != "session-messages" and not (args.against
                                                              or plan.default_against):
        say("generated transcripts have nothing to be compared with in the resume views "
            "without --against (e.g. --against claude-code); checking the corpus only")
        examples = 0
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    args.save_cases = saved_cases_dir(args.save_cases, started_at, seed)
    items = _corpus(args, plan.profile, plan.view)
    if args.shard is not None:
        shard.require(args.shard, len(items) + examples, "cases")
    first = plan.connections()
    saved = _saved(plan, examples, say)
    generated = _generated(examples, seed, plan.profile, say, plan.view)
    kept = shard.assign(args.shard, saved, items + generated)
    if previous is not None:
        kept = report_resume.remaining(kept, previous, lambda pair: pair[1].case.id)
    positions, items = [p for p, _ in kept], [item for _, item in kept]
    with contextlib.ExitStack() as stack:
        opened = (report_resume.reopen(previous) if previous is not None
                  else args.report.open("wb") if args.report else None)
        stream = stack.enter_context(opened) if opened is not None else None
        writer = report.Writer(stream)
        infos = [(label("", i.info), i.info) for i in first.implementations]
        infos += [(t.label, t.implementation.info) for t in first.targets if isinstance(t, Against)]
        if previous is not None:
            writer.lines.extend(previous.lines)  # in the file already: counted, not rewritten
        else:
            head = {**report.header(infos, [t.label for t in first.targets],
                                    argv=getattr(args, "argv", sys.argv[1:]), seed=seed,
                                    examples=examples, profile=plan.profile, started=started_at,
                                    strictness=plan.level), "cwd": str(Path.cwd())}
            writer.write({**head, "shard": args.shard.to_json()} if args.shard else head)
        records: list[Record] = []
        interrupted: KeyboardInterrupt | None = None
        bar = _progress(args, len(items))
        try:
            for item, found in run_items(items, plan.connections, jobs=args.jobs,
                                         skips=skip_list, signature=_signer, first=first):
                bar.step(sum(r.status in ("fail", "crash", "timeout") for r in found))
                lines = []
                for local, extra in zip(found, annotations(item, found, plan.profile),
                                        strict=True):
                    record = replace(local, seq=positions[local.seq - 1] + 1)  # as unsplit
                    records.append(record)
                    lines.append(report.case_line(record, **extra))
                writer.write_all(lines)  # one case's lines together: all on file, or none
            bar.end()
            if not args.no_shrink:
                by_id = {item.case.id: item for item in generated}
                for line in _shrink_all(args, plan, first, records, by_id, seed, examples, say):
                    writer.write(line)
        except KeyboardInterrupt as stop:  # Ctrl-C or SIGTERM: the summary of what finished
            bar.end()
            interrupted = stop
        finally:
            cases = [line for line in writer.lines if line["kind"] == "case"]
            writer.write(report.footer(cases, plan.rates(), time.monotonic() - clock,
                                       interrupted=interrupted is not None))
            for made in plan.made:
                made.close()
        _render(args, writer.lines)
        if interrupted is not None:
            if args.report is not None:
                print("rechain: resume with: " + portable.command(
                    ["rechain", "check", "--resume", str(args.report.absolute())]),
                      file=sys.stderr)
            raise interrupted
        return int(writer.lines[-1]["exit"])


def _judged_as(args: argparse.Namespace) -> list[str]:
    """The options of this run that decide a verdict, for a replay to judge the same way."""
    flags = ["--profile", args.profile] if args.profile != "sdk" else []
    if args.contract:
        flags += ["--contract", str(Path(args.contract).expanduser().absolute())]
    if args.fields:
        flags += ["--fields", args.fields]
    return flags + (["--validate"] if args.validate else [])


def saved_cases_dir(chosen: Path | None, started: dt.datetime, seed: int) -> Path:
    """Where shrunk cases go, absolute: ``--save-cases``, else a run dir under the cache.

    Never the current directory: a check run inside a repository leaves nothing there.
    """
    if chosen is not None:
        return chosen.expanduser().absolute()
    run = f"{started.strftime('%Y%m%d-%H%M%S')}-seed{seed}"
    return (cache_dir() / "cases" / run).absolute()


def _say(args: argparse.Namespace) -> Callable[[str], None]:
    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    return say


def _progress(args: argparse.Namespace, total: int) -> progress.Progress:
    """A bar on a terminal, a line every ~10 s elsewhere (CI logs), nothing with --no-progress."""
    if args.progress is False:
        return progress.Progress(total, None, progress.LINES)
    style = progress.BAR if args.progress or sys.stderr.isatty() else progress.LINES
    return progress.Progress(total, sys.stderr, style)


def _render(args: argparse.Namespace, lines: list[dict[str, Any]]) -> None:
    if args.write_skips is not None:
        document = skips.covering(lines, GENERATED)
        args.write_skips.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    sys.stdout.write(report_text.terminal(lines))
    if args.markdown is not None:
        text = report_text.markdown(lines)
        if str(args.markdown) == "-":
            sys.stdout.write(text)
        else:
            args.markdown.write_text(text, encoding="utf-8")
    if args.html is not None:
        args.html.write_text(report_html.render(lines), encoding="utf-8")
    report_ci.write(args, lines)
    sys.stdout.flush()


# --- shrinking ------------------------------------------------------------------------------


def _shrink_all(args: argparse.Namespace, plan: _Plan, first: Connections,
                records: Sequence[Record], by_id: dict[str, Item], seed: int, examples: int,
                say: Callable[[str], None]) -> Iterator[dict[str, Any]]:
    """Shrink each kind of disagreement on generated input; yield one finding line per
    minimal input, with every comparison that fails on it (kinds it shows are not shrunk
    again)."""
    sizes = {"generated": examples - examples // 2, "corrupted": examples // 2}
    seeds = {"generated": seed, "corrupted": seed + 1}
    per_pair: dict[tuple[str, str], int] = {}
    ledger = findings.Ledger()
    fresh = [r for r in records if r.case_id in by_id]  # a replayed saved failure is minimal
    kinds = findings.seen_counts(fresh, GENERATED)
    for (impl_label, target_label, kind, tokens), indices in shrink_order(fresh, GENERATED):
        pair = (impl_label, target_label)
        if per_pair.get(pair, 0) >= args.max_shrink or ledger.covers(*pair, tokens):
            continue
        per_pair[pair] = per_pair.get(pair, 0) + 1
        implementation = next(i for i in first.implementations if label("", i.info) == impl_label)
        target = next(t for t in sorted(first.targets, key=lambda t: isinstance(t, Recorded))
                      if t.label == target_label)  # generated input: not the corpus's record
        say(f"shrinking {impl_label} vs {target_label}: {' '.join(sorted(tokens))} "
            f"({len(indices)} examples)…")
        start = min(indices)
        first_bytes = by_id[f"{kind[:3]}-{start:05d}"].case.data
        finding = _shrink_one(plan, implementation, target, kind, tokens, seeds[kind],
                              sizes[kind], start, len(indices), first_bytes)
        if finding is None:
            # flaky (a reader that is not deterministic) or generation changed: keep the
            # original example, unshrunk, so the disagreement is not lost
            say("  the disagreement did not reproduce; kept unshrunk")
            original = next(r for r in records if r.case_id == f"{kind[:3]}-{start:05d}"
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
        replay = diff.replay_command(impl_specs, against, str(args.save_cases), identifier,
                                     Path.cwd(), plan.venv, _judged_as(args))
        path = _freeze(args, plan, comparisons, item, identifier, seeds[kind], kind, replay)
        yield findings.finding_line(comparisons, verdicts, item, plan.profile,
                                    identifier=identifier, path=str(path) if path else None,
                                    replay=replay)


def _shrink_one(plan: _Plan, implementation: Implementation, target: Target, kind: str,
                tokens: frozenset[str], seed: int, size: int, start: int, seen: int,
                first_bytes: bytes) -> tuple[diff.Disagreement, Item] | None:
    def outcomes(value: Any) -> tuple[Item, Outcome, Outcome | None]:
        item = diff.make_item(value, kind, 0, plan.profile, view=plan.view)
        return item, run_one(implementation, item.case), target.expect(item)

    def fails(value: Any) -> bool:
        item, got, expected = outcomes(value)
        if expected is None:
            return False
        if getattr(target, "owner", None) is implementation:
            from rechain.conformance.contracts.judge import kind_of

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


def _freeze(args: argparse.Namespace, plan: _Plan, comparisons: Sequence[diff.Disagreement],
            item: Item, identifier: str, seed: int, kind: str, replay: str) -> Path | None:
    """Write the case directory; the TS SDK is asked for the main expectation if needed."""
    from rechain.corpus.cases_io import write_case

    recorded: dict[str, tuple[str, Outcome]] = {}
    sides = [side for c in comparisons
             for side in ((c.implementation, c.got), (c.against, c.expected))]
    for side_label, outcome in sides:
        name = side_label.split("@", 1)[0]
        if name in diff.RECORDED_PROFILES:
            recorded[diff.RECORDED_PROFILES[name]] = (side_label.split(" ", 1)[0], outcome)
    main = diff.RECORDED_PROFILES["agent-sdk-ts"]
    if main not in recorded:
        with contextlib.suppress(UsageError):
            oracle = connect("agent-sdk-ts", plan.limits)
            try:
                recorded[main] = (oracle.info.slug, run_one(oracle, item.case))
            finally:
                oracle.close()
    disagreement = comparisons[0]
    document = diff.case_document(
        disagreement, identifier=identifier, recorded=recorded, options=dict(DEFAULT_OPTIONS),
        seed=seed, kind=kind, replay=replay, today=dt.date.today().isoformat(),
        rechain_version=__version__, also=comparisons[1:])
    directory = args.save_cases / identifier
    try:
        write_case(directory, document, disagreement.data)
    except OSError as error:
        print(f"rechain: cannot write {directory}: {error.strerror}", file=sys.stderr)
        return None
    return directory
