"""Where oracle processes lay out their transcripts: memory-backed when the machine has it.

Every oracle call writes a transcript (and a config dir around it) that the real
program reads once and rechain deletes. On a disk file system each create and
delete is journalled: measured on this project's 2-core machine, the TS SDK
bridge spent as much system time creating and removing its scratch dirs on ext4
as the SDK spent reading. A tmpfs (``/dev/shm`` on Linux) keeps those files in
memory, so the scratch goes there when it is a writable directory, and to the
usual temp dir otherwise. ``RECHAIN_SCRATCH=DIR`` picks another place.

Each directory is an ``owned_dirs`` one: locked while the rechain that made it lives,
so one a rechain killed outright left (in memory, until the machine restarts) is
removed by the next rechain that makes one of the same kind.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from rechain.conformance.owned_dirs import make_owned, owned

ENV = "RECHAIN_SCRATCH"
MEMORY = Path("/dev/shm")


def scratch_parent() -> str | None:
    """The directory to make scratch dirs in (None: the platform's temp dir)."""
    configured = os.environ.get(ENV, "").strip()
    if configured:
        return configured
    if MEMORY.is_dir() and os.access(MEMORY, os.W_OK | os.X_OK):
        return str(MEMORY)
    return None


def _parent() -> str:
    """``scratch_parent`` resolved: the real program sees the path it was given, links
    followed (its project folder's name is made from it)."""
    return os.path.realpath(scratch_parent() or tempfile.gettempdir())


def make_scratch(prefix: str) -> Path:
    """A fresh private directory for one oracle process or run; ``owned_dirs.release``
    removes it."""
    return make_owned(prefix, _parent())


@contextlib.contextmanager
def scratch(prefix: str) -> Iterator[Path]:
    """``make_scratch`` for the ``with`` body; removed at its end."""
    with owned(prefix, _parent()) as path:
        yield path
