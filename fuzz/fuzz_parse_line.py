"""Harnesses: the reference's line parser (``parse.parse_sdk`` and ``jsonparse.parse_line``).

``one_input``: the SDK line parser on one line; contract: it classifies the
line (entry or a diagnostic) and never raises. ``json_one_input``:
``parse_line`` returns ``(value, replaced)`` or raises ``JsonError``,
nothing else; on top, a differential check against the standard library's
``json`` for valid UTF-8: both accept or both refuse, and agree on the value,
masking what JavaScript's ``JSON.parse`` does differently from Python
(``NaN``/``Infinity`` refused, integers past 2**53 read as doubles) and depths
the stdlib cannot reach. Lines orjson (strict RFC 8259) accepts are not
compared: the check is for the reference's own fallback parser, and skipping
it keeps the harness fast.

Run: ``rechain fuzz parse-line`` / ``parse-line-json``, or OSS-Fuzz style
``python -m rechain.fuzz.fuzz_parse_line [libFuzzer flags]``.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

import orjson

from rechain.fuzz.contract import ONE_LINE, harness
from rechain.reference.js.jsonparse import JsonError, parse_line
from rechain.reference.parse import parse_sdk


class DisagreementError(AssertionError):
    """The reference and the stdlib parser disagree on a line (outside the known masks)."""


def _compare(data: bytes, accepted: bool, value: Any, replaced: bool) -> None:
    """The reference's own parser against ``json`` on a line orjson refused."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    if replaced:
        raise DisagreementError("valid UTF-8 reported as replaced")
    try:
        expected_ok, expected = _stdlib(text)
    except RecursionError:
        return  # deeper than the stdlib goes: no oracle
    if expected_ok != accepted:
        raise DisagreementError(f"reference accepted={accepted}, json accepted={expected_ok}")
    if accepted and not same(value, expected):
        raise DisagreementError("reference and json read different values")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"JSON.parse refuses {name}")


def _stdlib(text: str) -> tuple[bool, Any]:
    """(accepted, value) from ``json.loads`` with JavaScript's refusals; None when unknowable."""
    try:
        return True, json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise
    except ValueError:
        return False, None


def _double(number: float) -> float:
    """The double JavaScript reads for a number (huge integers overflow to infinity)."""
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def same(a: Any, b: Any) -> bool:
    """Equal as JavaScript values: numbers compare as doubles, containers element-wise."""
    if a == b:  # the common case, compared in C
        return True
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        tx, ty = type(x), type(y)
        if tx in (int, float) and ty in (int, float):
            if _double(x) != _double(y):
                return False
        elif tx is not ty:
            return False
        elif tx is dict:
            if x.keys() != y.keys():
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif tx is list:
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif x != y:
            return False
    return True


@harness(
    **ONE_LINE,
    description="SDK line parser: classifies every line, never raises",
)
def one_input(data: bytes) -> None:
    parse_sdk([(1, data)])


@harness(
    **ONE_LINE,
    description="parse_line: JsonError only, agrees with json where orjson refuses",
)
def json_one_input(data: bytes) -> None:
    try:
        orjson.loads(data)
        trusted = True  # orjson is strict RFC 8259: nothing to compare
    except (orjson.JSONDecodeError, RecursionError):
        trusted = False
    try:
        value, replaced = parse_line(data)
        accepted = True
    except JsonError:
        value, replaced, accepted = None, False, False
    if not trusted:
        _compare(data, accepted, value, replaced)


if __name__ == "__main__":
    from rechain.fuzz.worker import exec_harness

    exec_harness("rechain.fuzz.fuzz_parse_line:one_input", sys.argv[1:])
