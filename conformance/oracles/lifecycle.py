"""The context-manager shell every oracle adapter shares: ``with`` starts it and closes it.

Each adapter owns something to stop (a worker process, a fake API server);
``start`` and ``close`` say how, this base says when.
"""

from __future__ import annotations

from typing import Self


class Lifecycle:
    """``with oracle:`` calls ``start()`` on entry and ``close()`` on exit, even on error."""

    def start(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
