"""Run cases through implementations and judge each answer against each target.

An ``Item`` is one transcript with what is known about it (a recorded
expectation, the conversation a generator intended). A ``Target`` turns an item
into the outcome to compare with: the recorded expectation, the intended
chain, or another implementation's answer. The runner yields one ``Record``
per (item, implementation, target) and never stops for what a reader does.
With ``jobs > 1`` each worker thread gets its own connections.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from typing import Any, Protocol

from rechain.conformance.claude_code_2_1_88.answers import from_recorded
from rechain.conformance.compare import Difference, Verdict, common_fields, judge, judge_resume
from rechain.conformance.contracts.causes import plain_causes
from rechain.conformance.contracts.judge import kind_of, odd_rows
from rechain.conformance.impls import Implementation, label
from rechain.conformance.protocol import (
    DEFAULT_OPTIONS,
    FORKED_VIEWS,
    LEGACY_VIEWS,
    RESUME_VIEWS,
    Answered,
    CaseInput,
    Crashed,
    ImplementationInfo,
    Outcome,
    Raised,
    Skipped,
)
from rechain.conformance.skips import SkipList
from rechain.reference.profiles.claude_code_2_1_332.options import env_for_options


@dataclass(frozen=True, slots=True)
class Item:
    """One case to run: the input, its group, and what is known about its answer.

    ``recorded`` is the corpus expectation for the chosen profile (``Skipped``
    when the case has none; None for generated input); ``intended`` the uuids a
    generator meant (a string when it says the chain is left to the reader);
    ``source`` is whatever produced the input (a corpus case, a generated value).
    """

    case: CaseInput
    group: str
    recorded: Outcome | None = None
    intended: tuple[str, ...] | str | None = None
    source: Any = field(default=None, compare=False)


Signer = Callable[[Item, Verdict, Outcome, Outcome], Iterable[str]]

#: items answered per request by a reader that takes batches
BATCH = 64


class Target(Protocol):
    """What an implementation's outcome is compared with, and in which views."""

    label: str
    fields: frozenset[str] | None
    views: tuple[str, ...]

    def expect(self, item: Item) -> Outcome | None: ...


@dataclass
class Recorded:
    """The expectation recorded in the corpus (from a real reader) for one profile."""

    profile: str
    fields: frozenset[str] | None = None
    views: tuple[str, ...] = ("session-messages",)

    @property
    def label(self) -> str:
        """The real reader that recorded it (one label for one answer, whoever gives it)."""
        return recorded_by(self.profile)

    def expect(self, item: Item) -> Outcome | None:
        return item.recorded


def recorded_by(profile: str) -> str:
    """``name@version`` of the real reader whose answers a profile's expectations are:
    ``agent-sdk@0.3.332`` is what ``agent-sdk-ts@0.3.332`` answered."""
    from rechain.conformance.differential import RECORDED_PROFILES

    name, _, version = profile.partition("@")
    oracle = next((o for o, p in RECORDED_PROFILES.items() if p.partition("@")[0] == name),
                  name)
    return f"{oracle}@{version}" if version else oracle


@dataclass
class Intended:
    """The chain a generator meant to write: only the uuids, in order, are compared."""

    label: str = "intended"
    fields: frozenset[str] | None = frozenset({"uuid"})
    views: tuple[str, ...] = ("session-messages",)

    def expect(self, item: Item) -> Outcome | None:
        if item.intended is None:
            return None
        if isinstance(item.intended, str):
            return Skipped(f"undetermined: {item.intended}")
        return Answered(tuple({"uuid": uuid} for uuid in item.intended))


@dataclass
class Against:
    """Another implementation's answer to the same case (differential mode).

    ``groups``, when given, limits it to items of those groups (a default target
    for generated input that the corpus's recorded expectations make redundant).
    """

    implementation: Implementation
    groups: frozenset[str] | None = None

    @property
    def label(self) -> str:
        return label("", self.implementation.info)

    @property
    def fields(self) -> frozenset[str] | None:
        return self.implementation.info.fields

    @property
    def views(self) -> tuple[str, ...]:
        return tuple(self.implementation.info.views)

    def expect(self, item: Item) -> Outcome | None:
        if self.groups is not None and item.group not in self.groups:
            return None
        return run_one(self.implementation, item.case)


