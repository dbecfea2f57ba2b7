"""Findings turned into regression cases, and the replay of every case against its target.

A regression case is a corpus case (``rechain/schemas/case.json``) in
``corpus/regressions/<id>/``: the minimal input as ``transcript.jsonl`` and,
under ``provenance.fuzz``, what replays it: the target, the reader's version,
the exception and signature, the status (``open``: the target still fails on
it; ``fixed``: it must pass) and the replay command. Expectations stay empty
until an oracle records them (``rechain corpus record``), never the reference.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import subprocess
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rechain.corpus.cases_io import CASE_FILE, INPUT_FILE, CaseError, load_case, write_case
from rechain.fuzz import case_notes, groups
from rechain.fuzz.contract import Contract
from rechain.fuzz.registry import TARGETS

_TAG_RULES = (
    (rb"^\s*[\[\"0-9tfn-]", "non-object"),
    (rb"\xef\xbb\xbf", "bom"),
    (rb"\r\n", "crlf"),
    (rb"NaN|Infinity", "nan"),
    (rb'"parentUuid":"', "dangling-parent"),
    (rb"compact_boundary", "compaction"),
    (rb"queued_command", "queued-command"),
    (rb'"isSidechain":true', "sidechain"),
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A replay: the case, what happened, and whether that is what the case expects."""

    case: str
    target: str
    status: str
    failed: bool
    signature: str | None
    verdict: str


def packaged_root() -> Path:
    """rechain's own regression cases, shipped in its corpus package."""
    from rechain.fuzz.seeds import corpus_dirs

    return corpus_dirs()[1]


def regressions_root(packaged: Path | None = None) -> Path:
    """Where new regression cases are written: rechain's corpus when it is a source
    checkout one can commit them to (writable, not an installed package), else the cache
    (``<cache>/fuzz-regressions``): an installed rechain's files are not the user's to add to."""
    packaged = packaged_root() if packaged is None else packaged
    installed = {"site-packages", "dist-packages"} & set(packaged.resolve().parts)
    if not installed and os.access(packaged, os.W_OK):
        return packaged
    from rechain.cache import cache_dir

    return cache_dir() / "fuzz-regressions"


def replay_roots() -> list[Path]:
    """Every folder of regression cases to replay: rechain's own, then the user's."""
    return list(dict.fromkeys([packaged_root(), regressions_root()]))


def _tags(data: bytes) -> list[str]:
    tags = ["unrecorded"]  # no oracle output yet: the lint then asks for none
    for pattern, tag in _TAG_RULES:
        if re.search(pattern, data, re.MULTILINE) and tag not in tags:
            tags.append(tag)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        tags.append("invalid-utf8")
    return tags


def case_id(target: str, exception: str, data: bytes) -> str:
    """``fuzz-<target>-<exception>-<hash>``: stable for the same minimal input."""
    kind = re.sub(r"[^a-z0-9]+", "-", exception.split(".")[-1].lower()).strip("-")
    name = re.sub(r"[^a-z0-9]+", "-", target.lower()).strip("-")  # ids are kebab-case
    digest = hashlib.sha1(data).hexdigest()[:8]
    return f"fuzz-{name}-{kind}-{digest}"[:80]


def write_regression(
    target: str,
    finding: dict[str, Any],
    data: bytes,
    version: str,
    root: Path | None = None,
    status: str = "open",
    paths: Sequence[Path] = (),
    venv: Path | None = None,
    input_kind: str | None = None,
    bounds: dict[str, int] | None = None,
    grouped: Sequence[dict[str, Any]] = (),
) -> Path:
    """Write one finding as ``<root>/<id>/``; returns the directory.

    ``grouped``: every finding this case holds (``finding`` among them), when it holds
    several: its notes then describe them all (``case_notes``), not ``finding`` alone.

    For a user's ``--target`` the case keeps how its campaign ran it: ``paths`` (where
    its module was found) and ``venv`` as absolute paths, and ``input_kind`` (its
    ``--input``), so the printed replay command works from any directory. ``bounds``
    (``timeout_s``, ``rss_mb``) are the campaign's own hang and memory bounds, which the
    replay keeps.
    """
    identifier = case_id(target, finding["exception"], data)
    directory = (root or regressions_root()) / identifier
    found = _first_found(directory) or datetime.date.today().isoformat()
    exception = finding["exception"]
    where = finding["where"][:100]
    held = list(grouped) or [finding]
    description = (f"{target} {version}: {exception} at {where}{case_notes.counted(held)} "
                   f"({identifier[-8:]})")[:149]
    case = {
        "id": identifier,
        "description": description if len(description) >= 10 else f"fuzz finding: {description}",
        "tags": _tags(data),
        "session_id": str(uuid.UUID(bytes=hashlib.sha256(data).digest()[:16], version=4)),
        "expectations": [],
        "provenance": {
            "source": "fuzz",
            "generator": "rechain fuzz",
            "notes": case_notes.notes(held),
            "fuzz": {
                "target": target,
                "spec": TARGETS[target].spec if target in TARGETS else finding.get("target"),
                "version": version,
                "exception": exception,
                "signature": finding["signature"],
                "trigger": finding.get("trigger", ""),
                "status": status,
                "found": found,
                # committed with the case: the portable form, the rechain on PATH
                "replay": f"rechain fuzz --replay {identifier}",
                **({"paths": [str(p.absolute()) for p in paths]} if paths else {}),
                **({"venv": str(venv.absolute())} if venv is not None else {}),
                **({"input": input_kind} if input_kind else {}),
                **{name: value for name, value in (bounds or {}).items() if value},
            },
        },
    }
    write_case(directory, case, data)
    return directory


