"""ISO-8601 timestamps with milliseconds, the way Claude Code writes them (``…T12:34:56.789Z``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import lru_cache

#: 2026-01-01T00:00:00.000Z in milliseconds since the epoch: where drawn start times shrink to.
EPOCH_MS = 1_767_225_600_000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def iso(ms: int) -> str:
    """Milliseconds since the Unix epoch as ``YYYY-MM-DDTHH:MM:SS.mmmZ``."""
    return f"{_second(ms // 1000)}.{ms % 1000:03d}Z"


@lru_cache(maxsize=4096)
def _second(seconds: int) -> str:
    return (_EPOCH + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S")
