"""Generated transcripts through two readers; every disagreement shrunk by Hypothesis.

Three steps, so the slow part can run in parallel and the shrink stays exact:

1. ``generate`` draws N values from a strategy (Hypothesis, fixed seed, no
   database): the same seed always gives the same N transcripts.
2. The runner checks them (any number of jobs). Each disagreement gets a
   ``signature``: tokens saying what kind of entry each side has that the other
   lacks, which field differs, or who raised, so a sweep groups thousands of
   failures into a few kinds.
3. ``shrink`` replays the same seed with a test that skips ahead to the first
   example of one signature, and fails only while that signature persists;
   Hypothesis shrinks it, and the minimal transcript comes back.

With an example database, ``shrink`` saves the minimal example there (as any
failing Hypothesis test does) and ``saved`` reads such examples back before the
next sweep. All three build their test with ``_example_test``, so they share one
Hypothesis database key.
"""

from __future__ import annotations

import hashlib
import unittest
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.database import ExampleDatabase, ReadOnlyDatabase
from hypothesis.errors import HypothesisWarning

from rechain.conformance.compare import Verdict
from rechain.conformance.protocol import (
    DEFAULT_OPTIONS,
    Answered,
    CaseInput,
    Outcome,
    Raised,
    View,
)
from rechain.conformance.runner import Item
from rechain.reference import Options
from rechain.strategies.views import visible

Json = dict[str, Any]
_CHAIN_FLAGS = (("isMeta", "meta"), ("isSidechain", "sidechain"), ("isCompactSummary", "summary"),
                ("teamName", "team"), ("closesQuietTurn", "quiet"))
_LEADING = bytes(range(0x21))


class _FoundError(Exception):
    """Raised inside the Hypothesis test to mark (and carry) a disagreeing example."""

    def __init__(self, value: Any) -> None:
        super().__init__("disagreement")
        self.value = value


def _settings(examples: int, *, shrink: bool, database: ExampleDatabase | None = None,
              phases: Sequence[Phase] | None = None) -> settings:
    if phases is None:
        phases = (Phase.generate, Phase.shrink) if shrink else (Phase.generate,)
    return settings(
        database=database,
        max_examples=max(examples, 1),
        deadline=None,
        phases=phases,
        derandomize=False,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        print_blob=False,
    )


def _example_test(strategy: st.SearchStrategy[Any], chosen: settings, seed: int | None,
                  body: Callable[[Any], None]) -> Callable[[], None]:
    """A Hypothesis test running ``body`` on each value; every caller gets the same source,
    hence the same database key (what ``shrink`` saves, ``saved`` finds)."""

    def rechain_example(value: Any) -> None:
        body(value)

    test = given(strategy)(rechain_example)
    if seed is not None:
        test = hypothesis_seed(seed)(test)
    return chosen(test)  # type: ignore[no-any-return]


def generate(strategy: st.SearchStrategy[Any], examples: int, seed: int) -> list[Any]:
    """The first ``examples`` values Hypothesis draws from ``strategy`` with ``seed``."""
    drawn: list[Any] = []
    _example_test(strategy, _settings(examples, shrink=False), seed, drawn.append)()
    return drawn[:examples]


def saved(strategy: st.SearchStrategy[Any], database: ExampleDatabase) -> list[Any]:
    """The values of the examples ``shrink`` saved in ``database``, smallest first.

    Hypothesis' reuse phase replays them (the saved failure first, then earlier
    failing examples); read-only, so replaying never deletes an entry."""
    found: list[Any] = []
    chosen = _settings(1, shrink=False, database=ReadOnlyDatabase(database),
                       phases=(Phase.reuse,))
    try:
        _example_test(strategy, chosen, None, found.append)()
    except unittest.SkipTest:  # nothing saved: Hypothesis ran no example at all
        return []
    return found