@dataclass(frozen=True, slots=True)
class Record:
    """One line of the run report: a case, an implementation, a target and the verdict."""

    seq: int
    case_id: str
    group: str
    implementation: str
    against: str
    verdict: Verdict
    outcome: Outcome
    expected: Outcome | None
    seconds: float
    signature: frozenset[str] = frozenset()

    @property
    def status(self) -> str:
        return self.verdict.status

    @property
    def difference(self) -> Difference | None:
        return self.verdict.difference


def judge_pair(info: ImplementationInfo, target: Target, got: Outcome, wanted: Outcome) -> Verdict:
    """Compare on the views both sides answer: session messages (with the fields both
    produce), else the CLI's resume views (``api`` messages, ``chain`` leaf), else the leaf."""
    shared = set(normal_views(info.views)) & set(normal_views(target.views))
    if "session-messages" in shared or FORKED_VIEWS[0] in shared:  # one list of messages each
        return judge(got, wanted, common_fields(info.fields, target.fields))
    if shared & RESUME_VIEWS:
        return judge_resume(got, wanted, api="api" in shared, chain="chain" in shared)
    return judge(got, wanted, leaf_only=True)


#: ``--fields LEVEL``: the message keys compared at each strictness
LEVEL_FIELDS: Mapping[str, frozenset[str] | None] = {
    "uuids": frozenset({"uuid"}), "types": frozenset({"uuid", "type"}), "messages": None}


def at_level(info: ImplementationInfo, level: str | None) -> ImplementationInfo:
    """``info`` compared at strictness ``level`` (``--fields``): fewer fields, never more."""
    if level is None or LEVEL_FIELDS.get(level) is None:
        return info
    return replace(info, fields=common_fields(info.fields, LEVEL_FIELDS[level]))


def with_causes(verdict: Verdict, got: Outcome, wanted: Outcome) -> Verdict:
    """A verdict of the plain comparison with its causes named (``contracts.causes``)."""
    if verdict.status != "fail" or verdict.causes:
        return verdict
    return replace(verdict, causes=plain_causes(verdict, got, wanted))


def normal_views(views: Sequence[str]) -> tuple[str, ...]:
    """Views with legacy names read as today's (``resume`` is ``api``)."""
    return tuple(LEGACY_VIEWS.get(view, view) for view in views)  # type: ignore[call-overload]


def run_one(implementation: Implementation, case: CaseInput) -> Outcome:
    """One case through one implementation; an adapter bug is recorded, not raised."""
    reason = implementation.info.unsupported(case)
    if reason is not None:
        return Skipped(reason)
    try:
        return implementation.run(_in_view(implementation, case))
    except Exception as error:  # a bug in an adapter must not end the run
        return Crashed(f"{type(error).__name__} in the adapter: {error}")


def _in_view(implementation: Implementation, case: CaseInput) -> CaseInput:
    views = normal_views(implementation.info.views)
    return case if case.view in views else replace(case, view=views[0])  # type: ignore[arg-type]


def run_many(implementation: Implementation, cases: Sequence[CaseInput]) -> list[Outcome]:
    """``run_one`` for each case, in one request when the implementation takes many
    (``run_many``, as the pinned SDK oracles do); an adapter bug falls back to one by one."""
    batch = getattr(implementation, "run_many", None)
    runnable = [c for c in cases if implementation.info.unsupported(c) is None]
    if batch is None or len(runnable) <= 1:
        return [run_one(implementation, case) for case in cases]
    try:
        answers = iter(batch([_in_view(implementation, c) for c in runnable]))
        return [run_one(implementation, c) if implementation.info.unsupported(c) is not None
                else next(answers) for c in cases]
    except Exception:  # an adapter bug: the cases again one by one, to blame the right one
        return [run_one(implementation, case) for case in cases]


