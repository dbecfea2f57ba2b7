"""The Profile record: which stage function fills each slot of the one ``rebuild``.

A profile is data. New readers recombine the stages and swap the ones that
differ, instead of ``if profile == ...`` inside the stages.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from rechain.reference import graph, parse, read, view
from rechain.reference.model import Json, Options


@dataclass(frozen=True, slots=True)
class Profile:
    """One reader's behaviour, stage by stage."""

    name: str
    description: str
    oracle: str
    read: Callable[[bytes, Options], read.Source]
    parse: Callable[..., parse.Parsed]
    relink: Callable[[graph.Graph], None]
    choose_leaf: Callable[[graph.Graph], Json | None]
    walk: Callable[[graph.Graph, Json], list[Json]]
    recover: Callable[[graph.Graph, list[Json]], list[Json]]
    present: Callable[..., view.Presented]
    hidden_reason: Callable[[Json, bool], str | None]
    aliases: tuple[str, ...] = field(default=())
    # extra views a profile offers besides its messages (``rechain rebuild --view NAME``):
    # each takes (data, options, session_id) and returns a JSON object
    views: Mapping[str, Callable[[bytes, Options, str | None], Json]] = field(
        default_factory=dict
    )
