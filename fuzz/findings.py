"""The findings directory a worker writes: one input and one JSON record per signature.

The worker does not stop at the first failure: it records it here and goes on,
keeping the smallest input seen for each signature, so one run reports every
distinct bug it met. Timeouts and memory blow-ups end the worker (libFuzzer
does that); the runner files those artefacts here too. Standard library only.

How often each finding was met is exact however a worker ends (its time limit, a
crash, a signal, the OOM killer): a fuzzing worker counts hits in a tally, a file
it maps shared (``tallies/``), so a hit is a store to memory, never a write, and
the kernel keeps the counts when the process dies. The runner folds the tallies
into the records once the workers have ended; reading a store adds any that are
still unfolded.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rechain.fuzz.contract import Failure
from rechain.fuzz.traits import variant


def key_of(signature: str) -> str:
    """A short file-name-safe key for a signature."""
    return hashlib.sha1(signature.encode("utf-8", "surrogatepass")).hexdigest()[:12]


#: a tally slot: the record's file key (12 ASCII bytes, 4 zero bytes), then the hits (u64)
_SLOT = 24
_KEY = 12
TALLIES = "tallies"


class Tally:
    """A worker's hit counts, in a file mapped shared: counts survive the process' death.

    Slots are taken as keys are first hit, and the mapping doubles when it is full."""

    def __init__(self, directory: Path, slots: int = 256) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=f"{os.getpid()}-", suffix=".tally",
                                        dir=directory)
        os.ftruncate(handle, slots * _SLOT)
        self.map = mmap.mmap(handle, slots * _SLOT)
        os.close(handle)
        self.path = Path(name)
        self.slots: dict[str, int] = {}
        self.hits: dict[str, int] = {}

    def hit(self, key: str) -> None:
        """One more hit of the record filed under ``key_of(key)``."""
        file_key = key_of(key)
        offset = self.slots.get(file_key)
        if offset is None:
            offset = len(self.slots) * _SLOT
            if offset + _SLOT > len(self.map):
                self.map.resize(2 * len(self.map))
            self.map[offset:offset + _KEY] = file_key.encode("ascii")
            self.slots[file_key] = offset
        count = self.hits.get(file_key, 0) + 1
        self.hits[file_key] = count
        self.map[offset + 16:offset + _SLOT] = count.to_bytes(8, "little")


def read_tallies(directory: Path) -> tuple[dict[str, int], list[Path]]:
    """The hits on record in a findings directory's tallies, per file key, and the files."""
    counts: dict[str, int] = {}
    files = sorted((directory / TALLIES).glob("*.tally"))
    for path in files:
        try:
            raw = path.read_bytes()
        except OSError:
            continue
        for offset in range(0, len(raw) - _SLOT + 1, _SLOT):
            name = raw[offset:offset + _KEY]
            if not name.strip(b"\0"):
                break
            hits = int.from_bytes(raw[offset + 16:offset + _SLOT], "little")
            file_key = name.decode("ascii", "replace")
            counts[file_key] = counts.get(file_key, 0) + hits
    return counts, files


@dataclass(slots=True)
class Record:
    """What is known about one signature."""

    failure: dict[str, Any]
    size: int
    count: int = 1
    first_seen: float = field(default_factory=time.time)


class FindingStore:
    """``<dir>/<key>.json`` (the failure, counts) and ``<dir>/<key>.input`` (smallest input).

    With ``tally`` (a fuzzing worker) hits go to a ``Tally`` and a record's ``count`` is
    what was folded into it before; without, each hit is written (the runner's artefacts:
    one per ended worker). ``reader`` is the environment the target ran in (its venv's
    directory), kept in each record it writes.
    """

    def __init__(self, directory: Path, target: str, tally: bool = False,
                 reader: str = "") -> None:
        self.directory = directory
        self.target = target
        self.reader = reader
        directory.mkdir(parents=True, exist_ok=True)
        self.records: dict[str, Record] = {}
        self.tally: Tally | None = None
        self.counting = tally
        self._load()

    def _load(self) -> None:
        self.records.clear()
        for path in sorted(self.directory.glob("*.json")):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            key = data.get("variant", data.get("signature"))
            if isinstance(key, str):
                size, count = int(data.get("size", 0)), int(data.get("count", 0))
                self.records[key] = Record(data, size, count)

    def record(self, failure: Failure, data: bytes, key: str | None = None) -> bool:
        """File a failing input; True when its key is new to this store.

        The key is the signature plus the input's trigger (``traits``; the worker
        passes the causal one, by default the first one held): the same site
        failing on ``message: null`` and on ``message: 0`` is kept twice, so
        each becomes its own minimal case.
        """
        key = key or variant(failure.signature, data)
        known = self.records.get(key)
        if self.counting and self.tally is None:
            self.tally = Tally(self.directory / TALLIES)
        if self.tally is not None:  # the hit is counted in memory; the record keeps its base
            self.tally.hit(key)
        if known is None:
            failure_json = {**failure.to_json(), "target": self.target, "variant": key}
            if self.reader:
                failure_json["reader"] = self.reader
            entry = Record(failure_json, len(data), 0 if self.tally is not None else 1)
            self.records[key] = entry
            self._write_input(key, data)
            self._flush(key)
            return True
        changed = self.tally is None
        if changed:
            known.count += 1
        if len(data) < known.size or known.size == 0:
            known.size = len(data)
            self._write_input(key, data)
            changed = True
        if changed:
            self._flush(key)
        return False

    def fold(self) -> None:
        """Add the tallies' hits to the records and remove the tallies: only once every
        worker that writes them has ended (the runner does, after each worker)."""
        counts, files = read_tallies(self.directory)
        self._load()  # the workers' records: new ones, smaller inputs
        for key, entry in self.records.items():
            hits = counts.get(key_of(key), 0)
            if hits:
                entry.count += hits
                self._flush(key)
        for path in files:
            path.unlink(missing_ok=True)

    def record_artifact(self, kind: str, data: bytes, detail: str, where: str = "") -> bool:
        """File a libFuzzer artefact (``timeout``, ``oom``) under a kind-level signature, or
        per place when it is known (two hangs in two loops are two findings)."""
        where = where or self.target
        failure = Failure(f"{kind}@{where}", kind, detail, where)
        return self.record(failure, data, key=failure.signature)

    def _write_input(self, key: str, data: bytes) -> None:
        (self.directory / f"{key_of(key)}.input").write_bytes(data)

    def _flush(self, key: str) -> None:
        entry = self.records[key]
        payload = {**entry.failure, "size": entry.size, "count": entry.count}
        path = self.directory / f"{key_of(key)}.json"
        # whole or not at all: a reader (the runner, another worker) never sees half a record
        partial = path.with_suffix(f".json.{os.getpid()}")
        partial.write_text(json.dumps(payload, indent=1, ensure_ascii=True), encoding="utf-8")
        partial.replace(path)


def load_findings(directory: Path) -> list[dict[str, Any]]:
    """Every finding in a findings directory, with the path of its input; its count adds
    the hits of tallies not folded yet (workers still running, or killed with the runner)."""
    pending, _ = read_tallies(directory)
    out: list[dict[str, Any]] = []
    for path in sorted(directory.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        data["count"] = int(data.get("count", 1)) + pending.get(path.stem, 0)
        data["input_path"] = str(path.with_suffix(".input"))
        out.append(data)
    return out
