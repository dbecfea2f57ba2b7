"""The TS SDK's own CPU a case, without rechain around it: the floor of its oracle.

``rechain bench oracles`` sets this beside the batched bridge so the CPU a case splits
into the SDK's own work (this) and rechain's glue (the rest: laying transcripts out,
the request and reply, Python reading answers). The transcripts are laid out as the
bridge lays out a batch (``BATCH`` cases in one config dir, distinct ids in one project, on the same
scratch file system) and ``conformance/node/sdk_alone.mjs`` calls ``getSessionMessages``
on each with the bridge's concurrency and V8 flags, timing its own CPU after one warm-up
call.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from rechain.conformance.oracles.registry import OracleSpec, entry_path
from rechain.conformance.oracles.scratch import make_scratch
from rechain.conformance.oracles.ts_sdk import NODE_FLAGS
from rechain.conformance.protocol import CaseInput
from rechain.conformance.runner import BATCH

CONCURRENCY = 16  # the bridge's default for a batch


def _script() -> Path:
    return Path(str(resources.files("rechain.conformance").joinpath("node", "sdk_alone.mjs")))


def _plan(root: Path, cases: Sequence[CaseInput]) -> list[dict[str, Any]]:
    """Lay the cases out under ``root`` as the bridge lays out a batch (one config dir, the
    k-th case with a session id in the k-th project); the calls to make, in order."""
    plan: list[dict[str, Any]] = []
    for start in range(0, len(cases), BATCH):
        config = root / f"b{start // BATCH}" / "cfg"
        seen: dict[str, int] = {}
        for case in cases[start:start + BATCH]:
            number = seen.get(case.session_id.lower(), 0)
            seen[case.session_id.lower()] = number + 1
            cwd = config.parent / f"cwd{number}"
            project = config / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(cwd))
            project.mkdir(parents=True, exist_ok=True)
            cwd.mkdir(exist_ok=True)
            (project / f"{case.session_id}.jsonl").write_bytes(case.data)
            plan.append({"config": str(config), "cwd": str(cwd), "session_id": case.session_id,
                         "include_system_messages": bool(
                             case.option("include_system_messages"))})
    return plan


def measure(spec: OracleSpec, cases: Sequence[CaseInput]) -> dict[str, Any]:
    """The SDK's own CPU ms a case on ``cases`` (its Node process: every thread)."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is not on PATH")
    root = make_scratch("rechain-alone-")
    try:
        plan = _plan(root, cases)
        (root / "plan.json").write_text(json.dumps(plan), "utf-8")
        done = subprocess.run(
            [node, *NODE_FLAGS, str(_script()), str(entry_path(spec)), str(root / "plan.json"),
             str(CONCURRENCY)],
            capture_output=True, check=True, cwd=root,
            env={"PATH": os.environ.get("PATH", ""), "HOME": str(root),
                 "TMPDIR": str(root), "LANG": "C.UTF-8"})
    finally:
        shutil.rmtree(root, ignore_errors=True)
    found = json.loads(done.stdout.decode().strip().splitlines()[-1])
    return {"calls": found["calls"],
            "cpu_ms_per_case": round(found["cpu_ms"] / found["calls"], 3)}
