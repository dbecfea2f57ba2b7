"""The shape of a hand-written scenario and the decorator that collects them.

A scenario is a function of a :class:`~rechain.corpus.build.Session` that
returns the transcript (rows, raw lines or bytes); its docstring is the case
description and the decorator carries the id, tags, reader options and env. This
keeps each case next to its one-line explanation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rechain.corpus.build import Line, Session, jsonl
from rechain.corpus.cases_io import DEFAULT_OPTIONS


def options(*, system: bool = False, limit: int | None = None, offset: int = 0) -> dict[str, Any]:
    """One reader option set, in the order the case files store it."""
    return {"include_system_messages": system, "limit": limit, "offset": offset}


@dataclass(frozen=True)
class Scenario:
    """A built case before it is written to ``corpus/cases/<id>/``."""

    id: str
    description: str
    tags: tuple[str, ...]
    data: bytes
    session_id: str
    env: Mapping[str, str] = field(default_factory=dict)
    variants: tuple[Mapping[str, Any], ...] = (dict(DEFAULT_OPTIONS),)
    source: str = "hand-written"
    origin: str = ""

    def provenance(self) -> dict[str, str]:
        """The case's input provenance: how the bytes were made."""
        key = "generator" if self.source == "generated" else "scenario"
        return {"source": self.source, key: self.origin}


Body = bytes | Sequence[Line]
ScenarioFn = Callable[[], Scenario]


def collector() -> tuple[
    list[ScenarioFn], Callable[..., Callable[[Callable[[Session], Body]], ScenarioFn]]
]:
    """A list plus a decorator that appends built scenarios to it, in source order."""
    found: list[ScenarioFn] = []

    def scenario(
        case_id: str,
        *tags: str,
        variants: Iterable[Mapping[str, Any]] = (),
        env: Mapping[str, str] | None = None,
        session: Mapping[str, Any] | None = None,
        source: str = "hand-written",
    ) -> Callable[[Callable[[Session], Body]], ScenarioFn]:
        def wrap(write: Callable[[Session], Body]) -> ScenarioFn:
            def build() -> Scenario:
                writer = Session(case_id, **(session or {}))
                body = write(writer)
                data = body if isinstance(body, bytes) else jsonl(body)
                description = " ".join((write.__doc__ or "").split())
                return Scenario(
                    id=case_id,
                    description=description,
                    tags=tuple(tags),
                    data=data,
                    session_id=writer.session_id,
                    env=dict(env or {}),
                    variants=(dict(DEFAULT_OPTIONS), *(dict(v) for v in variants)),
                    source=source,
                    origin=f"{write.__module__}:{write.__name__}",
                )

            build.__name__ = write.__name__
            found.append(build)
            return build

        return wrap

    return found, scenario
