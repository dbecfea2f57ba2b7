"""A ``rechain fuzz`` campaign run as a user runs it, for the tests of the fuzz runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_fuzz(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m rechain fuzz ARGS`` in ``cwd`` with a work folder of its own there; the
    campaign's ``--time`` is long, so it ends by its ``--runs`` (the outer timeout only
    stops one that hangs)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    command = [sys.executable, "-m", "rechain", "fuzz", *args, "--time", "420",
               "--work", "work"]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=720, check=False)