def shrink(
    strategy: st.SearchStrategy[Any],
    examples: int,
    seed: int,
    start: int,
    fails: Callable[[Any], bool],
    first: bytes | None = None,
    database: ExampleDatabase | None = None,
) -> tuple[Any, int] | None:
    """The minimal value for which ``fails`` holds, and how many calls it took.

    Replays ``generate``'s sequence; values before index ``start`` are passed
    without running ``fails`` (they agreed in the sweep), so only the shrink
    costs reader calls. ``first`` (the bytes of value ``start``) guards the
    replay: if generation diverged, every value is evaluated instead. The
    minimal example is saved in ``database`` when one is given.
    """
    state = {"calls": 0, "index": -1, "evaluate_all": False}

    def check(value: Any) -> None:
        state["index"] += 1
        index = state["index"]
        if index < start and not state["evaluate_all"]:
            return
        if index == start and first is not None and value.to_bytes() != first:
            state["evaluate_all"] = True
        state["calls"] += 1
        if fails(value):
            raise _FoundError(value)

    try:
        with warnings.catch_warnings():
            # Hypothesis words the falsifying example even when quiet; a long transcript's
            # repr makes it warn on rechain's stderr about a text nobody is shown
            warnings.filterwarnings("ignore", "Generating overly large repr",
                                    HypothesisWarning)
            _example_test(strategy, _settings(examples, shrink=True, database=database),
                          seed, check)()
    except _FoundError as found:
        return found.value, int(state["calls"])
    return None


# --- signatures ---------------------------------------------------------------------------


def entry_features(data: bytes) -> dict[str, str]:
    """uuid -> a short description of its (last) line: type, subtype and flags.

    ``+lenient`` marks a line that strict JSON (what JavaScript's JSON.parse
    accepts) rejects, so a reader that kept it parsed leniently.
    """
    import json

    features: dict[str, str] = {}
    for raw in data.split(b"\n"):
        body = raw.lstrip(_LEADING)
        strict = True
        try:
            value = orjson.loads(body)
        except orjson.JSONDecodeError:
            strict = False
            value = None
            for piece in raw.replace(b"\r", b"\n").split(b"\n"):
                try:
                    value = json.loads(piece.decode("utf-8", "replace").strip())
                except ValueError:
                    continue
                if isinstance(value, dict) and isinstance(value.get("uuid"), str):
                    features[value["uuid"]] = describe(value, strict=False)
            continue
        if isinstance(value, dict) and isinstance(value.get("uuid"), str):
            features[value["uuid"]] = describe(value, strict=strict)
    return features


def describe(entry: Json, *, strict: bool = True) -> str:
    """``type[:subtype]`` plus flags, e.g. ``attachment:queued_command`` or ``user+meta``."""
    kind = str(entry.get("type"))
    sub = entry.get("subtype")
    attachment = entry.get("attachment")
    if isinstance(attachment, dict) and isinstance(attachment.get("type"), str):
        sub = attachment["type"]
    text = f"{kind}:{sub}" if isinstance(sub, str) else kind
    text += "".join(f"+{name}" for key, name in _CHAIN_FLAGS if entry.get(key))
    return text if strict else text + "+lenient"


