"""Every reference harness replayed over the corpus (no fuzzing, no atheris): CI's fast check.

OSS-Fuzz's advice: run the fuzz targets over the whole corpus as regression
tests. Inputs are the corpus cases, the regression cases and, when present,
the real transcripts (cut into the harness' own seed units).
"""

from __future__ import annotations

import random

import pytest

from rechain.fuzz import seeds
from rechain.fuzz.contract import check
from rechain.fuzz.registry import REFERENCE
from rechain.fuzz.regressions import fuzz_cases, fuzz_meta
from rechain.fuzz.target import Feeder, load

INPUTS = list(seeds.transcripts(generated=5))
HARNESSES = [t for t in REFERENCE if not t.name.startswith("property-")]
#: (target, exception) of reference bugs filed as open regression cases
KNOWN_OPEN = {
    (meta["target"], meta["exception"])
    for meta in map(fuzz_meta, fuzz_cases())
    if meta.get("status") == "open"
}


def _units(unit: str, max_len: int) -> list[bytes]:
    rng = random.Random(0)
    if unit == "line":
        found = {line for data in INPUTS for line in seeds.single_lines(data, max_len)}
        return sorted(found)[:3000]
    if unit == "none":
        return [b"", b"\x05\x00" + b"0f0e0d0c-0b0a-4000-8000-00000000abcd\x00/tmp/x\x00a"]
    return [w for data in INPUTS for w in seeds.windows(data, max_len, rng)]


def test_there_is_something_to_replay():
    assert len(INPUTS) >= 10


@pytest.mark.parametrize("target", HARNESSES, ids=lambda t: t.name)
def test_harness_holds_on_the_corpus(target):
    function, contract = load(target.spec)
    feed = Feeder(function, contract)
    failures = []
    for data in _units(contract.seeds, contract.max_len):
        failure = check(lambda data=data: feed(data), contract.allowed)
        if failure is not None:
            failures.append((failure.exception, failure.signature, data[:200]))
    unknown = [f for f in failures if (target.name, f[0]) not in KNOWN_OPEN]
    assert unknown == []
    if failures:
        pytest.xfail(f"known open bug, see corpus/regressions: {failures[0][1]}")
