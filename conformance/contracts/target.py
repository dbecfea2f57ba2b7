"""The runner's target for a reader that declares a contract, with the invariants.

It computes the contract's answer from the chosen profile's graph, judges the
reader's answer against it (causes from ``judge``), and checks the properties
every reader must have (``reader_invariants``). The two properties that need the
reader to run again (an appended invalid line, the rows reformatted) run on one
generated item in ``every``, so a slow reader's run costs at most twice as many calls,
and on every case file (a shrunk case replays what it was shrunk for).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from rechain.conformance import reader_invariants as inv
from rechain.conformance.compare import Difference, Verdict
from rechain.conformance.contracts.answers import Answer, answer
from rechain.conformance.contracts.judge import judge_contract, ordered
from rechain.conformance.contracts.model import Contract
from rechain.conformance.contracts.pairing import role_of
from rechain.conformance.protocol import Answered, CaseInput, Outcome, Raised, Skipped, TimedOut
from rechain.reference.model import Options
from rechain.strategies.formatting import STYLES
from rechain.wording import counted

METAMORPHIC = ("unchanged-by-invalid-line", "unchanged-by-formatting")
#: a reader's outcome on a changed file that says nothing of the file: a timeout depends on
#: the machine's load, not on the line appended, and a declined case was never read
_UNDECIDED = (TimedOut, Skipped)


@dataclass
class ContractTarget:
    """The answer ``contract`` asks of each item under ``profile``, for one reader only."""

    owner: Any  # the Implementation this target judges
    contract: Contract
    profile: str = "agent-sdk@0.3.332"
    every: int = 4
    fields: frozenset[str] | None = None
    views: tuple[str, ...] = ("session-messages",)
    _answers: dict[str, Answer] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """One label for one answer: the profile and the scope it is read in."""
        return f"{self.profile} {self.contract.scope}"

    def expect(self, item: Any) -> Outcome | None:
        case: CaseInput = item.case
        options = Options(include_system_messages=bool(case.option("include_system_messages")),
                          limit=case.option("limit"), offset=int(case.option("offset") or 0))
        found = answer(case.data, self.contract, self.profile, options)
        self._answers[case.id] = found
        shown = tuple({"uuid": r.uuid, "type": r.role, "line": r.line} for r in found.rows)
        return Answered(shown, usage=found.usage or None)

    def judge(self, item: Any, got: Outcome, seq: int) -> Verdict:
        """The contract's verdict, then every invariant's, causes merged most harmful first."""
        want = self._answers.pop(item.case.id)
        verdict = judge_contract(got, want, self.contract)
        found = self._invariants(item, got, want, seq)
        if not found:
            return verdict
        causes = ordered([*verdict.causes, *(name for name, _ in found)])
        if "invariant:contained-error" in causes:  # it names why it raised: one cause, not two
            causes = tuple(c for c in causes if c != "raised")
        if verdict.status == "fail":  # each invariant's words kept, for when it leads
            return replace(verdict, causes=causes, leads=(*verdict.leads, *(
                (name, text, Difference("/", name, "unchanged")) for name, text in found)))
        if verdict.status != "pass":
            return verdict
        name, text = found[0]
        return Verdict("fail", text, Difference("/", name, "unchanged"), causes)

    def _invariants(self, item: Any, got: Outcome, want: Answer, seq: int
                    ) -> list[tuple[str, str]]:
        data: bytes = item.case.data
        found: list[tuple[str, str]] = []
        if isinstance(got, Raised):
            try:
                inv.contains_errors(lambda _: _raise(got), data)
            except AssertionError as error:
                found.append(("invariant:contained-error", str(error)))
        if isinstance(got, Answered) and self.contract.scope != "usage":
            checks = [("invariant:parents-first", inv.parents_before_children)]
            if not self.contract.rows.sidechain:
                checks.append(("invariant:sidechains-apart", inv.sidechains_apart))
            answer = [{"uuid": uuid} for uuid in want.uuids]
            for name, check in checks:
                if self.contract.scope == "file-order" and name == "invariant:parents-first":
                    continue
                try:
                    check(data, list(got.messages))
                except AssertionError as error:
                    if _holds(check, data, answer):  # what the profile itself does is no bug
                        found.append((name, str(error)))
        corpus = item.group not in ("generated", "corrupted")  # a case file: replay it whole
        # only an answer is checked: a reader that timed out or crashed is not run again
        if self.every > 0 and (corpus or seq % self.every == 0) and isinstance(got, Answered):
            found += self._metamorphic(item, 0 if corpus else seq, got)
        return found

    def _metamorphic(self, item: Any, seq: int, got: Answered) -> list[tuple[str, str]]:
        from rechain.conformance.runner import run_one

        changed: list[Any] = []  # the reader's outcomes on the changed files

        def read(data: bytes) -> Any:
            # the file as it is was read for the verdict: its answer is reused, not asked again
            outcome = got if data == item.case.data else run_one(
                self.owner, replace(item.case, data=data))
            if outcome is not got:
                changed.append(outcome)
            if isinstance(outcome, Answered):
                return ({"usage": dict(outcome.usage)} if self.contract.scope == "usage"
                        else [self._judged(m) for m in outcome.messages])
            return _raise(outcome)

        # one style per sweep case, spaced first; every style when shrinking (seq 0), so the
        # minimal case keeps failing whichever style found it
        styles = STYLES if seq == 0 else (STYLES[(seq // max(self.every, 1) - 1) % len(STYLES)],)
        found = []
        for name, check in (
                ("invariant:unchanged-by-invalid-line",
                 lambda: inv.unchanged_by_invalid_line(read, item.case.data)),
                ("invariant:unchanged-by-formatting",
                 lambda: inv.unchanged_by_formatting(read, item.case.data, styles))):
            changed.clear()
            try:
                check()
            except AssertionError as error:
                if any(isinstance(outcome, _UNDECIDED) for outcome in changed):
                    continue  # out of time or declined on the changed file: no verdict on it
                found.append((name, _told(str(error), got, changed[-1] if changed else None,
                                          self.contract.scope)))
        return found


    def _judged(self, message: Any) -> Any:
        """What the contract judges of a shown row: a reader without uuids that ignores content
        is judged on roles, so a text it renders from the order of an object's keys (a call's
        first argument) is no difference when the rows are reformatted."""
        if (self.contract.content != "ignored" or self.contract.identity == "uuid"
                or not isinstance(message, dict)):
            return message
        return {"type": role_of(message)}


def _holds(check: Any, data: bytes, answer: list[dict[str, Any]]) -> bool:
    try:
        check(data, answer)
    except AssertionError:
        return False
    return True


class ReaderError(Exception):
    """A reader's non-answer (raised, crashed, timed out) as an exception for a property."""


def _told(said: str, before: Answered, after: Any, scope: str) -> str:
    """An invariant's failure for a person: when the reader gave no answer on the changed
    file, what it said (the property's own words name rechain's wrapper exception, not the
    reader's error); else the property's words, which show what changed."""
    if scope == "usage" or after is None or isinstance(after, Answered):
        return said
    what = said.split(": ", 1)[0]
    return f"{what}: {counted(len(before.messages), 'row')} became no answer, yours {_words(after)}"


def _words(outcome: Any) -> str:
    """What a reader that did not answer said: the property compares only that it raised,
    a person reading the failure needs its message (``exit 4: parse error …``)."""
    kind = getattr(outcome, "type", None) or getattr(outcome, "status", "failed")
    verb = "raised" if isinstance(outcome, Raised) else "ended with"
    return f"{verb} {kind}: {getattr(outcome, 'message', '')}".rstrip(": ")


def _raise(outcome: Any) -> Any:
    kind = getattr(outcome, "type", None) or getattr(outcome, "status", "failed")
    raise ReaderError(f"{kind}: {getattr(outcome, 'message', '')}")
