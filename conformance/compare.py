"""Compare two readers' answers the way a JavaScript program would see them.

Pure functions only. Messages are compared with ``line`` removed, each projected
onto the fields both sides claim to produce, and every number normalised to what
``JSON.parse`` would hold (a double): ``1.0 == 1``, ints beyond 2**53 round. NaN
and the infinities become null, as ``JSON.stringify`` writes them: every answer
crosses a JSON boundary, and ``1e400`` reaches us from JavaScript as null.
The first difference is reported as a JSON Pointer so a person can jump to it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rechain.conformance.report_bounds import clip, parted, shorten

Json = dict[str, Any]
MAX_SAFE = 2**53
DROPPED_KEYS = frozenset({"line"})


@dataclass(frozen=True, slots=True)
class Difference:
    """Where two answers first part ways: a JSON Pointer and the value on each side.

    ``left``/``right`` are ``MISSING`` when the path exists on one side only.
    """

    path: str
    left: Any
    right: Any

    def to_json(self) -> Json:
        """For a report: each side abbreviated (``report_bounds``), two long strings from
        where they part; the verdict was reached on the whole values."""
        if isinstance(self.left, str) and isinstance(self.right, str):
            left, right = parted(self.left, self.right)
            return {"path": clip(self.path), "left": left, "right": right}
        return {"path": clip(self.path), "left": _shown(self.left), "right": _shown(self.right)}


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()


def _shown(value: Any) -> Any:
    """A JSON-safe, bounded rendering of one side of a difference, for reports."""
    if value is MISSING:
        return {"$missing": True}
    if isinstance(value, str):
        return clip(value)
    return shorten(value)


def js_number(value: float | int) -> Any:
    """A number as a JavaScript double would hold it, in its canonical JSON form."""
    try:
        as_float = float(value)
    except OverflowError:
        as_float = math.inf if value > 0 else -math.inf
    if math.isnan(as_float) or math.isinf(as_float):
        return None
    if as_float.is_integer() and abs(as_float) < 1e21:
        return int(as_float)  # JSON.stringify prints these without a fraction or exponent
    return as_float


def normalise(value: Any) -> Any:
    """A parsed JSON value with every number in JavaScript form; iterative, any depth."""
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, root, 0)]
    while stack:
        item, holder, key = stack.pop()
        if isinstance(item, bool) or item is None or isinstance(item, str):
            holder[key] = item
        elif isinstance(item, int | float):
            holder[key] = js_number(item)
        elif isinstance(item, dict):
            copy: dict[str, Any] = {}
            holder[key] = copy
            stack.extend((member, copy, name) for name, member in item.items())
        elif isinstance(item, list | tuple):
            items: list[Any] = [None] * len(item)
            holder[key] = items
            stack.extend((member, items, index) for index, member in enumerate(item))
        else:
            holder[key] = str(item)
    return root[0]


def project(message: Mapping[str, Any], fields: frozenset[str] | None) -> Json:
    """One message without ``line`` and, when ``fields`` is given, only those keys."""
    return {
        key: value
        for key, value in message.items()
        if key not in DROPPED_KEYS and (fields is None or key in fields)
    }


def common_fields(*claims: frozenset[str] | None) -> frozenset[str] | None:
    """The message keys every side claims to produce (None: a side claims them all)."""
    known = [claim for claim in claims if claim is not None]
    if not known:
        return None
    shared = known[0]
    for claim in known[1:]:
        shared = shared & claim
    return shared


def canonical(messages: Iterable[Mapping[str, Any]], fields: frozenset[str] | None) -> list[Json]:
    """Messages ready for comparison: projected, then numbers normalised."""
    return [normalise(project(message, fields)) for message in messages]


def first_difference(left: Any, right: Any, path: str = "") -> Difference | None:
    """The first place (depth-first, in order) where two normalised values differ."""
    stack: list[tuple[Any, Any, str]] = [(left, right, path)]
    while stack:
        a, b, where = stack.pop()
        if isinstance(a, dict) and isinstance(b, dict):
            keys = list(a) + [k for k in b if k not in a]
            pending = []
            for key in keys:
                pointer = f"{where}/{_escape(key)}"
                pending.append((a.get(key, MISSING), b.get(key, MISSING), pointer))
            stack.extend(reversed(pending))
            continue
        if isinstance(a, list) and isinstance(b, list):
            pending = [
                (a[i] if i < len(a) else MISSING, b[i] if i < len(b) else MISSING, f"{where}/{i}")
                for i in range(max(len(a), len(b)))
            ]
            stack.extend(reversed(pending))
            continue
        if not _same_scalar(a, b):
            return Difference(where or "/", a, b)
    return None


def _same_scalar(a: Any, b: Any) -> bool:
    if a is MISSING or b is MISSING:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if _numeric(a, b):
        return bool(a == b)
    return type(a) is type(b) and a == b


def _numeric(a: Any, b: Any) -> bool:
    return isinstance(a, int | float) and isinstance(b, int | float)


def _escape(key: str) -> str:
    """RFC 6901 escaping of one pointer segment."""
    return str(key).replace("~", "~0").replace("/", "~1")


def uuids(messages: Sequence[Mapping[str, Any]]) -> list[Any]:
    """The ``uuid`` of each message, in order (what most divergences are about)."""
    return [message.get("uuid") for message in messages]


# --- verdicts ----------------------------------------------------------------------------

Status = str  # "pass" | "fail" | "crash" | "timeout" | "skip"
STATUSES = ("pass", "fail", "crash", "timeout", "skip")


@dataclass(frozen=True, slots=True)
class Verdict:
    """How one implementation's outcome on one case compares with what was expected."""

    status: Status
    message: str = ""
    difference: Difference | None = None
    causes: tuple[str, ...] = ()  # why it failed, first the one reported (see ``causes.py``)
    #: (cause, the file row's uuid, the reader's row index) of each row a reader without
    #: uuids loses, adds, merges or shows with other content: its rows cannot be named by
    #: uuid, so the judge that paired them says which they are (``contracts.pairing``)
    rows: tuple[tuple[str, str | None, int | None], ...] = ()
    #: (cause, words, difference) of the first row of each cause but the one ``message`` and
    #: ``difference`` tell, when a judge knows them: a skip that accepts the cause a
    #: verdict leads with leads with the next one left, not with a row it accepts
    leads: tuple[tuple[str, str, Difference | None], ...] = ()

    @property
    def cause(self) -> str | None:
        """The cause a report shows: the first of ``causes``, else from the status."""
        if self.causes:
            return self.causes[0]
        return self.status if self.status in ("crash", "timeout") else None


