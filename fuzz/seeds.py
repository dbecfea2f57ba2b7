"""The seed corpus: valid and tricky transcripts to start from, cut to the fuzzer's size.

Sources, in order: transcripts written by ``rechain.strategies`` (when that
package offers a transcript strategy), the corpus cases, the regression cases,
and the real transcripts in ``../shared/corpus-real`` (or ``$RECHAIN_REAL_CORPUS``)
when present. Whole files are cut into windows of consecutive lines that fit
``max_len``; the line parser gets single lines instead.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Iterable, Iterator
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

from rechain.fuzz.sources import generated_transcripts

if TYPE_CHECKING:
    from rechain.shard import Shard

_REPO = Path(__file__).resolve().parent.parent


def corpus_dirs() -> list[Path]:
    """The case and regression directories of the corpus package (source tree or install)."""
    base = Path(str(files("rechain.corpus")))
    return [base / "cases", base / "regressions"]


def real_corpus() -> Path | None:
    configured = os.environ.get("RECHAIN_REAL_CORPUS")
    candidate = Path(configured) if configured else _REPO.parent / "shared" / "corpus-real"
    return candidate if candidate.is_dir() else None


def transcripts(generated: int = 40) -> Iterator[bytes]:
    """Every seed transcript's bytes."""
    yield from generated_transcripts(generated)
    for directory in corpus_dirs():
        if directory.is_dir():
            for path in sorted(directory.glob("*/*.jsonl")):
                yield path.read_bytes()
    real = real_corpus()
    if real is not None:
        for path in sorted(real.glob("*.jsonl")):
            yield path.read_bytes()


def windows(data: bytes, max_len: int, rng: random.Random) -> Iterator[bytes]:
    """Runs of whole lines of ``data`` that fit ``max_len`` (the whole file when it fits)."""
    if len(data) <= max_len:
        yield data
        return
    lines = data.split(b"\n")
    start = 0
    while start < len(lines):
        size, end = 0, start
        while end < len(lines) and size + len(lines[end]) + 1 <= max_len:
            size += len(lines[end]) + 1
            end += 1
        if end == start:  # one line longer than max_len: skip it
            start += 1
            continue
        yield b"\n".join(lines[start:end]) + b"\n"
        start = end if rng.random() < 0.5 else max(start + 1, (start + end) // 2)


def single_lines(data: bytes, max_len: int) -> Iterator[bytes]:
    for line in data.split(b"\n"):
        if line and len(line) <= max_len:
            yield line


def write(directory: Path, chunks: Iterable[bytes], limit: int = 2000) -> int:
    """Write distinct chunks as files named by their hash; returns how many are there."""
    directory.mkdir(parents=True, exist_ok=True)
    seen = {p.name for p in directory.iterdir()}
    for chunk in chunks:
        if len(seen) >= limit:
            break
        name = hashlib.sha1(chunk).hexdigest()
        if name not in seen:
            (directory / name).write_bytes(chunk)
            seen.add(name)
    return len(seen)


def build(
    directory: Path, max_len: int, unit: str = "file", seed: int = 0, shard: Shard | None = None
) -> int:
    """Fill ``directory`` with seeds for a harness; ``unit`` is ``file``, ``line`` or ``random``.

    With ``shard`` only its slice of the seed units (corpus cases and generated
    transcripts alike, in their fixed order), so N machines start from different seeds.
    """
    rng = random.Random(seed)
    if unit == "random":
        count = 16 * (shard.count if shard is not None else 1)  # 16 per shard
        chunks: Iterable[bytes] = (rng.randbytes(max_len) for _ in range(count))
    elif unit == "line":
        chunks = (line for data in transcripts() for line in single_lines(data, max_len))
    else:
        chunks = (w for data in transcripts() for w in windows(data, max_len, rng))
    if shard is not None:
        chunks = (chunk for position, chunk in enumerate(chunks) if shard.keeps(position))
    return write(directory, chunks)