def _first_found(directory: Path) -> str | None:
    """The day a case written again was first found (its record says so), if it was."""
    try:
        return str(fuzz_meta(directory)["found"])
    except (CaseError, KeyError):
        return None


def fuzz_cases(root: Path | None = None) -> list[Path]:
    """The regression cases in ``root`` (default: rechain's own)."""
    base = root or packaged_root()
    if not base.is_dir():
        return []
    return sorted(p for p in base.iterdir() if (p / CASE_FILE).is_file())


def fuzz_meta(directory: Path) -> dict[str, Any]:
    return dict(load_case(directory).provenance.get("fuzz", {}))


def _same_trigger(meta: dict[str, Any], row: dict[str, Any]) -> bool:
    """A case filed with a trigger must still fail because of it (older cases have none)."""
    return "trigger" not in meta or row.get("trigger", "") == meta["trigger"]


#: how long a replay may take to start (imports) on top of the hang bound: a safety limit
IMPORT_S = 120


def _kind(exception: object) -> object:
    """A blow-up is one kind however it was stopped: libFuzzer's RSS check (``oom``) or the
    worker's memory cap (MemoryError where the target allocated)."""
    return "oom" if exception == "MemoryError" else exception


def _hang(spec: str, bound: float, said: bytes) -> dict[str, Any]:
    """A replay the watchdog ended, as a failure row: a hang, and where it was."""
    frames = [line.strip() for line in said.decode("utf-8", "replace").splitlines()
              if line.strip().startswith("File ")]
    where = frames[0] if frames else "?"  # faulthandler prints the innermost frame first
    return {"outcome": "failure", "exception": "timeout", "signature": f"timeout@{spec}",
            "message": f"still running after {bound:g} s, at {where}", "where": where}


class ReplayError(RuntimeError):
    """A case whose target could not be run at all (its module gone, say): no verdict."""


def replay_one(directory: Path, python: str, env: dict[str, str] | None = None) -> Outcome:
    """Run one case's input through its target in a worker (replay mode) and judge it."""
    meta = fuzz_meta(directory)
    target = TARGETS.get(meta.get("target", ""))
    spec = target.spec if target is not None else meta["spec"]
    command = [python, "-m", "rechain.fuzz.worker", "--mode", "replay", "--target", spec]
    given = target.input if target is not None else meta.get("input")  # a user's --input
    if given:
        command += ["--input", given]
    bound = float(meta.get("timeout_s") or Contract().timeout_s)
    command += ["--timeout", str(bound)]
    if meta.get("rss_mb"):
        command += ["--rss-mb", str(meta["rss_mb"])]
    command += ["--", str(directory / INPUT_FILE)]
    # start outside any source tree: its rechain/ would hide the shim's rechain.fuzz
    cwd = tempfile.gettempdir()
    try:  # in a process group of its own: what the target started ends with the replay
        done = groups.run(command, bound + IMPORT_S, env=env, cwd=cwd)
    except subprocess.TimeoutExpired as stuck:  # past the worker's own watchdog: a hang too
        done = subprocess.CompletedProcess(command, -9, stuck.stdout or b"",
                                           (stuck.stderr or b"") + b"\nTimeout (killed)")
    said = [json.loads(line) for line in done.stdout.splitlines() if line.startswith(b"{")]
    rows = [row for row in said if row.get("outcome") != "started"]
    if not rows and b"Timeout (" in done.stderr:  # the worker's watchdog ended it: a hang
        rows = [_hang(spec, bound, done.stderr)]
    elif not rows and said:  # it began the input and the process ended: the target ended it
        rows = [{"outcome": "failure", "exception": "exit", "signature": f"exit@{spec}",
                 "message": f"the process ended ({groups.ended(done.returncode)}) running it"}]
    if not rows:
        said = [line for line in done.stderr.decode("utf-8", "replace").splitlines()
                if line.strip()]
        last = said[-1][:300] if said else f"{groups.ended(done.returncode)}, no output"
        raise ReplayError(f"{directory.name}: the replay ran nothing: {last}")
    row = rows[-1]
    failed = row["outcome"] == "failure"
    signature = row.get("signature")
    status = meta.get("status", "open")
    same_kind = _kind(row.get("exception")) == _kind(meta.get("exception"))
    if status == "fixed":
        verdict = "FAILED" if failed else "ok"
    elif failed and same_kind and _same_trigger(meta, row):
        verdict = "reproduced"  # lines move, types (and the cause) stay
    elif failed:
        verdict = "changed"
    else:
        verdict = "FIXED"
    return Outcome(directory.name, meta.get("target", spec), status, failed, signature, verdict)
