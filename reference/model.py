"""Value types shared by every stage of the reference loader and its profiles."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, TypeVar, overload

Json = dict[str, Any]


class UsageError(Exception):
    """A request the caller must fix (an unknown profile, entry point or view): never a
    traceback. The CLI prints it on one line and exits 2; ``rechain.errors`` re-exports it,
    so the reference needs no CLI code."""


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """Why a line or entry did not make it into the rebuilt conversation.

    ``line`` is 1-based in the original file (``None`` when the finding is not
    tied to one line); ``through``, when set, makes it a range ``line..through``
    (a skipped stretch is one finding, not one per line); ``kind`` is a short
    stable token from ``rechain/schemas/rebuild.json``; ``detail`` is for people.
    """

    line: int | None
    kind: str
    detail: str
    through: int | None = None

    def to_json(self) -> Json:
        out: Json = {"line": self.line, "kind": self.kind, "detail": self.detail}
        if self.through is not None:
            out["through"] = self.through
        return out


def findings(lines: Sequence[int], kind: str, detail: str | Sequence[str]) -> list[Diagnostic]:
    """One ``Diagnostic(line, kind, detail)`` per line (``detail``: one for all, or one
    per line), built without the frozen class's ``__init__`` (one ``object.__setattr__``
    call per field and instance): a large file's off-chain lines are tens of thousands
    of findings, and ``__init__`` was most of their cost."""
    count = len(lines)
    made = list(map(object.__new__, repeat(Diagnostic, count)))  # type: ignore[call-overload]
    deque(map(_SET_LINE, made, lines), 0)
    deque(map(_SET_KIND, made, repeat(kind, count)), 0)
    deque(map(_SET_DETAIL, made, repeat(detail, count) if type(detail) is str else detail), 0)
    deque(map(_SET_THROUGH, made, repeat(None, count)), 0)
    return made


_SET_LINE, _SET_KIND, _SET_DETAIL, _SET_THROUGH = (
    getattr(Diagnostic, name).__set__ for name in ("line", "kind", "detail", "through"))


T = TypeVar("T")


class EqualToItems(Sequence[T]):
    """A sequence whose items are made or read as asked, equal to a tuple or list of the
    same items (and to another of its class), compared one item at a time: a rebuild's
    ``Messages`` and ``Diagnostics``."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, type(self) | tuple | list):
            return NotImplemented
        return len(self) == len(other) and all(
            a == b for a, b in zip(self, other, strict=True))

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __repr__(self) -> str:
        return repr(tuple(self))

    __hash__ = None  # type: ignore[assignment]


class Diagnostics(EqualToItems[Diagnostic]):
    """A rebuild's diagnostics, worked out when first read, then kept.

    Why each line was left out is most of a large file's findings (one per line off
    the chain, tens of thousands): a caller that reads only the messages (a check that
    compares them, an export) never pays for them. Equal to a tuple or list of the same
    diagnostics.
    """

    __slots__ = ("_items", "_make")

    def __init__(self, make: Callable[[], Sequence[Diagnostic]]) -> None:
        self._make: Callable[[], Sequence[Diagnostic]] | None = make
        self._items: tuple[Diagnostic, ...] | None = None

    def _all(self) -> tuple[Diagnostic, ...]:
        items = self._items
        if items is None:
            make = self._make
            if make is None:  # another thread worked them out meanwhile
                return self._items  # type: ignore[return-value]
            items = self._items = tuple(make())
            self._make = None  # what it read (the run's stages) is the rebuild's to keep
        return items

    @overload
    def __getitem__(self, at: int) -> Diagnostic: ...

    @overload
    def __getitem__(self, at: slice) -> tuple[Diagnostic, ...]: ...

    def __getitem__(self, at: int | slice) -> Diagnostic | tuple[Diagnostic, ...]:
        return self._all()[at]

    def __len__(self) -> int:
        return len(self._all())

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self._all())


@dataclass(frozen=True, slots=True)
class Options:
    """Reader options, as the real readers take them.

    ``disable_precompact_skip`` mirrors ``CLAUDE_CODE_DISABLE_PRECOMPACT_SKIP``;
    the CLI reads the variable at its edge so the stages stay pure.
    """

    include_system_messages: bool = False
    limit: int | None = None
    offset: int = 0
    disable_precompact_skip: bool = False
    entry: str | None = None  # how a session is opened, for profiles with several entry points
    model: str | None = None  # the request's model, for profiles whose output depends on it
    resume_interrupted_turn: bool = False  # CLAUDE_CODE_RESUME_INTERRUPTED_TURN (cli profile)


@dataclass(frozen=True, slots=True)
class Run:
    """What one rebuild's stages worked out, kept so every view is a function of it.

    ``source`` (a ``read.Source``; a read stage may leave its own findings in
    ``source.found``), ``parsed`` (``parse.Parsed``), ``graph`` (``graph.Graph``),
    the leaf and the recovered chain (``None`` and ``[]`` when a reader error came
    before recovery finished), the options, and the profile's views.
    """

    source: Any
    parsed: Any
    graph: Any
    leaf: Json | None
    chain: list[Json]
    options: Options
    views: Mapping[str, Callable[[Rebuild], Json]]


@dataclass(frozen=True, slots=True)
class Rebuild:
    """The conversation a profile rebuilds from one transcript, plus what it left out.

    ``messages`` is a sequence (``lazyrows.Messages``): a message whose row the stages
    kept undecoded is built each time it is read, so a caller that keeps messages keeps
    what it read, and one that writes them out one at a time never holds them all.
    """

    profile: str
    session_id: str | None
    leaf: str | None
    messages: Sequence[Json]
    # a tuple, or ``Diagnostics`` (worked out when first read)
    diagnostics: Sequence[Diagnostic] = field(default=())
    error: str | None = None
    # the stages' own results, for the views (never part of the JSON output)
    run: Run | None = field(default=None, compare=False, repr=False)

    def view(self, name: str) -> Json:
        """One of the profile's extra views, computed from this result (nothing re-parsed)."""
        views = self.run.views if self.run is not None else {}
        if name not in views:
            offered = ", ".join(["messages", *views])
            raise UsageError(f"profile {self.profile} has no view {name!r}; it offers: {offered}")
        return views[name](self)

    @property
    def uuids(self) -> list[str]:
        """The uuids of the rebuilt messages, in order."""
        return [m["uuid"] for m in self.messages]

    def to_json(self) -> Json:
        """The ``rechain rebuild --format json`` object (schema: ``rebuild.json``); every
        message built at once (the command writes them one at a time instead)."""
        return {
            "profile": self.profile,
            "session_id": self.session_id,
            "leaf": self.leaf,
            "messages": list(self.messages),
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "error": self.error,
        }
