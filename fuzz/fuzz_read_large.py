"""Harness: the TS SDK's large-file read (pre-compact skip), at a scale the fuzzer can reach.

Files over 5 MiB are read in 1 MiB chunks from the last plain
``compact_boundary``; inputs that large run a few times a second. This harness
scales the thresholds down (every input counts as large, chunks of 64 bytes,
so lines straddle chunk edges all the time) for the duration of one call and
restores them after. Contract: no exception; the lines read are lines of the
file with their true numbers, in file order except the one attribution
snapshot moved last; then the whole rebuild on the same scale must not raise.

Run: ``rechain fuzz read-large``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from rechain.fuzz.contract import harness
from rechain.reference import read, rebuild

SCALE = {"LARGE_FILE_BYTES": 0, "CHUNK_BYTES": 64}


class BrokenReadError(AssertionError):
    """The large-file read returned lines that are not the file's."""


@contextmanager
def scaled() -> Iterator[None]:
    """The read module's thresholds scaled down, restored afterwards."""
    saved = {name: getattr(read, name) for name in SCALE}
    for name, value in SCALE.items():
        setattr(read, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(read, name, value)


def check_source(source: read.Source, data: bytes) -> None:
    pieces = data.split(b"\n")
    numbers = []
    last = b""
    for number, line in source.numbered_lines():
        if not 1 <= number <= len(pieces) or pieces[number - 1] != line:
            raise BrokenReadError(f"line {number} is not the file's line {number}")
        numbers.append(number)
        last = line
    # whatever form the source keeps its lines in, the snapshot read last is the last line
    snapshot_last = bool(numbers) and last.startswith(read.SNAPSHOT_PREFIX)
    body = numbers[:-1] if snapshot_last else numbers
    if body != sorted(set(body)):
        raise BrokenReadError("lines out of file order or repeated")


@harness(max_len=16384, timeout_s=10, description="large-file read, scaled: never raises")
def one_input(data: bytes) -> None:
    with scaled():
        check_source(read.read_sdk(data, disable_precompact_skip=False), data)
        rebuild(data)


if __name__ == "__main__":
    from rechain.fuzz.worker import exec_harness

    exec_harness("rechain.fuzz.fuzz_read_large:one_input", sys.argv[1:])