@dataclass
class Connections:
    """The implementations under test and the targets, connected once per worker.

    Readers that take batches (``run_many``) get items ``batch_size`` at a time through
    ``prefetch``; each verdict is still judged one item at a time by ``check``.
    """

    implementations: Sequence[Implementation]
    targets: Sequence[Target]
    seconds: dict[str, tuple[int, float]] = field(default_factory=dict)  # name -> (calls, s)
    level: str | None = None  # ``--fields``: uuids | types | messages (None: as declared)
    #: (implementation, case) -> (outcome, seconds) answered ahead by ``prefetch``
    _ready: dict[tuple[int, int], tuple[Outcome, float]] = field(default_factory=dict)

    @property
    def batch_size(self) -> int:
        """How many items ``prefetch`` should get at once: many when a reader takes batches."""
        parts = [*self.implementations,
                 *(t.implementation for t in self.targets if isinstance(t, Against))]
        return BATCH if any(hasattr(part, "run_many") for part in parts) else 1

    def prefetch(self, items: Sequence[Item]) -> None:
        """Answer ``items`` ahead through every reader that takes batches (one request per
        reader instead of one per case); ``check`` then uses those answers."""
        if len(items) <= 1:
            return
        wanted: dict[int, tuple[Implementation, list[Item]]] = {}
        for implementation in self.implementations:
            wanted.setdefault(id(implementation), (implementation, list(items)))
        for target in self.targets:
            if isinstance(target, Against):
                chosen = [i for i in items if target.groups is None or i.group in target.groups]
                wanted.setdefault(id(target.implementation), (target.implementation, chosen))
        for implementation, chosen in wanted.values():
            if not hasattr(implementation, "run_many") or len(chosen) <= 1:
                continue
            started = time.perf_counter()
            outcomes = run_many(implementation, [item.case for item in chosen])
            each = (time.perf_counter() - started) / len(chosen)
            for item, outcome in zip(chosen, outcomes, strict=True):
                self._ready[(id(implementation), id(item.case))] = (outcome, each)

    def _run(self, implementation: Implementation, item: Item) -> tuple[Outcome, float]:
        """The prefetched answer and its share of the batch's time, else a call now."""
        ready = self._ready.pop((id(implementation), id(item.case)), None)
        if ready is not None:
            return ready
        started = time.perf_counter()
        outcome = run_one(implementation, item.case)
        return outcome, time.perf_counter() - started

    def check(self, seq: int, item: Item, skips: SkipList | None = None,
              signature: Signer | None = None
              ) -> list[Record]:
        """Every (implementation, target) verdict for one item."""
        expected = []
        for target in self.targets:
            if isinstance(target, Against) and (target.groups is None
                                                or item.group in target.groups):
                wanted, took = self._run(target.implementation, item)
                self._add(target.label, took)
            else:
                wanted = target.expect(item)
            expected.append((target, wanted))
        records = []
        for implementation in self.implementations:
            name = label("", implementation.info)
            outcome, elapsed = self._run(implementation, item)
            self._add(name, elapsed)
            owned = [t for t, _ in expected if getattr(t, "owner", None) is implementation]
            for target, wanted in expected:
                if wanted is None or (owned and target not in owned) or (
                        not owned and getattr(target, "owner", None) is not None):
                    continue
                verdict = (target.judge(item, outcome, seq) if target in owned  # type: ignore[attr-defined]
                           else with_causes(judge_pair(at_level(implementation.info, self.level),
                                                       target, outcome, wanted), outcome, wanted))
                if target in owned:  # a kind: the cause and the row it is about
                    tokens = kind_of(item.case.data, verdict, outcome, wanted)
                else:
                    tokens = frozenset(signature(item, verdict, outcome, wanted)) if (
                        signature is not None and verdict.status == "fail") else frozenset()
                if skips is not None:
                    rows = odd_rows(item.case.data, verdict, outcome, wanted)
                    verdict = skips.apply(verdict, name, target.label, item.case.id, tokens,
                                          rows)
                records.append(Record(seq, item.case.id, item.group, name, target.label,
                                      verdict, outcome, wanted, elapsed, tokens))
        return records

    def _add(self, name: str, seconds: float) -> None:
        calls, total = self.seconds.get(name, (0, 0.0))
        self.seconds[name] = (calls + 1, total + seconds)

    def close(self) -> None:
        closed: set[int] = set()
        parts: list[Any] = [*self.implementations,
                            *(t.implementation for t in self.targets if isinstance(t, Against))]
        for part in parts:
            if id(part) not in closed:
                closed.add(id(part))
                part.close()