def judge(
    got: Any, expected: Any, fields: frozenset[str] | None = None, *, leaf_only: bool = False
) -> Verdict:
    """Compare two ``protocol`` outcomes (``got`` from the implementation under test).

    Raising is an answer: both raising agrees, whatever the error types (they are
    language-specific). An expectation that is itself a crash, timeout or skip
    cannot judge anything, so the case is skipped with that reason. ``leaf_only``
    compares readers of different views (the CLI's resume, the SDKs' session
    messages) by the entry each continues from; raising and an empty answer both
    mean "no conversation" there.
    """
    from rechain.conformance import protocol as p

    early = _not_answers(got, expected)
    if early is not None:
        return early
    if leaf_only:
        mine, theirs = leaf_of(got), leaf_of(expected)
        if mine == theirs:
            return Verdict("pass")
        return Verdict("fail", "continues from another entry",
                       Difference("/leaf", MISSING if mine is None else mine,
                                  MISSING if theirs is None else theirs))
    if isinstance(got, p.Raised) and isinstance(expected, p.Raised):
        return Verdict("pass", f"both raised ({got.type} / {expected.type})")
    if isinstance(got, p.Raised) or isinstance(expected, p.Raised):
        left = f"raised {got.type}: {got.message}" if isinstance(got, p.Raised) else (
            f"{len(got.messages)} messages")
        right = f"raised {expected.type}: {expected.message}" if isinstance(
            expected, p.Raised) else f"{len(expected.messages)} messages"
        return Verdict("fail", "one side raised", Difference("/", left[:300], right[:300]))
    chain_a, chain_b = uuids(got.messages), uuids(expected.messages)
    if chain_a != chain_b:
        where = next((i for i, (a, b) in enumerate(zip(chain_a, chain_b, strict=False)) if a != b),
                     min(len(chain_a), len(chain_b)))
        return Verdict("fail", "different chain", Difference(
            f"/messages/{where}/uuid",
            chain_a[where] if where < len(chain_a) else MISSING,
            chain_b[where] if where < len(chain_b) else MISSING,
        ))
    left = canonical(got.messages, fields)
    right = canonical(expected.messages, fields)
    difference = first_difference(left, right, "/messages")
    if difference is not None:
        return Verdict("fail", "same chain, different messages", difference)
    return Verdict("pass")


