"""The TS SDK's own CPU a case, without rechain around it: the floor of its oracle.

``rechain bench oracles`` sets this beside the batched bridge so the CPU a case splits
into the SDK's own work (this) and rechain's glue (the rest: laying transcripts out,
the request and reply, Python reading answers). The transcripts are laid out as a
batch is for the bridge (``BATCH`` cases in one config dir, distinct ids in one project, on
the same scratch file system) and ``conformance/node/sdk_alone.mjs`` calls ``getSessionMessages``
on each with the bridge's concurrency and V8 flags, timing its own CPU after one warm-up
call. It runs under the bench's limits (``limited``): a run past them is reported, not
waited for.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from rechain.conformance.bench import limited
from rechain.conformance.bench.limited import Bounds, default_memory_mb
from rechain.conformance.oracles.batch_files import BatchFiles
from rechain.conformance.oracles.calls import MessagesCall
from rechain.conformance.oracles.registry import OracleSpec, entry_path
from rechain.conformance.oracles.scratch import scratch
from rechain.conformance.oracles.ts_sdk import NODE_FLAGS
from rechain.conformance.protocol import CaseInput
from rechain.conformance.runner import BATCH

CONCURRENCY = 16  # the bridge's default for a batch


def _script() -> Path:
    return Path(str(resources.files("rechain.conformance").joinpath("node", "sdk_alone.mjs")))


def _plan(root: Path, cases: Sequence[CaseInput]) -> list[dict[str, Any]]:
    """Lay the cases out under ``root`` as the bridge's caller lays out a batch
    (``batch_files``; each batch under a root of its own, since here every transcript stays
    until the end); the calls to make, in order."""
    plan: list[dict[str, Any]] = []
    for start in range(0, len(cases), BATCH):
        chunk = cases[start:start + BATCH]
        calls = [MessagesCall(case.data, case.session_id, env=case.env) for case in chunk]
        for case, place in zip(chunk, BatchFiles(root / f"b{start // BATCH}").places(calls),
                               strict=True):
            if place.file is None:
                continue
            Path(place.file).write_bytes(case.data)
            plan.append({"config": place.config_dir, "cwd": place.cwd,
                         "session_id": case.session_id,
                         "include_system_messages": bool(
                             case.option("include_system_messages"))})
    return plan


def measure(spec: OracleSpec, cases: Sequence[CaseInput],
            bounds: Bounds | None = None) -> dict[str, Any]:
    """The SDK's own CPU ms a case on ``cases`` (its Node process: every thread), or, when
    it passed a limit of ``bounds`` or failed, ``{"calls": 0, "failed": why}``."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is not on PATH")
    bounds = bounds or Bounds(memory_mb=default_memory_mb())
    with scratch("rechain-alone-") as root:
        plan = _plan(root, cases)
        (root / "plan.json").write_text(json.dumps(plan), "utf-8")
        done = limited.run(
            [node, *NODE_FLAGS, str(_script()), str(entry_path(spec)), str(root / "plan.json"),
             str(CONCURRENCY)],
            {"PATH": os.environ.get("PATH", ""), "HOME": str(root), "TMPDIR": str(root),
             "LANG": "C.UTF-8"}, bounds, cwd=str(root))
    found = done.found
    if found is None or not found.get("calls"):
        why = done.failure() or f"no calls made: {found}"
        return {"calls": 0, "failed": why + (" (stopped)" if done.stopped else "")}
    return {"calls": found["calls"],
            "cpu_ms_per_case": round(found["cpu_ms"] / found["calls"], 3)}
