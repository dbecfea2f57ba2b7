"""Every file harness over every type confusion of the corpus: deterministic, no atheris.

The fuzzer found ``origin.kind`` as a list crashing the SDK profile in a 30 s
CI run; this sweep finds that class of bug on every commit instead (see
``rechain.fuzz.confusions``). A failure lists one variant per signature,
labelled with the case, line, field and value to reproduce it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rechain.fuzz.confusions import Confusion, confusions
from rechain.fuzz.contract import check
from rechain.fuzz.registry import REFERENCE
from rechain.fuzz.target import Feeder, load

CASES = Path(__file__).resolve().parent.parent / "corpus" / "cases"
#: the large-file cases would each take minutes; their rows' shapes occur in small cases too
MAX_CASE_BYTES = 200_000
FILE_HARNESSES = [t for t in REFERENCE if load(t.spec)[1].seeds == "file"]


def _variants() -> list[tuple[str, Confusion]]:
    seen: set = set()
    found = []
    for path in sorted(CASES.glob("*/transcript.jsonl")):
        if path.stat().st_size <= MAX_CASE_BYTES:
            found += [(path.parent.name, c) for c in confusions(path.read_bytes(), seen)]
    return found


VARIANTS = _variants()


def test_the_sweep_covers_the_corpus():
    fields = {(case, c.line, c.path) for case, c in VARIANTS}
    assert len(fields) > 500
    assert any(c.path == ("origin", "kind") for _, c in VARIANTS)


def test_a_confusion_changes_one_value():
    data = b'{"type":"user","a":{"b":[1,2]}}\n{"x":1}'
    labels = {c.label: c.data for c in confusions(data)}
    assert labels['line 1.a.b[0] = null'] == b'{"type":"user","a":{"b":[null,2]}}\n{"x":1}'
    assert 'line 1.a.b[1] = null' not in labels  # the same shape as [0]
    assert labels["line 1.a = <removed>"] == b'{"type":"user"}\n{"x":1}'
    assert labels['line 2.x = "x"'] == b'{"type":"user","a":{"b":[1,2]}}\n{"x":"x"}'


def test_alike_rows_are_swept_once_and_flagged_rows_again():
    plain = b'{"type":"user","origin":{"kind":"a"}}'
    meta = b'{"type":"user","isMeta":true,"origin":{"kind":"a"}}'
    lines = {c.line for c in confusions(b"\n".join([plain, plain, meta]))}
    assert lines == {1, 3}


@pytest.mark.parametrize("target", FILE_HARNESSES, ids=lambda t: t.name)
def test_harness_holds_on_every_confusion(target):
    function, contract = load(target.spec)
    feed = Feeder(function, contract)
    first: dict[str, str] = {}
    for case, variant in VARIANTS:
        failure = check(lambda data=variant.data: feed(data), contract.allowed)
        if failure is not None and failure.signature not in first:
            first[failure.signature] = f"{case}: {variant.label}: {failure.message[:120]}"
    assert first == {}
