"""After a run: shrink each finding while it fails the same way, then file it as a case.

Shrinking runs in the target's own interpreter (the worker's ``shrink`` mode,
predicate: the same signature), so a third-party reader is never imported
here. The minimal input is kept next to the original (``<key>.min``), because
a shrinker may wander to another failure if it is not checked.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from rechain.fuzz.findings import key_of
from rechain.fuzz.registry import Target
from rechain.fuzz.regressions import write_regression
from rechain.fuzz.runner import Settings, environment, python_of


def shrink(target: Target, settings: Settings, finding: dict[str, Any], seconds: float) -> Path:
    """The ``.min`` file next to the finding's input (made now unless it is there)."""
    source = Path(finding["input_path"])
    out = source.with_suffix(".min")
    if out.is_file() or finding["exception"] in ("timeout", "oom", "crash"):
        return out if out.is_file() else source
    command = [python_of(settings.venv), "-m", "rechain.fuzz.worker", "--mode", "shrink"]
    command += ["--target", target.spec, "--crash-on", finding["signature"]]
    command += ["--out", str(out), "--seconds", str(seconds)]
    if target.input:
        command += ["--input", target.input]
    command += ["--", str(source)]
    env = environment(target, settings)
    done = subprocess.run(command, capture_output=True, env=env, timeout=seconds * 3 + 60)
    rows = [json.loads(x) for x in done.stdout.splitlines() if x.startswith(b"{")]
    if done.returncode != 0 or not rows or not rows[-1].get("reproduced"):
        out.unlink(missing_ok=True)
        return source
    return out


def reader_version(target: Target, settings: Settings) -> str:
    """The installed version of a third-party reader, or rechain's for our own harnesses."""
    package = (target.package or "rechain").split("==")[0]
    code = f"from importlib.metadata import version; print(version({package!r}))"
    done = subprocess.run(
        [python_of(settings.venv), "-c", code], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or "unknown"


def file_findings(
    target: Target, settings: Settings, findings: list[dict[str, Any]], seconds: float
) -> list[Path]:
    """Shrink every finding and write each as a regression case; returns the case dirs."""
    version = reader_version(target, settings)
    written = []
    for finding in findings:
        path = shrink(target, settings, finding, seconds)
        data = path.read_bytes()
        finding["minimal_size"] = len(data)
        finding["key"] = key_of(finding["signature"])
        written.append(write_regression(target.name, finding, data, version))
    return written