def run_items(
    items: Iterable[Item],
    connect: Callable[[], Connections],
    *,
    jobs: int = 1,
    skips: SkipList | None = None,
    signature: Signer | None = None,
    first: Connections | None = None,
) -> Iterator[tuple[Item, list[Record]]]:
    """Each item with its records, in input order; ``jobs`` workers each with own connections.

    ``first`` is an already connected set to use as the first worker's.
    """
    numbered = list(enumerate(items, start=1))
    if jobs <= 1 or len(numbered) <= 1:
        connections = first or connect()
        try:
            size = connections.batch_size
            for start in range(0, len(numbered), size):
                chunk = numbered[start:start + size]
                connections.prefetch([item for _, item in chunk])
                for seq, item in chunk:
                    yield item, connections.check(seq, item, skips, signature)
        finally:
            if first is None:
                connections.close()
        return
    todo: queue.Queue[tuple[int, Item] | None] = queue.Queue()
    for pair in numbered:
        todo.put(pair)
    done: dict[int, tuple[Item, list[Record]]] = {}
    ready = threading.Condition()
    errors: list[BaseException] = []

    def work(connections: Connections | None) -> None:
        try:
            own = connections or connect()
        except BaseException as error:  # e.g. a harness that will not start
            with ready:
                errors.append(error)
                ready.notify_all()
            return
        try:
            size = own.batch_size
            while True:
                chunk = []
                with contextlib.suppress(queue.Empty):
                    while len(chunk) < size and (pair := todo.get_nowait()) is not None:
                        chunk.append(pair)
                if not chunk:
                    return
                own.prefetch([item for _, item in chunk])
                for seq, item in chunk:
                    result = (item, own.check(seq, item, skips, signature))
                    with ready:
                        done[seq] = result
                        ready.notify_all()
        finally:
            if connections is None:
                own.close()
            with ready:
                ready.notify_all()

    threads = [threading.Thread(target=work, args=(first if n == 0 else None,), daemon=True)
               for n in range(min(jobs, len(numbered)))]
    for thread in threads:
        thread.start()
    try:
        for seq, _ in numbered:
            with ready:
                while seq not in done:
                    if errors and not any(t.is_alive() for t in threads):
                        raise errors[0]
                    ready.wait(timeout=1.0)
                result = done.pop(seq)
            yield result
    finally:  # stopped early (Ctrl-C, SIGTERM): the workers start no further case
        while not todo.empty():
            todo.get_nowait()
    for thread in threads:
        thread.join()


def variant_id(case_id: str, options: Mapping[str, Any]) -> str:
    """A corpus case id, plus the non-default options in brackets (``b4[system]``; an
    entry point by its name, ``b4[continue]``)."""
    shown = []
    for name, default in DEFAULT_OPTIONS.items():
        value = options.get(name, default)
        if value != default:
            shown.append("system" if name == "include_system_messages" else f"{name}={value}")
    shown += [value if isinstance(value, str) else name for name, value in options.items()
              if name not in DEFAULT_OPTIONS and value not in (None, False, "resume-id")]
    return f"{case_id}[{','.join(shown)}]" if shown else case_id


def corpus_items(cases: Iterable[Any], profile: str, view: str = "session-messages",
                 selected: Sequence[str] = ()) -> list[Item]:
    """One item per corpus case and option set; ``selected`` globs filter by id: a case's
    (all its option sets), or one option set's (``b4[[]system]``, ``b4[system]`` as
    written, ``b4[]`` for the default options), so a replay runs that one alone.

    In a resume view (``api``/``chain``) the expectation joins the two recorded
    views: the ``api`` messages, and the ``chain`` entry as the answer's leaf;
    the options that are CLI switches go to the case's environment.
    """
    items = []
    for case in cases:
        whole = not selected or any(fnmatchcase(case.id, pattern) for pattern in selected)
        if not whole and not any(pattern.startswith(f"{case.id}[") for pattern in selected):
            continue
        data = case.input_bytes()
        recorded = _recorded(case, profile, view)
        group = case.tags[0] if case.tags else "corpus"
        for options in option_sets(case, profile, view):
            if not whole and not _chosen(variant_id(case.id, options), selected):
                continue
            expected = recorded.get(_options_key(options)) or Skipped(
                f"no expectation recorded for {profile}")
            env = {**dict(case.env), **(_switch_env(options) if view in RESUME_VIEWS else {})}
            case_input = CaseInput(variant_id(case.id, options), data, case.session_id,
                                   dict(options), env, view)  # type: ignore[arg-type]
            items.append(Item(case_input, group, expected, None, case))
    return items