def signature(data: bytes, verdict: Verdict, got: Outcome, expected: Outcome) -> frozenset[str]:
    """What kind of disagreement a failing verdict is, as tokens (empty unless it failed)."""
    if verdict.status != "fail":
        return frozenset()
    if verdict.difference is not None and verdict.difference.path == "/leaf":
        features = entry_features(data)
        sides = (("left", verdict.difference.left), ("right", verdict.difference.right))
        return frozenset({f"leaf-{side}:{features.get(str(uuid), 'none')}" for side, uuid in sides}
                         | {f"tail:{_tail(data)}"})
    if isinstance(got, Raised):
        return frozenset({f"raised:left:{got.type}"})
    if isinstance(expected, Raised):
        return frozenset({f"raised:right:{expected.type}"})
    if not isinstance(got, Answered) or not isinstance(expected, Answered):
        return frozenset({"other"})
    if verdict.message == "different api messages":
        return api_signature(verdict, got, expected)
    left = [m.get("uuid") for m in got.messages]
    right = [m.get("uuid") for m in expected.messages]
    if left == right:
        parts = (verdict.difference.path if verdict.difference else "").split("/")
        return frozenset({f"field:{parts[3] if len(parts) > 3 else '?'}"})
    features = entry_features(data)
    only_left = set(map(str, left)) - set(map(str, right))
    only_right = set(map(str, right)) - set(map(str, left))
    tokens = {f"only-left:{features.get(u, 'unknown')}" for u in only_left}
    if any(text.endswith("+lenient") for text in features.values()):
        tokens.add("file:lenient-lines")
    tokens |= {f"only-right:{features.get(u, 'unknown')}" for u in only_right}
    if not only_left and not only_right:
        tokens.add("order" if sorted(map(str, left)) == sorted(map(str, right)) else "repeats")
    if only_left and only_right:
        tokens.add(f"tail:{_tail(data)}")
    return frozenset(_core(tokens))


def api_signature(verdict: Verdict, got: Answered, expected: Answered) -> frozenset[str]:
    """Kinds of disagreement in the ``api`` view: where the first difference lies (indices
    dropped), and what each side has there (a role, a block type, a value's JSON type)."""
    difference = verdict.difference
    if difference is None:
        return frozenset({"api:?"})
    parts = difference.path.strip("/").split("/")
    shape = "/".join("*" if part.isdigit() else part for part in parts[:5])
    tokens = {f"api:{shape}"}
    if len(parts) >= 2 and parts[1].isdigit():
        index = int(parts[1])
        tokens |= {f"api-{side}:{_api_kind(messages, index, parts)}" for side, messages in
                   (("left", got.messages), ("right", expected.messages))}
    return frozenset(tokens)


def _api_kind(messages: Sequence[Json], index: int, parts: Sequence[str]) -> str:
    """``role`` of message ``index`` and, when the path goes into one block, its type."""
    if index >= len(messages):
        return "none"
    message = messages[index]
    kind = str(message.get("role"))
    content = message.get("content")
    if len(parts) >= 4 and parts[3].isdigit() and isinstance(content, list):
        block = int(parts[3])
        found = content[block] if block < len(content) else None
        kind += f":{found.get('type') if isinstance(found, dict) else 'none'}"
    return kind


def _core(tokens: set[str]) -> set[str]:
    """Drop plain ``user``/``assistant`` tokens when a more specific one explains them.

    A lenient line or a queued command that one side keeps usually drags plain
    messages along (the chain behind it); those are consequences, and keeping
    them would split one cause into many kinds.
    """
    plain = {t for t in tokens if t.startswith("only-") and t.split(":", 1)[1] in
             ("user", "assistant")}
    specific = {t for t in tokens if t.startswith("only-") and t not in plain}
    return tokens - plain if specific else tokens


def _tail(data: bytes) -> str:
    """The kind of the last line that is an entry (where the SDKs start looking for a leaf)."""
    last = "none"
    for raw in data.split(b"\n"):
        try:
            value = orjson.loads(raw.lstrip(_LEADING))
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict) and isinstance(value.get("uuid"), str):
            last = describe(value)
    return last


def slug(tokens: Iterable[str]) -> str:
    """A short kebab-case name for a signature, for case ids."""
    words = []
    for token in sorted(tokens):
        if token.startswith("tail:"):
            continue
        words.append(token.replace("only-left:", "l-").replace("only-right:", "r-")
                     .replace("raised:left:", "raises-l-").replace("raised:right:", "raises-r-"))
    text = "-".join(words).lower()
    clean = "".join(c if c.isalnum() else "-" for c in text)
    return "-".join(part for part in clean.split("-") if part)[:40].strip("-") or "diff"


