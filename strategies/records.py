"""What the writer knows about each line it wrote, beyond the bytes.

A :class:`Record` travels with every generated line. The expectation engine
(:mod:`rechain.strategies.conversation`) reads the *line* for what a reader sees (type,
``parentUuid``, ``message.id``, timestamp) and the record only for the writer's intent
that is not on the line: the logical parent after a compaction relink, and which
boundary puts that relink in force.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: How a compaction relink picks an entry: by its own uuid (the segment head, the listed
#: preserved messages) or by its written parent being the anchor (everything after).
RelinkKind = Literal["identity", "by-parent"]


@dataclass(frozen=True, slots=True)
class Relink:
    """The compaction relink that gives an entry its logical parent ``parent``.

    In force while the ``boundary`` line is readable and, for ``preservedMessages``,
    every uuid in ``requires`` is present. A ``by-parent`` relink applies only while the
    line still names ``anchor`` as its parent.
    """

    boundary: str
    kind: RelinkKind
    parent: str
    anchor: str
    requires: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Record:
    """Writer-side facts about one line of the main file (``uuid`` is None for metadata)."""

    uuid: str | None
    #: relinks from later compactions, applied in boundary order
    relinks: tuple[Relink, ...] = ()
