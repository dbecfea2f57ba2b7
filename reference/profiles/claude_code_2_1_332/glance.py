"""What the CLI's loader reads of a row it only glanced at, and when it must decode it.

The loader's dispatch reads a few fields of every row (type, uuid, parent, the
user row's ``sentAsUuid``, the side, the timestamp, the subtype, the content
blocks' types, the attachment's type). A row those fields show the loader keeps
as it is written, it keeps undecoded (``lazyrows.Pending``) with its facts; a
row the loader rewrites or drops, or whose fields have a shape the glance
does not hold, is decoded and dispatched as before.
"""

from __future__ import annotations

from typing import Any

import msgspec

from rechain.reference.js.values import UNDEFINED, truthy
from rechain.reference.lazyrows import _JSON_NAMES, Glance
from rechain.reference.profiles.claude_code_2_1_332.release import CliRelease


class CliGlance(Glance, gc=False, rename=_JSON_NAMES | {"sent_as": "sentAsUuid",
                                                       "virtual": "isVirtual"}):
    """``lazyrows.Glance`` and the fields only the CLI's loader reads (``isVirtual``: which
    user and assistant rows recovery may put back as asides, with ``isMeta``)."""

    sent_as: Any = None
    timestamp: Any = None
    virtual: Any = None


CLI_GLANCE = msgspec.json.Decoder(CliGlance).decode


def kept_as_written(seen: CliGlance, known: set[str], bridge: dict[str, Any],
                    release: CliRelease) -> bool:
    """Whether the loader keeps this conversation row exactly as written (no rewrite, no
    drop, no key made for its uuid or parent), so that it needs no decoding to be loaded.

    ``known`` holds the uuids loaded so far, ``bridge`` the progress rows' parents.
    """
    kind, parent = seen.type, seen.parent_uuid
    if type(seen.uuid) is not str:
        return False
    if type(parent) is str:
        if bridge and parent and parent in bridge:
            return False
    elif parent is not None and parent is not UNDEFINED and truthy(parent):
        return False
    if kind == "system":
        return seen.subtype != "voice_call_talk" or not release.voice_call_talk_rows
    if kind == "attachment":
        return True
    if kind == "user":
        sent_as = seen.sent_as
        if type(sent_as) is str and sent_as and sent_as not in known:
            return False
    message = seen.message
    if message is None:
        return False
    content = message.content
    if type(content) is str:
        return kind == "user" or not release.assistant_text_content_read
    if type(content) is not list:
        return False
    for block in content:  # noqa: SIM110  (a loop, not ``all``: no generator per row)
        if type(block.type) is not str:
            return False
    return True
