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
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from rechain.conformance.compare import Verdict
from rechain.conformance.protocol import Answered, Outcome, Raised

Json = dict[str, Any]
_CHAIN_FLAGS = (("isMeta", "meta"), ("isSidechain", "sidechain"), ("isCompactSummary", "summary"),
                ("teamName", "team"), ("closesQuietTurn", "quiet"))
_LEADING = bytes(range(0x21))


class _FoundError(Exception):
    """Raised inside the Hypothesis test to mark (and carry) a disagreeing example."""

    def __init__(self, value: Any) -> None:
        super().__init__("disagreement")
        self.value = value


def _settings(examples: int, *, shrink: bool) -> settings:
    phases = (Phase.generate, Phase.shrink) if shrink else (Phase.generate,)
    return settings(
        database=None,
        max_examples=max(examples, 1),
        deadline=None,
        phases=phases,
        derandomize=False,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        print_blob=False,
    )


def generate(strategy: st.SearchStrategy[Any], examples: int, seed: int) -> list[Any]:
    """The first ``examples`` values Hypothesis draws from ``strategy`` with ``seed``."""
    drawn: list[Any] = []

    @_settings(examples, shrink=False)
    @hypothesis_seed(seed)
    @given(strategy)
    def collect(value: Any) -> None:
        drawn.append(value)

    collect()
    return drawn[:examples]


def shrink(
    strategy: st.SearchStrategy[Any],
    examples: int,
    seed: int,
    start: int,
    fails: Callable[[Any], bool],
    first: bytes | None = None,
) -> tuple[Any, int] | None:
    """The minimal value for which ``fails`` holds, and how many calls it took.

    Replays ``generate``'s sequence; values before index ``start`` are passed
    without running ``fails`` (they agreed in the sweep), so only the shrink
    costs reader calls. ``first`` (the bytes of value ``start``) guards the
    replay: if generation diverged, every value is evaluated instead.
    """
    state = {"calls": 0, "index": -1, "evaluate_all": False}

    @_settings(examples, shrink=True)
    @hypothesis_seed(seed)
    @given(strategy)
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
        check()
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
    if isinstance(got, Raised):
        return frozenset({f"raised:left:{got.type}"})
    if isinstance(expected, Raised):
        return frozenset({f"raised:right:{expected.type}"})
    if not isinstance(got, Answered) or not isinstance(expected, Answered):
        return frozenset({"other"})
    left = [m.get("uuid") for m in got.messages]
    right = [m.get("uuid") for m in expected.messages]
    if left == right:
        parts = (verdict.difference.path if verdict.difference else "").split("/")
        return frozenset({f"field:{parts[3] if len(parts) > 3 else '?'}"})
    features = entry_features(data)
    only_left = set(map(str, left)) - set(map(str, right))
    only_right = set(map(str, right)) - set(map(str, left))
    tokens = {f"only-left:{features.get(u, 'unknown')}" for u in only_left}
    tokens |= {f"only-right:{features.get(u, 'unknown')}" for u in only_right}
    if not only_left and not only_right:
        tokens.add("order" if sorted(map(str, left)) == sorted(map(str, right)) else "repeats")
    if only_left and only_right:
        tokens.add(f"tail:{_tail(data)}")
    return frozenset(tokens)


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


def group_first(
    signatures: Sequence[tuple[int, frozenset[str]]],
) -> dict[frozenset[str], tuple[int, int]]:
    """signature -> (index of its first example, how many examples had it), sweep order."""
    found: dict[frozenset[str], tuple[int, int]] = {}
    for index, tokens in signatures:
        if not tokens:
            continue
        first, count = found.get(tokens, (index, 0))
        found[tokens] = (first, count + 1)
    return found
