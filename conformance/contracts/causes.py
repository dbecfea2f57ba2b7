"""Causes for the plain comparison (no contract): which kind of difference a failure is."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Hashable
from typing import Any

from rechain.conformance.compare import Verdict
from rechain.conformance.contracts.judge import ordered
from rechain.conformance.protocol import Answered, Raised


def _identity(uuid: Any) -> Hashable:
    """A message's ``uuid`` as a key: a reader may answer any JSON value there (an object,
    a list), and a wrong answer is judged, never a crash of the run."""
    if uuid is None or isinstance(uuid, str | int | float):
        return uuid
    return json.dumps(uuid, sort_keys=True, default=repr)


def plain_causes(verdict: Verdict, got: Any, wanted: Any) -> tuple[str, ...]:
    """``raised``, ``duplicate-row``, ``lost-row``, ``extra-row``, ``order``, ``wrong-branch``
    (continues from another entry) or ``field``, most harmful first."""
    if isinstance(got, Raised):
        return ("raised",)
    if isinstance(wanted, Raised):  # the real reader threw: what yours shows, it does not
        return ("extra-row",) if isinstance(got, Answered) and got.messages else ("field",)
    difference = verdict.difference
    if difference is not None and difference.path == "/leaf":
        return ("wrong-branch",)
    if not isinstance(got, Answered) or not isinstance(wanted, Answered):
        return ("field",)
    mine = [_identity(m.get("uuid")) for m in got.messages]
    theirs = [_identity(m.get("uuid")) for m in wanted.messages]
    if mine == theirs:
        return ("field",)
    causes = []
    if any(n > 1 for n in Counter(mine).values()):
        causes.append("duplicate-row")
    lost, extra = set(theirs) - set(mine), set(mine) - set(theirs)
    if lost:
        causes.append("lost-row")
    if extra:
        causes.append("extra-row")
    if not causes:
        causes.append("order")
    return ordered(causes)
