"""An outcome as a sentence for people: what the reader did, never a Python repr."""

from __future__ import annotations

from rechain.conformance.protocol import Answered, Crashed, Outcome, Raised, Skipped, TimedOut
from rechain.conformance.report_bounds import clip
from rechain.wording import counted


def _clip(text: str) -> str:
    """One line, its end cut off with the count of what was (``report_bounds.clip``)."""
    return clip(" ".join(text.split()))


def _last_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    return f" (its last words on stderr: {_clip(lines[-1])})" if lines else ""


def sentence(outcome: Outcome) -> str:
    """One sentence per kind of outcome, with the detail that explains it."""
    if isinstance(outcome, Answered):
        leaf = f", resumed from {_clip(outcome.leaf)}" if outcome.leaf else ""
        return f"it answered with {counted(len(outcome.messages), 'message')}{leaf}"
    if isinstance(outcome, Raised):
        detail = f": {_clip(outcome.message)}" if outcome.message else ""
        return f"it raised {_clip(outcome.type)}{detail}"
    if isinstance(outcome, Skipped):
        issue = f" (see {_clip(outcome.issue_url)})" if outcome.issue_url else ""
        return f"it skipped the case: {_clip(outcome.message)}{issue}"
    if isinstance(outcome, Crashed):
        who = "the harness reported an error" if outcome.caught else "the harness crashed"
        return f"{who}: {_clip(outcome.message)}{_last_line(outcome.stderr)}"
    if isinstance(outcome, TimedOut):
        return f"it gave no answer within {outcome.seconds:g} s and was stopped"
    raise TypeError(f"not an outcome: {type(outcome).__name__}")