@dataclass(frozen=True, slots=True)
class Disagreement:
    """One shrunk disagreement between an implementation and a target."""

    implementation: str
    against: str
    signature: frozenset[str]
    data: bytes
    session_id: str
    got: Outcome
    expected: Outcome
    seen: int  # sweep examples with this signature
    first_index: int
    shrink_calls: int

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.data).hexdigest()[:8]


# --- generated items --------------------------------------------------------------------


def strategy_for(kind: str) -> st.SearchStrategy[Any]:
    """The strategy behind a generated group: ``generated`` (valid) or ``corrupted``."""
    from rechain.strategies import corrupted, transcripts

    base = transcripts()
    return corrupted(base) if kind == "corrupted" else base


def session_of(value: Any) -> str:
    """The session id a generated value was written for."""
    sid = getattr(value, "session_id", None)
    if sid is None and hasattr(value, "clean"):
        sid = value.clean.session_id
    return str(sid)


def intended_of(
    value: Any, profile: str, options: Mapping[str, Any]
) -> tuple[str, ...] | str | None:
    """The uuids ``profile``'s view shows of what the generator intended; a reason string when
    the generator leaves it undetermined; None when no view is known for the profile."""
    chosen = Options(include_system_messages=bool(options.get("include_system_messages")),
                     limit=options.get("limit"), offset=int(options.get("offset") or 0))
    try:
        if hasattr(value, "clean") and value.intended is None:
            return str(value.undetermined or "undetermined")
        # ``entry`` finds the last line a reader keeps for a uuid (not a damaged copy)
        return tuple(visible(value.intended, value.entry, profile, chosen))
    except (ValueError, KeyError):
        return None


def generated_id(kind: str, index: int) -> str:
    """The case id of the ``index``-th transcript of a generated group: ``gen-00003``."""
    return f"{kind[:3]}-{index:05d}"


def make_item(value: Any, kind: str, index: int, profile: str,
              options: Mapping[str, Any] | None = None, view: View = "session-messages") -> Item:
    """A runner item for one generated value, asked in ``view``.

    What the generator intended is a list of session messages, so only items in
    that view carry it.
    """
    chosen = dict(options or DEFAULT_OPTIONS)
    case = CaseInput(generated_id(kind, index), value.to_bytes(), session_of(value), chosen,
                     view=view)
    intended = intended_of(value, profile, chosen) if view == "session-messages" else None
    return Item(case, kind, None, intended, value)


# --- freezing a disagreement as a corpus case ---------------------------------------------

#: oracle name -> the expectation profile its output is recorded under (a reference profile:
#: the corpus test rebuilds every expectation with ``get_profile(profile)``)
RECORDED_PROFILES = {"agent-sdk-ts": "agent-sdk@0.3.332", "claude-code": "claude-code@2.1.332"}
#: profiles recorded in the resume views (``api`` messages, ``chain`` = the leaf as {type, uuid})
RESUME_PROFILES = frozenset({"claude-code@2.1.332"})
_SHORT = {"agent-sdk-ts": "ts", "agent-sdk-py": "py", "reference": "ref", "claude-code": "cli"}
_TAG_HINTS = (
    ("UnicodeDecodeError", "invalid-utf8"), ("+lenient", "parse"),
    ("queued_command", "queued-command"), ("compact_boundary", "compaction"),
    ("+summary", "compact-summary"), ("+meta", "meta"), ("+sidechain", "sidechain"),
    ("+team", "team"), ("system", "system"), ("progress", "progress"), ("tail:", "leaf-choice"),
    ("+quiet", "closes-quiet-turn"), ("attachment", "attachment"), ("raised", "parse"),
)


def short_name(label: str) -> str:
    """``agent-sdk-py@0.2.189 …`` -> ``py``: the part of a case id naming one side."""
    name = label.split("@", 1)[0].split(":", 1)[0].strip()
    clean = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")
    return _SHORT.get(name, clean or "impl")


