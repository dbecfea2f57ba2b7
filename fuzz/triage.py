"""After a run: shrink each finding while it fails the same way, then file it as a case.

Shrinking runs in the target's own interpreter: libFuzzer's minimiser on a
worker that crashes only on the finding's signature, then the worker's
``shrink`` mode (same predicate), so a third-party reader is never imported
here. The minimal input is kept next to the original (``<key>.min``), because
a shrinker may wander to another failure if it is not checked.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rechain.fuzz import groups
from rechain.fuzz.findings import key_of
from rechain.fuzz.registry import Target
from rechain.fuzz.regressions import case_id, write_regression
from rechain.fuzz.runner import Settings, environment, neutral_cwd, python_of, scratch_dir
from rechain.fuzz.traits import key, variant


def _worker(target: Target, settings: Settings, *options: str) -> list[str]:
    command = [python_of(settings.venv), "-m", "rechain.fuzz.worker", "--target", target.spec]
    if target.input:
        command += ["--input", target.input]
    for package in target.instrument:
        command += ["--instrument", package]
    for module in target.scope:
        command += ["--scope", module]
    return [*command, *options]


#: a shrinking step's time for starting its processes (imports) past its own budget
START_S = 30
#: how long the replay that names a finding's trigger may take: a safety limit
CLASSIFY_S = 600


def _bounded(
    command: list[str], env: dict[str, str], cwd: Path, seconds: float
) -> subprocess.CompletedProcess[bytes] | None:
    """Run a worker, and every process it starts, for at most ``seconds`` (None if it was
    stopped): libFuzzer's minimiser runs a child per step until nothing gets smaller, so
    its own ``-max_total_time`` bounds a step, not the whole; a finding took minutes
    whatever ``--shrink-seconds`` said."""
    try:
        return groups.run(command, seconds, env=env, cwd=cwd)
    except subprocess.TimeoutExpired:
        return None


def _named(finding: dict[str, Any], source: Path, suffix: str) -> Path:
    """``<key of the variant><suffix>`` next to the input: one shrink result per variant."""
    return source.parent / f"{key_of(finding.get('variant') or finding['signature'])}{suffix}"


def libfuzzer_minimise(
    target: Target, settings: Settings, finding: dict[str, Any], source: Path, seconds: float
) -> Path:
    """libFuzzer's ``-minimize_crash`` with a worker that crashes only on this signature."""
    out = _named(finding, source, ".lfmin")
    flags = ["-minimize_crash=1", f"-max_total_time={max(int(seconds), 1)}", "-runs=100000"]
    flags += [f"-exact_artifact_path={out}", f"-artifact_prefix={source.parent}/", str(source)]
    work = source.parent / "minimise-findings"
    command = _worker(
        target, settings, "--crash-on", finding["variant"], "--findings", str(work), "--", *flags
    )
    _bounded(command, environment(target, settings), neutral_cwd(settings), seconds + START_S)
    shutil.rmtree(scratch_dir(settings), ignore_errors=True)  # the launcher libFuzzer ran
    return out if out.is_file() and out.stat().st_size <= source.stat().st_size else source


def shrink(target: Target, settings: Settings, finding: dict[str, Any], seconds: float) -> Path:
    """The ``.min`` file next to the finding's input (made now unless it is there).

    libFuzzer's minimiser first (bytes), then the worker's checked delta
    debugging over lines and JSON values; hangs and blow-ups are kept whole.
    """
    source = Path(finding["input_path"])
    out = _named(finding, source, ".min")
    if out.is_file() or finding["exception"] in ("timeout", "oom", "crash", "exit"):
        return out if out.is_file() else source
    start = libfuzzer_minimise(target, settings, finding, source, seconds / 2)
    options = ["--mode", "shrink", "--crash-on", finding["variant"], "--out", str(out)]
    command = _worker(target, settings, *options, "--seconds", str(seconds / 2), "--", str(start))
    done = _bounded(command, environment(target, settings), neutral_cwd(settings),
                    seconds / 2 + START_S)
    rows = [] if done is None else [
        json.loads(x) for x in done.stdout.splitlines() if x.startswith(b"{")]
    if done is None or done.returncode != 0 or not rows or not rows[-1].get("reproduced"):
        out.unlink(missing_ok=True)
        return source
    return out


