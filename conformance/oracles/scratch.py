"""Where oracle processes lay out their transcripts: memory-backed when the machine has it.

Every oracle call writes a transcript (and a config dir around it) that the real
program reads once and rechain deletes. On a disk file system each create and
delete is journalled: measured on this project's 2-core machine, the TS SDK
bridge spent as much system time creating and removing its scratch dirs on ext4
as the SDK spent reading. A tmpfs (``/dev/shm`` on Linux) keeps those files in
memory, so the scratch goes there when it is a writable directory, and to the
usual temp dir otherwise. ``RECHAIN_SCRATCH=DIR`` picks another place.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

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


def make_scratch(prefix: str) -> Path:
    """A fresh private directory for one oracle process or run (the caller removes it)."""
    return Path(os.path.realpath(tempfile.mkdtemp(prefix=prefix, dir=scratch_parent())))