def case_id(disagreement: Disagreement, also: Sequence[Disagreement] = ()) -> str:
    """``diff-<impl>-vs-<against>[-<against>…]-<kind>-<sha8>``, kebab-case: reader names
    whole (two readers' cases never collide), the kind cut so the id stays near 80
    characters; ``also`` are the other comparisons that failed on the same input."""
    every = [disagreement, *also]
    readers = "-".join(dict.fromkeys(short_name(d.implementation) for d in every))
    targets = "-".join(dict.fromkeys(short_name(d.against) for d in every))
    head = f"diff-{readers}-vs-{targets}"
    room = max(80 - len(head) - 10, 8)
    kind = slug(disagreement.signature)[:room].strip("-")
    return f"{head}-{kind}-{disagreement.digest}"


def tags_for(tokens: Iterable[str]) -> list[str]:
    """Corpus feature tags suggested by a signature (``basic`` when nothing specific)."""
    found: list[str] = []
    for token in sorted(tokens):
        for hint, tag in _TAG_HINTS:
            if hint in token and tag not in found:
                found.append(tag)
    return found or ["basic"]


def replay_command(impl_spec: str | Sequence[str], against_spec: str | None, corpus: str | None,
                   case: str, cwd: Path, venv: Path | None = None,
                   judged_as: Sequence[str] = (), program: Sequence[str] | None = None) -> str:
    """The one line that re-runs a frozen case, from any directory (specs given in ``cwd``;
    several readers under test are all named; ``venv``, the interpreter of ``python:``
    readers; ``judged_as``, the run's options that decide the verdict: profile, contract...;
    ``corpus`` None: the packaged corpus, named by no option).
    ``program`` starts it: by default ``portable.program()``, the words that run this
    rechain now; ``portable.PORTABLE`` for a line stored in a case file that travels."""
    from rechain import portable

    parts = [*(portable.program() if program is None else program), "check"]
    env: dict[str, str] = {}
    for spec in [impl_spec] if isinstance(impl_spec, str) else impl_spec:
        impl = portable.spec(spec, cwd)
        parts += ["--impl", impl.text]
        env.update(impl.env)
    if against_spec:
        against = portable.spec(against_spec, cwd)
        parts += ["--against", against.text]
        env.update(against.env)
    parts += [*judged_as, *(["--corpus", portable.path(corpus, cwd)] if corpus is not None else []),
              "--case", case]
    if venv is not None:
        parts += ["--venv", portable.path(venv, cwd)]
    return portable.command(parts, env)


