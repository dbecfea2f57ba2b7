"""What the tests of printed commands share: finding a printed command, and a ``PATH``
on which no ``rechain`` is found (a user who never activated rechain's venv)."""

from __future__ import annotations

import os
import re
import sysconfig
from pathlib import Path

#: a command printed between backquotes (``run `...` next``, ``replay: `...```)
BACKQUOTED = re.compile(r"`([^`]+)`")


def console_script() -> Path:
    """The ``rechain`` console script of the interpreter running the tests."""
    return Path(sysconfig.get_path("scripts")) / "rechain"


def path_without_rechain(path: str | None = None) -> str:
    """``path`` (default: the current ``PATH``) without any directory that holds a
    ``rechain``: the venv's ``bin`` and any other installation's."""
    entries = (path if path is not None else os.environ.get("PATH", "")).split(os.pathsep)
    kept = [e for e in entries if e and not (Path(e) / "rechain").exists()]
    return os.pathsep.join(kept or ["/usr/bin", "/bin"])
