"""Error contracts and the findings store: documented outcomes pass, the rest is filed once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rechain.fuzz.contract import Contract, check, contract_of, harness
from rechain.fuzz.findings import FindingStore, load_findings
from rechain.fuzz.worker import HEADROOM_MB


def _reader(data: bytes) -> None:
    value = json.loads(data)
    value.get("type")


def test_allowed_exceptions_are_outcomes_others_are_findings():
    assert check(lambda: _reader(b"{}"), ()) is None
    assert check(lambda: _reader(b"not json"), (ValueError,)) is None
    failure = check(lambda: _reader(b"[1]"), (ValueError,))
    assert failure is not None
    assert failure.exception == "AttributeError"
    assert failure.signature.startswith("AttributeError@tests/test_fuzz_contract.py:_reader:")


def test_signature_is_stable_across_inputs():
    first = check(lambda: _reader(b"[1]"), ())
    second = check(lambda: _reader(b'"text"'), ())
    assert first is not None and second is not None
    assert first.signature == second.signature


def test_store_files_each_signature_once_and_keeps_the_smallest_input(tmp_path):
    store = FindingStore(tmp_path, "t:f")
    failure = check(lambda: _reader(b"[1]"), ())
    assert failure is not None
    assert store.record(failure, b"[1, 2, 3]") is True
    assert store.record(failure, b"[1]") is False
    assert store.record(failure, b"[1, 2]") is False
    [found] = load_findings(tmp_path)
    assert found["signature"] == failure.signature
    assert Path(found["input_path"]).read_bytes() == b"[1]"
    # every input is a non-object line: one trigger, so one finding
    assert found["variant"] == f"{failure.signature}|non-object-line"
    assert FindingStore(tmp_path, "t:f").records.keys() == {found["variant"]}


def _message_reader(data: bytes) -> None:
    json.loads(data)["message"].get("content")


def test_store_keeps_one_finding_per_trigger_at_the_same_site(tmp_path):
    store = FindingStore(tmp_path, "t:f")
    inputs = [b'{"message": null}', b'{"message": 0}', b'{"message": 1}', b'{"message": "x"}']
    failures = [check(lambda d=data: _message_reader(d), ()) for data in inputs]
    assert all(f is not None for f in failures)
    assert len({f.signature for f in failures if f is not None}) == 1
    news = [store.record(f, d) for f, d in zip(failures, inputs, strict=True) if f is not None]
    assert news == [True, True, False, False]
    kept = {f["variant"].split("|")[1]: f for f in load_findings(tmp_path)}
    assert kept.keys() == {"message-null", "message-not-object"}
    assert Path(kept["message-null"]["input_path"]).read_bytes() == inputs[0]


def test_harness_declares_its_contract():
    @harness(allowed=(ValueError,), max_len=10)
    def target(data: bytes) -> None:
        del data

    assert contract_of(target, "x") == Contract(allowed=(ValueError,), max_len=10)
    assert contract_of(_reader, "some.reader").allowed == ()


def test_a_worker_past_its_memory_bound_fails_to_allocate():
    """The worker's hard memory cap: libFuzzer's once-a-second RSS check let a target
    allocating in a loop run gigabytes past the bound; under the cap it gets MemoryError."""
    code = ("from rechain.fuzz.worker import cap_memory\n"
            "cap_memory(100)\n"
            "kept = []\n"
            "try:\n"
            "    for _ in range(2000):\n"
            "        kept.append(bytearray(1 << 20))\n"
            "except MemoryError:\n"
            "    print('capped at', len(kept))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, timeout=300)
    assert done.stdout.startswith("capped at"), done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) < 100 + HEADROOM_MB