def case_document(
    disagreement: Disagreement,
    *,
    identifier: str,
    recorded: Mapping[str, tuple[str, Outcome]],
    options: Mapping[str, Any],
    seed: int,
    kind: str,
    replay: str,
    today: str,
    rechain_version: str,
    also: Sequence[Disagreement] = (),
) -> Json:
    """case.json for a shrunk disagreement (``rechain/schemas/case.json``).

    ``recorded`` maps an expectation profile to (oracle slug, outcome): only real
    readers' answers in a reference profile become expectations; what both sides
    answered is kept in the provenance (uuids, or the error raised). ``also`` are the
    other comparisons that failed on the same input: one case holds them all, listed in
    ``provenance.differential.comparisons``.
    """
    expectations = []
    notes = []
    for profile, (slug_text, outcome) in sorted(recorded.items()):
        name, _, version = slug_text.partition("@")
        oracle = _package(name)
        if profile in RESUME_PROFILES:  # recorded as ``rechain corpus record`` names it
            provenance = {"oracle": name, "version": version,
                          "recorded_by": "rechain check", "recorded_at": today}
            expectations += resume_expectations(profile, disagreement.data, outcome, options,
                                                provenance)
        elif isinstance(outcome, Answered):
            expectations.append({
                "profile": profile, "view": "session-messages", "options": dict(options),
                "messages": [{k: v for k, v in m.items() if k != "line"} for m in outcome.messages],
                "provenance": {"oracle": oracle, "version": version,
                               "recorded_by": "rechain check", "recorded_at": today},
            })
        elif isinstance(outcome, Raised):
            notes.append(f"{slug_text} raised {outcome.type}: {outcome.message[:120]}")
    every = [disagreement, *also]
    tags = tags_for(frozenset().union(*(d.signature for d in every)))
    if not any(e["profile"] == RECORDED_PROFILES["agent-sdk-ts"] for e in expectations):
        tags.append("unrecorded")
    strategy = "corrupted(transcripts())" if kind == "corrupted" else "transcripts()"
    what = ", ".join(sorted(t for t in disagreement.signature if not t.startswith("tail:")))
    against = " and ".join(dict.fromkeys(short_name(d.against) for d in every))
    description = (f"{short_name(disagreement.implementation)} disagrees with "
                   f"{against}: {what}")[:130]
    return {
        "id": identifier,
        "description": f"{description} ({disagreement.digest})",
        "tags": tags,
        "session_id": disagreement.session_id,
        **({} if dict(options) == dict(DEFAULT_OPTIONS) else {"variants": [dict(options)]}),
        "expectations": expectations,
        "provenance": {
            "source": "generated",
            "generator": f"rechain {rechain_version} check: rechain.strategies.{strategy}",
            "seed": seed,
            "notes": "; ".join([f"shrunk by Hypothesis from example {disagreement.first_index} "
                                f"of the sweep ({disagreement.seen} examples of this kind)",
                                *notes]),
            "differential": {
                "implementation": disagreement.implementation,
                "against": disagreement.against,
                "rechain": rechain_version,
                "signature": sorted(disagreement.signature),
                "answers": {side: answer for d in every for side, answer in (
                    (d.implementation, _answer(d.got)), (d.against, _answer(d.expected)))},
                "comparisons": [{"implementation": d.implementation, "against": d.against,
                                 "signature": sorted(d.signature), "seen": d.seen}
                                for d in every],
                "replay": replay,
            },
        },
    }


def resume_expectations(profile: str, data: bytes, outcome: Outcome,
                        options: Mapping[str, Any], provenance: Json) -> list[Json]:
    """The ``api`` and ``chain`` expectations of a CLI answer (raising: no conversation)."""
    from rechain.conformance.record_cli import row_type

    answered = isinstance(outcome, Answered)
    messages = list(outcome.messages) if isinstance(outcome, Answered) else []
    leaf = outcome.leaf if isinstance(outcome, Answered) else None
    if not answered and not isinstance(outcome, Raised):
        return []
    chain = [{"type": row_type(data, leaf), "uuid": leaf}] if leaf is not None else []
    return [{"profile": profile, "view": view, "options": dict(options), "messages": shown,
             "provenance": dict(provenance)}
            for view, shown in (("api", messages), ("chain", chain))]


def _package(oracle: str) -> str:
    """The registry package an oracle runs (how corpus expectations name their oracle)."""
    from rechain.conformance.oracles.registry import REGISTRY

    spec = REGISTRY.get(oracle)
    return spec.package if spec is not None else oracle


def _answer(outcome: Outcome) -> Json:
    """What one side answered, compactly: the uuids in order, or the error it raised; a
    runaway answer abbreviated as reports abbreviate it (the replay runs the reader again)."""
    from rechain.conformance.report_bounds import clip, head

    if isinstance(outcome, Answered):
        uuids = [m.get("uuid") for m in outcome.messages]
        shown: Json = ({"uuids": head(uuids)} if all(isinstance(u, str) for u in uuids)
                       else {"messages": len(uuids)})  # the resume view has no uuids
        leaf = outcome.leaf
        return {**shown, **({"leaf": clip(leaf)} if leaf is not None else {})}
    if isinstance(outcome, Raised):
        return {"raised": clip(outcome.type), "message": clip(outcome.message, 200)}
    return {"status": str(getattr(outcome, "status", "?"))}