def classify(target: Target, settings: Settings, finding: dict[str, Any]) -> str:
    """The finding's key with its causal trigger, from a replay of its input in the worker."""
    source = Path(finding["input_path"])
    guess = finding.get("variant") or variant(
        finding["signature"], source.read_bytes() if source.is_file() else b""
    )
    if finding["exception"] in ("timeout", "oom", "crash", "exit") or not source.is_file():
        return guess
    command = _worker(target, settings, "--mode", "replay", "--", str(source))
    env = environment(target, settings)
    done = _bounded(command, env, neutral_cwd(settings), CLASSIFY_S)
    if done is None:  # the finding's own bound stops a hang; this one, a stuck start
        return guess
    rows = [json.loads(x) for x in done.stdout.splitlines() if x.startswith(b"{")]
    if not rows or rows[-1].get("signature") != finding["signature"]:
        return guess
    return key(finding["signature"], rows[-1].get("trigger", ""))


def reader_version(target: Target, settings: Settings) -> str:
    """The installed version of a third-party reader, or rechain's for our own harnesses."""
    package = (target.package or "rechain").split("==")[0]
    code = f"from importlib.metadata import version; print(version({package!r}))"
    done = subprocess.run(
        [python_of(settings.venv), "-c", code], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or "unknown"


def file_findings(
    target: Target, settings: Settings, findings: list[dict[str, Any]], seconds: float,
    progress: Callable[[int, int, dict[str, Any]], None] | None = None,
) -> list[Path]:
    """Shrink every finding and write each as a regression case; returns the case dirs.

    Findings that end in one case (records of one variant, or variants that shrink to the
    same input) are written once, its notes describing them all.

    ``progress(i, n, finding)`` is told before each one: shrinking takes up to ``seconds``
    per finding, and a campaign with thirty findings was otherwise silent for half an hour.
    """
    version = reader_version(target, settings)
    leads: dict[str, tuple[dict[str, Any], bytes]] = {}  # per case id: its finding, input
    held: dict[str, list[dict[str, Any]]] = {}  # per case id: every finding it holds
    case_of: dict[str, str] = {}  # per variant: its case id
    for number, finding in enumerate(findings, 1):
        if progress is not None:
            progress(number, len(findings), finding)
        finding["variant"] = classify(target, settings, finding)
        if finding["variant"] in case_of:  # two records (old, or a guessed trigger) of one
            held[case_of[finding["variant"]]].append(finding)  # variant: one case holds both
            continue
        path = shrink(target, settings, finding, seconds)
        data = path.read_bytes()
        finding["minimal_size"] = len(data)
        # the case records what its own input fails on (a reused shrink may predate triggers)
        minimal = classify(target, settings, {**finding, "input_path": str(path)})
        finding["trigger"] = minimal.partition("|")[2]
        finding["key"] = key_of(finding["variant"])
        # another variant that shrank to the same input is the same case
        identifier = case_of[finding["variant"]] = case_id(target.name, finding["exception"],
                                                           data)
        leads.setdefault(identifier, (finding, data))
        held.setdefault(identifier, []).append(finding)
    user = {"paths": settings.paths, "venv": settings.venv, "input_kind": target.input}
    bounds = {"timeout_s": settings.timeout_s, "rss_mb": settings.rss_mb}
    return [write_regression(target.name, finding, data, version, bounds=bounds,
                             grouped=held[identifier], **(user if target.user else {}))
            for identifier, (finding, data) in leads.items()]
