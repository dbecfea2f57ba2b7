"""One ``getSessionMessages``-style call as a value, so many can travel in one request."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MessagesCall:
    """A transcript and the options of one session-messages call to a pinned reader.

    Readers without an option ignore it (the Python SDK has no
    ``include_system_messages``); the impls decide what reaches which reader.
    """

    data: bytes
    session_id: str
    include_system_messages: bool = False
    limit: int | None = None
    offset: int = 0
    env: Mapping[str, str] | None = None

    def request(self, *, system_messages: bool, place: Mapping[str, str] | None = None
                ) -> dict[str, Any]:
        """The case's fields in a worker's request: the bytes as base64 (which keeps every
        byte through JSON), or ``place``, the fields that say where they were already
        written for the reader; ``include_system_messages`` only for a reader that has
        that option."""
        fields: dict[str, Any] = {
            **(place if place is not None
               else {"transcript_b64": base64.b64encode(self.data).decode("ascii")}),
            "session_id": self.session_id,
            "limit": self.limit,
            "offset": self.offset,
            "env": dict(self.env or {}),
        }
        if system_messages:
            fields["include_system_messages"] = self.include_system_messages
        return fields
