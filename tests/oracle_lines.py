"""Helpers shared by the oracle tests: minimal rows as JSONL bytes, and the skip marker.

Rows are written with ``json.dumps``' default separators; some tests patch the bytes
(``b'"type": "assistant"'``), so the spacing is part of the contract.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest


def needs_oracle(name: str, unavailable: str | None) -> Callable[[Any], Any]:
    """A marker for tests that run the installed oracle: they skip with the reason otherwise."""
    skip = pytest.mark.skipif(unavailable is not None, reason=f"{name}: {unavailable}")

    def mark(test: Any) -> Any:
        return pytest.mark.oracle(skip(test))

    return mark


def line(**entry: object) -> bytes:
    return json.dumps(entry).encode() + b"\n"


def user(uuid: str, parent: str | None, text: str = "hi", **extra: object) -> bytes:
    return line(type="user", uuid=uuid, parentUuid=parent,
                message={"role": "user", "content": text}, **extra)


def assistant(uuid: str, parent: str | None, text: str = "ok", **extra: object) -> bytes:
    return line(type="assistant", uuid=uuid, parentUuid=parent,
                message={"role": "assistant", "content": [{"type": "text", "text": text}]},
                **extra)


def uuids(messages: list[dict[str, Any]]) -> list[str]:
    return [m["uuid"] for m in messages]
