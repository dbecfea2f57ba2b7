"""The findings directory a worker writes: one input and one JSON record per signature.

The worker does not stop at the first failure: it records it here and goes on,
keeping the smallest input seen for each signature, so one run reports every
distinct bug it met. Timeouts and memory blow-ups end the worker (libFuzzer
does that); the runner files those artefacts here too. Standard library only.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rechain.fuzz.contract import Failure
from rechain.fuzz.traits import variant


def key_of(signature: str) -> str:
    """A short file-name-safe key for a signature."""
    return hashlib.sha1(signature.encode("utf-8", "surrogatepass")).hexdigest()[:12]


@dataclass(slots=True)
class Record:
    """What is known about one signature."""

    failure: dict[str, Any]
    size: int
    count: int = 1
    first_seen: float = field(default_factory=time.time)


class FindingStore:
    """``<dir>/<key>.json`` (the failure, counts) and ``<dir>/<key>.input`` (smallest input)."""

    def __init__(self, directory: Path, target: str) -> None:
        self.directory = directory
        self.target = target
        directory.mkdir(parents=True, exist_ok=True)
        self.records: dict[str, Record] = {}
        for path in sorted(directory.glob("*.json")):
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
        if known is None:
            entry = Record({**failure.to_json(), "target": self.target, "variant": key}, len(data))
            self.records[key] = entry
            self._write_input(key, data)
            self._flush(key)
            return True
        known.count += 1
        if len(data) < known.size or known.size == 0:
            known.size = len(data)
            self._write_input(key, data)
            self._flush(key)
        elif known.count & (known.count - 1) == 0:  # counts on powers of two: cheap
            self._flush(key)
        return False

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
        path.write_text(json.dumps(payload, indent=1, ensure_ascii=True), encoding="utf-8")


def load_findings(directory: Path) -> list[dict[str, Any]]:
    """Every finding in a findings directory, with the path of its input."""
    out: list[dict[str, Any]] = []
    for path in sorted(directory.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        data["input_path"] = str(path.with_suffix(".input"))
        out.append(data)
    return out