def _chosen(identifier: str, selected: Sequence[str]) -> bool:
    """Whether one option set's id is selected: written out (``b4[]``: the default
    options, whose id is the case's), or matched as a glob."""
    return (identifier in selected or ("[" not in identifier and f"{identifier}[]" in selected)
            or any(fnmatchcase(identifier, p) for p in selected))


def option_sets(case: Any, profile: str, view: str) -> list[Mapping[str, Any]]:
    """The option sets a corpus case is run with in ``view``: an item each."""
    resume = view in RESUME_VIEWS or view in FORKED_VIEWS
    return list(_variants(case, profile) if resume else case.variants)


def _options_key(options: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(sorted(dict(options).items(), key=str))


def _recorded(case: Any, profile: str, view: str) -> dict[tuple[Any, ...], Outcome]:
    """options -> the recorded outcome of ``profile`` in ``view`` (both resume views joined,
    or both of a forked resume's)."""
    if view == FORKED_VIEWS[0]:
        rows = {_options_key(e.options): e for e in case.expectations_for(profile, view)}
        sent = {_options_key(e.options): e for e in case.expectations_for(profile, "api")}
        return {key: from_recorded(rows[key], sent[key]) for key in rows.keys() & sent.keys()}
    if view not in RESUME_VIEWS:
        return {_options_key(e.options): _outcome(e) for e in case.expectations_for(profile, view)}
    api = {_options_key(e.options): e for e in case.expectations_for(profile, "api")}
    chain = {_options_key(e.options): e for e in case.expectations_for(profile, "chain")}
    joined: dict[tuple[Any, ...], Outcome] = {}
    for key in api.keys() & chain.keys():
        if api[key].error is not None:
            joined[key] = _outcome(api[key])
            continue
        tip = chain[key].messages[0].get("uuid") if chain[key].messages else None
        joined[key] = Answered(tuple(api[key].messages), tip if isinstance(tip, str) else None)
    return joined


def _outcome(expectation: Any) -> Outcome:
    """A recorded expectation as an outcome: the messages, or the real reader's failure."""
    if expectation.error is None:
        return Answered(tuple(expectation.messages))
    message = str(expectation.error.get("message", ""))
    kind, colon, detail = message.partition(": ")
    if colon and kind.isidentifier():
        return Raised(kind, detail)
    return Raised("Error", message)


def _variants(case: Any, profile: str) -> list[Mapping[str, Any]]:
    """The case's option sets the CLI's resume can take (``getSessionMessages`` options at
    their defaults, the ``--resume <id>`` entry), plus those its resume expectations record."""
    recorded = [dict(e.options) for e in case.expectations_for(profile, "api")]
    found: list[Mapping[str, Any]] = []
    for options in case.variants:
        plain = all(options.get(name, value) == value for name, value in DEFAULT_OPTIONS.items())
        elsewhere = any(_but_entry(options) == _but_entry(r) and options != r for r in recorded)
        if (plain and options.get("entry", "resume-id") == "resume-id" and options not in found
                and not elsewhere):  # recorded at explicit entry points only: those
            found.append(dict(options))
    for options in recorded:
        if options not in found:
            found.append(options)
    return found


def _but_entry(options: Mapping[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in options.items() if name != "entry"}


def _switch_env(options: Mapping[str, Any]) -> dict[str, str]:
    """The environment variables a resume option stands for (the CLI reads switches there)."""
    return env_for_options(options)
