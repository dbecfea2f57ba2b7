"""``--shard I/N``: one of N deterministic slices of a run, for a CI matrix.

Every machine builds the same full list (same corpus, same seed), keeps the
positions ``p`` with ``p % N == I - 1`` and remembers each kept item's position in
the full list, so the shards' reports merge back into the unsplit run's report.
Round-robin keeps the slices within one item of each other in size.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from rechain.errors import UsageError

T = TypeVar("T")
_FORM = re.compile(r"([0-9]+)/([0-9]+)")


@dataclass(frozen=True, slots=True)
class Shard:
    """Slice ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise ValueError(f"shard {self.index}/{self.count}: I must be between 1 and N")

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def keeps(self, position: int) -> bool:
        """Whether the item at 0-based ``position`` of the full list belongs here."""
        return position % self.count == self.index - 1

    def take(self, items: Sequence[T]) -> list[tuple[int, T]]:
        """This shard's items with their 0-based positions in ``items``."""
        return [(position, item) for position, item in enumerate(items) if self.keeps(position)]

    def to_json(self) -> dict[str, int]:
        return {"index": self.index, "count": self.count}


def assign(shard: Shard | None, leading: Sequence[T], items: Sequence[T]
           ) -> list[tuple[int, T]]:
    """What one machine runs, each with its 0-based position in the unsplit run.

    ``leading`` (saved failures, replayed first) is never split: shard 1 runs all of
    it; ``items`` come after it, round-robin."""
    first = list(enumerate(leading)) if shard is None or shard.index == 1 else []
    rest = shard.take(items) if shard is not None else list(enumerate(items))
    return first + [(len(leading) + position, item) for position, item in rest]


def parse(text: str) -> Shard:
    """``I/N`` as a shard; ValueError with the reason when it is not one."""
    match = _FORM.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"{text!r} is not I/N (e.g. 2/3)")
    return Shard(int(match[1]), int(match[2]))


def argument(text: str) -> Shard:
    """``parse`` as an argparse ``type`` (a bad value is a usage error, exit 2)."""
    try:
        return parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def require(shard: Shard, total: int, what: str) -> None:
    """A shard left with nothing to run is a usage error, never a pass."""
    if total < shard.index:
        raise UsageError(f"--shard {shard}: only {total} {what} to split; use fewer shards")
