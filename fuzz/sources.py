"""Transcripts from ``rechain.strategies``, when that package is there, for seeds and properties.

The strategies are another part of the suite and may be missing or half
built; everything here degrades to "no generated transcripts" rather than
failing, so seeding and the property harness never depend on them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings


def strategy(name: str = "transcripts", corrupted: bool = False) -> Any | None:
    """``rechain.strategies.scripts.transcripts()`` (optionally corrupted), or None."""
    try:
        scripts = importlib.import_module("rechain.strategies.scripts")
        base = getattr(scripts, name)()
        if not corrupted:
            return base
        corruptions = importlib.import_module("rechain.strategies.corruptions")
        return corruptions.corrupted(base)
    except Exception:  # a half-written sibling package must not break fuzzing
        return None


def draw_all(source: Any, count: int, use: Callable[[Any], None]) -> None:
    """Call ``use`` on ``count`` deterministic draws (no database, no shrinking)."""

    @settings(
        max_examples=count,
        database=None,
        derandomize=True,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(source)
    def collect(value: Any) -> None:
        use(value)

    collect()


def generated_transcripts(count: int) -> Iterator[bytes]:
    """Up to ``count`` clean and ``count`` corrupted generated files (none without strategies)."""
    found: list[bytes] = []
    for corrupted in (False, True):
        source = strategy(corrupted=corrupted)
        if source is None or count <= 0:
            continue
        try:
            draw_all(source, count, lambda t: found.append(t.to_bytes()))
        except Exception:  # see the module docstring
            continue
    yield from found
