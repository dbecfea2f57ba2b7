"""Files and folders a command will write, checked before it starts its work.

A mistyped output path is the user's to fix: said in one line (exit 2) before a run,
so it neither ends in a traceback nor costs the results of a long run.
"""

from __future__ import annotations

import os
from pathlib import Path

from rechain.errors import UsageError


def output_file(option: str, path: Path) -> None:
    """``path`` can be written as a file (its folder exists and takes files)."""
    where = path.expanduser().absolute()
    if where.is_dir():
        raise UsageError(f"{option} {path}: is a directory, not a file")
    if not where.parent.is_dir():
        raise UsageError(f"{option} {path}: no directory {where.parent}")
    if not os.access(where if where.exists() else where.parent, os.W_OK):
        raise UsageError(f"{option} {path}: cannot write there (permission denied)")


def output_dir(option: str, path: Path, *, make: bool = True) -> Path:
    """``path`` as a folder, absolute: made if need be (with ``make=False`` only checked
    that it could be, so a run that stops earlier leaves nothing behind)."""
    where = path.expanduser().absolute()
    if where.exists() and not where.is_dir():
        raise UsageError(f"{option} {path}: is a file, not a directory")
    if not make:
        existing = next(p for p in (where, *where.parents) if p.exists())
        if not existing.is_dir():
            raise UsageError(f"{option} {path}: {existing} is a file, not a directory")
        if not os.access(existing, os.W_OK):
            raise UsageError(f"{option} {path}: cannot write there (permission denied)")
        return where
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"{option} {path}: cannot make it: {error.strerror or error}") from None
    if not os.access(where, os.W_OK):
        raise UsageError(f"{option} {path}: cannot write there (permission denied)")
    return where