def judge_resume(got: Any, expected: Any, *, api: bool = True, chain: bool = True) -> Verdict:
    """Compare two answers in the CLI's resume views, on what both sides report.

    ``chain`` compares the entry the new prompt is chained to (the answers'
    ``leaf``; the difference is at ``/leaf``), ``api`` the request's messages
    exactly (numbers as JavaScript holds them, ``line`` ignored). Raising and an
    empty answer both mean "no conversation" (the CLI exits 1 where a library
    answers nothing), so they agree with each other.
    """
    from rechain.conformance import protocol as p

    early = _not_answers(got, expected)
    if early is not None:
        return early
    mine, theirs = _resumed(got), _resumed(expected)
    if chain and mine[1] != theirs[1]:
        return Verdict("fail", "continues from another entry", Difference(
            "/leaf", MISSING if mine[1] is None else mine[1],
            MISSING if theirs[1] is None else theirs[1]))
    if api:
        difference = first_difference(canonical(mine[0], None), canonical(theirs[0], None),
                                      "/messages")
        if difference is not None:
            return Verdict("fail", "different api messages", difference)
    both = isinstance(got, p.Raised) and isinstance(expected, p.Raised)
    return Verdict("pass", "both found no conversation" if both else "")


def _not_answers(got: Any, expected: Any) -> Verdict | None:
    """The verdict when either side did not answer (skip, crash, timeout), else None."""
    from rechain.conformance import protocol as p

    if isinstance(got, p.Skipped):
        return Verdict("skip", got.message)
    if isinstance(got, p.Crashed):
        return Verdict("crash", got.message)
    if isinstance(got, p.TimedOut):
        return Verdict("timeout", f"no answer within {got.seconds:g} s")
    if isinstance(expected, p.Skipped | p.Crashed | p.TimedOut):
        return Verdict("skip", f"the other side {expected.status}: {_reason(expected)}")
    return None


def _resumed(outcome: Any) -> tuple[Sequence[Mapping[str, Any]], str | None]:
    """(messages, leaf) of an answer; raising is no conversation: ``((), None)``."""
    from rechain.conformance import protocol as p

    if isinstance(outcome, p.Answered):
        return outcome.messages, outcome.leaf
    return (), None


def leaf_of(outcome: Any) -> str | None:
    """The entry a reader's answer ends at: its ``leaf`` if it says, else its last message."""
    from rechain.conformance import protocol as p

    if not isinstance(outcome, p.Answered):
        return None
    if outcome.leaf is not None:
        return outcome.leaf
    last = outcome.messages[-1].get("uuid") if outcome.messages else None
    return last if isinstance(last, str) else None


def _reason(outcome: Any) -> str:
    return str(getattr(outcome, "message", "") or getattr(outcome, "seconds", ""))[:200]
