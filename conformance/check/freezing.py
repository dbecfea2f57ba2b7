"""A shrunk disagreement written as a corpus case, with every answer known for it."""

from __future__ import annotations

import contextlib
import datetime as dt
import sys
from collections.abc import Sequence
from pathlib import Path

from rechain import __version__
from rechain.conformance import differential as diff
from rechain.conformance.claude_code_2_1_88.answers import CHAIN_VIEW
from rechain.conformance.impls import connect
from rechain.conformance.protocol import DEFAULT_OPTIONS, Outcome
from rechain.conformance.protocol_process import Limits
from rechain.conformance.runner import Item, run_one
from rechain.corpus.cases_io import write_case
from rechain.errors import UsageError

#: the oracle whose answer is a frozen case's main expectation
MAIN_ORACLE = "agent-sdk-ts"


def freeze(directory: Path, limits: Limits, comparisons: Sequence[diff.Disagreement], item: Item,
           identifier: str, seed: int, kind: str, replay: str) -> Path | None:
    """Write the case directory ``directory / identifier``; the TS SDK is asked for the main
    expectation when no side of the comparisons gave it. None when it cannot be written.

    Answers in 2.1.88's views are not expectations of the recorded profiles (its recorder
    writes them: ``rechain corpus record --oracle claude-code@2.1.88 --case ID``).
    """
    recorded: dict[str, tuple[str, Outcome]] = {}
    sides = [side for c in comparisons
             for side in ((c.implementation, c.got), (c.against, c.expected))
             if item.case.view != CHAIN_VIEW]
    for side_label, outcome in sides:
        name = side_label.split("@", 1)[0]
        if name in diff.RECORDED_PROFILES:
            recorded[diff.RECORDED_PROFILES[name]] = (side_label.split(" ", 1)[0], outcome)
    main = diff.RECORDED_PROFILES[MAIN_ORACLE]
    if main not in recorded:
        with contextlib.suppress(UsageError):
            oracle = connect(MAIN_ORACLE, limits)
            try:
                recorded[main] = (oracle.info.slug, run_one(oracle, item.case))
            finally:
                oracle.close()
    disagreement = comparisons[0]
    document = diff.case_document(
        disagreement, identifier=identifier, recorded=recorded, options=dict(DEFAULT_OPTIONS),
        seed=seed, kind=kind, replay=replay, today=dt.date.today().isoformat(),
        rechain_version=__version__, also=comparisons[1:])
    target = directory / identifier
    try:
        write_case(target, document, disagreement.data)
    except OSError as error:
        print(f"rechain: cannot write {target}: {error.strerror}", file=sys.stderr)
        return None
    return target
