"""Readers that take batches get many items per request; verdicts stay those of one by one."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from rechain.conformance.protocol import (
    Answered,
    CaseInput,
    Crashed,
    ImplementationInfo,
    Outcome,
    Skipped,
)
from rechain.conformance.runner import BATCH, Against, Connections, Intended, Item, run_items


@dataclass
class Echo:
    """A reader answering each transcript's first byte as its one uuid; counts its requests."""

    batches: bool = True
    broken_batch: bool = False
    info: ImplementationInfo = field(default_factory=lambda: ImplementationInfo(
        "echo", "1", "python", options=frozenset({"limit"})))
    requests: list[int] = field(default_factory=list)

    def run(self, case: CaseInput) -> Outcome:
        self.requests.append(1)
        return Answered(({"uuid": case.data[:1].decode()},))

    def run_many_(self, cases: list[CaseInput]) -> list[Outcome]:
        self.requests.append(len(cases))
        if self.broken_batch:
            raise RuntimeError("adapter bug")
        return [Answered(({"uuid": c.data[:1].decode()},)) for c in cases]

    def __getattr__(self, name: str):  # ``run_many`` only when the reader takes batches
        if name == "run_many" and self.batches:
            return self.run_many_
        raise AttributeError(name)

    def close(self) -> None:
        pass


def items(count: int) -> list[Item]:
    """Generated-like items; every third asks for an option the readers lack (offset)."""
    made = []
    for n in range(count):
        options = {"offset": 1} if n % 3 == 0 else {}
        made.append(Item(CaseInput(f"c{n}", b"ab"[n % 2:], "sid", options), "generated",
                         intended=("a",)))
    return made


def verdicts(implementation: Echo, target: Echo, jobs: int, count: int) -> list[tuple]:
    def connect() -> Connections:
        return Connections([implementation], [Against(target), Intended()])

    return [(r.case_id, r.against, r.status, r.outcome) for _, records in
            run_items(items(count), connect, jobs=jobs) for r in records]


@pytest.mark.parametrize("jobs", [1, 2])
def test_batches_give_the_verdicts_of_one_by_one(jobs: int) -> None:
    count = BATCH + 10
    alone = verdicts(Echo(batches=False), Echo(batches=False), 1, count)
    under_test, target = Echo(), Echo()
    assert verdicts(under_test, target, jobs, count) == alone
    assert any(status == "fail" for _, _, status, _ in alone)  # the comparison can fail
    assert any(isinstance(outcome, Skipped) for *_, outcome in alone)  # unsupported kept
    runnable = sum(1 for n in range(count) if n % 3)
    assert sum(under_test.requests) == runnable and sum(target.requests) == runnable
    assert len(under_test.requests) < runnable / 10  # many cases per request


def test_a_broken_batch_falls_back_to_one_by_one() -> None:
    count = 12
    alone = verdicts(Echo(batches=False), Echo(batches=False), 1, count)
    broken = Echo(broken_batch=True)
    assert verdicts(broken, Echo(), 1, count) == alone
    assert broken.requests[0] == sum(1 for n in range(count) if n % 3)  # tried once, then
    assert set(broken.requests[1:]) == {1}  # each case on its own
    assert not any(isinstance(o, Crashed) for *_, o in verdicts(broken, Echo(), 1, count))
