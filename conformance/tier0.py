"""Tier 0 (``python:MODULE:FUNCTION``): the reader's function in a worker process.

Never in rechain's own interpreter: a reader that loops or allocates without end
must not take the run down, and its module must resolve where the user would
import it. The worker (``tier0_worker.py``, a protocol-v1 harness rechain
ships) runs with the reader's interpreter (``--venv``, else rechain's), in the
caller's directory, so ``MODULE`` is found as ``python -c "import MODULE"``
finds it there; rechain's ``sys.path`` is never touched. It is a tier-2
``Harness`` with the same per-case timeout and memory limit: a worker past
either is killed, the case recorded as a timeout or crash, and the next case
gets a fresh worker. Each runner job connects its own worker, so ``--jobs N``
is a pool of N processes, each reused from case to case.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from rechain.conformance.protocol import ProtocolError
from rechain.conformance.protocol_process import Harness, Limits
from rechain.errors import UsageError

WORKER = Path(__file__).with_name("tier0_worker.py")
# ``python -c`` puts the current directory first on sys.path; the worker's own standard
# library imports happen without it, the reader's module is imported with it
BOOT = ("import sys; first = sys.path.pop(0); sys.argv = sys.argv[1:]; import runpy; "
        "runpy.run_path(sys.argv[0], {'READER_PATH': first}, '__main__')")
PRIVATE_PREFIXES = ("CLAUDE", "ANTHROPIC")


def interpreter(venv: Path | None) -> str:
    """The reader's Python: the venv's, else the one rechain runs on."""
    if venv is None:
        return sys.executable
    python = venv / "bin" / "python"
    if not python.exists():
        raise UsageError(f"--venv {venv}: no bin/python in it (not a virtual environment)")
    return str(python.absolute())


def reader_env(scratch: Path) -> dict[str, str]:
    """The caller's environment (PATH, PYTHONPATH, HOME for user site-packages), without
    anything Claude-related, and a private, empty ``CLAUDE_CONFIG_DIR``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(PRIVATE_PREFIXES)}
    config = scratch / "claude"
    config.mkdir(parents=True, exist_ok=True)
    env["CLAUDE_CONFIG_DIR"] = str(config)
    env["PYTHONIOENCODING"] = "utf-8"
    return env


class PythonReader(Harness):
    """A ``MODULE:FUNCTION`` reader behind the tier-2 protocol, in its own process.

    ``declared`` is the module's ``RECHAIN_INFO`` exactly as written (None when it
    has none); ``info`` is what it declares with the defaults filled in.
    """

    def __init__(self, target: str, limits: Limits, python: str, *, strict: bool = False) -> None:
        self.target = target
        argv = [python, "-c", BOOT, str(WORKER), target, str(limits.memory_mb or 0)]
        super().__init__(argv, limits, strict=strict, environment=reader_env)

    @property
    def declared(self) -> dict[str, Any] | None:
        value = self.started.get("declared")
        return value if isinstance(value, dict) else None


def connect_python(target: str, limits: Limits, *, venv: Path | None = None,
                   strict: bool = False) -> PythonReader:
    """``MODULE:FUNCTION`` (a ``.py`` path works as MODULE) as a running tier-0 reader; a
    module that does not import or has no such function is the user's to fix."""
    module, _, function = target.rpartition(":")
    if not module or not function:
        raise UsageError(f"python:{target}: expected python:MODULE:FUNCTION")
    try:
        return PythonReader(target, limits, interpreter(venv), strict=strict)
    except ProtocolError as error:
        raise UsageError(f"python:{target}: {error}") from None
