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


def output_dir(option: str, path: Path) -> Path:
    """``path`` as a folder that exists (made if need be), absolute."""
    where = path.expanduser().absolute()
    try:
        where.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise UsageError(f"{option} {path}: is a file, not a directory") from None
    except OSError as error:
        raise UsageError(f"{option} {path}: cannot make it: {error.strerror or error}") from None
    if not os.access(where, os.W_OK):
        raise UsageError(f"{option} {path}: cannot write there (permission denied)")
    return where
