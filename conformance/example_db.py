"""Failures that persist between runs: Hypothesis example databases for ``rechain check``.

``--example-db`` names where shrunk disagreements are saved and read back: a
directory (``DirectoryBasedExampleDatabase``) or ``redis://HOST:PORT[/DB]``
(``RedisExampleDatabase``, ``pip install 'hypothesis[redis]'``).
``--shared-example-db`` adds one that is only read (another machine's, a team's
Redis), multiplexed with the local one as Hypothesis documents:
``MultiplexedDatabase(local, ReadOnlyDatabase(shared))``. Each kind of generated
input keeps its saved examples under its own prefix.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

from hypothesis import HealthCheck, settings
from hypothesis.database import (
    DirectoryBasedExampleDatabase,
    ExampleDatabase,
    MultiplexedDatabase,
    ReadOnlyDatabase,
)

from rechain.conformance.runner import Item
from rechain.errors import UsageError

#: a settings profile for CI that saves every failure (and its shrink) to a directory
CI_PROFILE = "rechain-ci"
CI_DIRECTORY_ENV = "RECHAIN_EXAMPLE_DB"


def open_one(spec: str) -> ExampleDatabase:
    """A directory path or ``redis://HOST:PORT[/DB]`` as an example database."""
    if spec.startswith("redis://"):
        return _redis(spec)
    if "://" in spec:
        raise UsageError(f"example database {spec!r}: a directory or redis://HOST:PORT")
    path = Path(spec)
    if path.exists() and not path.is_dir():
        raise UsageError(f"example database {spec}: not a directory")
    return DirectoryBasedExampleDatabase(path)


def _redis(spec: str) -> ExampleDatabase:
    parts = urlsplit(spec)
    try:
        port = parts.port or 6379
    except ValueError:
        raise UsageError(f"example database {spec!r}: bad port") from None
    number = parts.path.strip("/") or "0"
    if not parts.hostname or not number.isdigit():
        raise UsageError(f"example database {spec!r}: want redis://HOST:PORT[/DB]")
    try:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase
    except ImportError:
        raise UsageError("a redis:// example database needs pip install 'hypothesis[redis]'"
                         ) from None
    client = redis.Redis(host=parts.hostname, port=port, db=int(number),
                         socket_connect_timeout=5, socket_timeout=10)
    try:
        client.ping()
    except redis.RedisError as error:
        raise UsageError(f"example database {spec}: {error}") from None
    return RedisExampleDatabase(client)


def open_database(local: str | None, shared: Iterable[str] = ()) -> ExampleDatabase | None:
    """The local database (written), multiplexed with read-only shared ones; None if neither."""
    readers = [ReadOnlyDatabase(open_one(spec)) for spec in shared]
    parts = ([open_one(local)] if local is not None else []) + readers
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else MultiplexedDatabase(*parts)


class Prefixed(ExampleDatabase):
    """Every key under ``prefix``: one database holds each kind of input apart."""

    def __init__(self, inner: ExampleDatabase, name: str) -> None:
        super().__init__()
        self.inner = inner
        self.prefix = f"rechain:{name}:".encode()

    def __repr__(self) -> str:
        return f"Prefixed({self.inner!r}, {self.prefix!r})"

    def save(self, key: bytes, value: bytes) -> None:
        self.inner.save(self.prefix + key, value)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        yield from self.inner.fetch(self.prefix + key)

    def delete(self, key: bytes, value: bytes) -> None:
        self.inner.delete(self.prefix + key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self.inner.move(self.prefix + src, self.prefix + dest, value)


def register_ci_profile(directory: str | None = None) -> str:
    """Register ``rechain-ci``: no wall-clock limits, a printed blob to reproduce a failure,
    and every failure saved to ``directory`` (``$RECHAIN_EXAMPLE_DB``, default
    ``.hypothesis/examples``) so a cached or uploaded directory replays it next run.

    Hypothesis' own ``ci`` profile has ``database=None``: nothing would persist."""
    where = directory or os.environ.get(CI_DIRECTORY_ENV) or ".hypothesis/examples"
    settings.register_profile(
        CI_PROFILE, database=DirectoryBasedExampleDatabase(where), deadline=None,
        print_blob=True, suppress_health_check=[HealthCheck.too_slow])
    return CI_PROFILE


def saved_items(database: ExampleDatabase, kinds: Iterable[str], profile: str,
                view: str = "session-messages") -> list[Item]:
    """Items for the examples saved by earlier runs' shrinks, kind by kind, smallest first;
    ids ``saved-gen-000``, ``saved-cor-000``, ... (never shrunk again: they are minimal)."""
    from rechain.conformance import differential as diff

    items: list[Item] = []
    for kind in kinds:
        values = diff.saved(diff.strategy_for(kind), Prefixed(database, kind))
        for index, value in enumerate(values):
            item = diff.make_item(value, kind, index, profile, view=view)  # type: ignore[arg-type]
            items.append(replace(item, case=replace(item.case, id=f"saved-{kind[:3]}-{index:03d}")))
    return items
