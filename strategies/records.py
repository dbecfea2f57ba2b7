"""What the writer knows about each line it wrote, beyond the bytes.

A :class:`Record` travels with every generated line. The expectation engine
(:mod:`rechain.strategies.conversation`) reads the *line* for what a reader sees (type,
``parentUuid``, ``message.id``, timestamp) and the record only for the writer's intent
that is not spelled out on the line: how a preserving compaction boundary relinks.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Compaction:
    """How a preserving boundary relinks the chain (``format.md`` §2.1, Oracle 1 step 2).

    ``heads`` maps each relinked uuid to its new parent (the segment head to the anchor;
    for ``preservedMessages`` every listed uuid to the one before it). Every *other*
    entry whose parent is ``anchor`` continues after ``tail``. In force while the
    boundary is readable and every uuid in ``requires`` is present.
    """

    anchor: str
    tail: str
    heads: tuple[tuple[str, str], ...]
    requires: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Record:
    """Writer-side facts about one line of the main file (``uuid`` is None for metadata)."""

    uuid: str | None
    #: set on a preserving compact boundary
    compaction: Compaction | None = None
