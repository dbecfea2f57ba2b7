"""Where rechain keeps installed oracles: ``$RECHAIN_CACHE`` or ``~/.cache/rechain``."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """The cache root; not created here (callers create what they write)."""
    configured = os.environ.get("RECHAIN_CACHE")
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rechain"
