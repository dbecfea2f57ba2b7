"""A forked 2.1.88 resume's two views as one answer, so the check loop compares them as any other.

2.1.88 is judged per entry point by two views: ``resumed-chain`` (the rows the fork wrote
before the prompt, in ``record.as_rows`` form) and ``api`` (the first request's messages,
harness blocks out, content in ``compare.comparable_content`` form). The answer's messages are
the chain rows then the request's messages, each tagged with its view; a view that failed is
one ``{"view": ..., "failed": true}`` row, and both failing is ``Raised`` (agreeing with any
other failure, as 2.1.88's error text is not the profile's). The seed profile, the real
2.1.88 and the recorded expectations all answer in this form.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rechain.conformance.claude_code_2_1_88.compare import comparable_content, expected
from rechain.conformance.claude_code_2_1_88.record import API_VIEW, VIEW, as_rows, outputs
from rechain.conformance.oracles.claude_cli import HANG_MARK
from rechain.conformance.protocol import Answered, Crashed, Outcome, Raised, TimedOut
from rechain.reference.model import Json

#: the check view these answers are in (with ``api``: ``protocol.FORKED_VIEWS``)
CHAIN_VIEW = VIEW
FAILED = "exit 1"
HANG = "hang"


def answer(chain: Sequence[Json] | None, request: Sequence[Json] | None, error: str) -> Outcome:
    """One outcome of the two views (None: that view failed, ``error`` saying why); the
    chain rows in ``record.as_rows`` form, as recorded."""
    if chain is None and request is None:
        return Raised(FAILED, error)
    rows: list[Json] = ([{"view": VIEW, **row} for row in chain]
                        if chain is not None else [{"view": VIEW, "failed": True}])
    rows += ([{"view": API_VIEW, "role": m.get("role"),
               "content": comparable_content(m.get("content"))} for m in request]
             if request is not None else [{"view": API_VIEW, "failed": True}])
    return Answered(tuple(rows))


def from_rebuild(rebuilt: Any) -> Outcome:
    """The seed profile's answer from one ``rebuild`` (its ``chain`` and ``api`` views)."""
    chain, request = rebuilt.view("chain"), rebuilt.view("api")
    rows = as_rows(expected(chain["messages"])) if chain["error"] is None else None
    messages = request["messages"] if request["error"] is None else None
    return answer(rows, messages, str(request["error"] or chain["error"] or ""))


def from_resume(data: bytes, result: Any, hangs: bool = False) -> Outcome:
    """The real 2.1.88's answer from a forked resume (a ``CliResume``, or the oracle's error).

    For a release that ``hangs`` on cycles (``claude_cli.hangs_on_cycles``) a run killed
    at the deadline is an answer of its own (``HANG``), and its profile says so; for any
    other release it is a timeout."""
    if not hasattr(result, "forked"):
        if HANG_MARK in str(result):
            return Raised(HANG, str(result)) if hangs else TimedOut(0.0)
        return Crashed(str(result))
    views = outputs(data, result)
    (rows, chain_error), (messages, api_error) = views[VIEW], views[API_VIEW]
    error = (api_error or chain_error or {}).get("message", "")
    return answer(rows if chain_error is None else None,
                  messages if api_error is None else None, str(error))


def from_recorded(chain: Any, request: Any) -> Outcome:
    """The answer the corpus recorded (two ``Expectation``s of one entry point)."""
    error = (request.error or chain.error or {}).get("message", "")
    return answer(None if chain.failed else list(chain.messages),
                  None if request.failed else list(request.messages), str(error))
