"""What each profile's view shows of an intended conversation.

The writer model says which entries make up the conversation (``Transcript.intended``,
in reader order); a profile's *view* says which of them a reader returns. For the TS
Agent SDK (``current-2.1.332.md`` Oracle 1 steps 4, 8-10): rows after the last user or
assistant message are not on the chain (the leaf is the nearest message above the last
terminal); queued-command attachments show as user messages; user and assistant rows
show, system rows only with ``include_system_messages``; ``isMeta`` (bar a few
origins), sidechain, team and quiet-turn closers are hidden; then paging.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rechain.reference.model import Options

Json = dict[str, Any]
SDK = "agent-sdk@0.3.332"
ALIASES = {"sdk": SDK, "agent-sdk": SDK, "agent-sdk-ts": SDK, SDK: SDK}
SHOWN_META_ORIGINS = frozenset(
    {"channel", "observer", "observer-activity", "slack-ping", "voice-call", "peer"})
QUIET_TEXTS = ("", "No response requested.")


def profile_name(profile: str) -> str:
    """The canonical name of a profile this module has a view for."""
    try:
        return ALIASES[profile]
    except KeyError:
        raise ValueError(f"no view for profile {profile!r}; known: {sorted(ALIASES)}") from None


def _queued(row: Json) -> bool:
    attachment = row.get("attachment")
    return (row.get("type") == "attachment" and isinstance(attachment, dict)
            and attachment.get("type") == "queued_command")


def _message_like(row: Json) -> bool:
    return row.get("type") in ("user", "assistant") or _queued(row)


def _quiet(row: Json) -> bool:
    content = row.get("message", {}).get("content") if isinstance(row.get("message"), dict) \
        else None
    return (row.get("type") == "assistant" and row.get("closesQuietTurn") is True
            and isinstance(content, list) and len(content) == 1
            and isinstance(content[0], dict) and content[0].get("type") == "text"
            and content[0].get("text") in QUIET_TEXTS)


def _shown_sdk(row: Json, options: Options) -> bool:
    kind = row.get("type")
    if not (_message_like(row) or (kind == "system" and options.include_system_messages)):
        return False
    origin = row.get("origin")
    origin_kind = origin.get("kind") if isinstance(origin, dict) else None
    if row.get("isMeta") and origin_kind not in SHOWN_META_ORIGINS:
        return False
    return not (row.get("isSidechain") or row.get("teamName") or _quiet(row))


def _page(uuids: list[str], options: Options) -> list[str]:
    if options.limit is not None and options.limit > 0:
        return uuids[options.offset: options.offset + options.limit]
    if options.offset > 0:
        return uuids[options.offset:]
    return uuids


def visible(intended: Sequence[str], entry: Callable[[str], Json], profile: str = "sdk",
            options: Options | None = None) -> list[str]:
    """The uuids ``profile`` shows of the ``intended`` conversation, in order."""
    profile_name(profile)
    options = options or Options()
    rows = [entry(u) for u in intended]
    end = len(rows)
    while end and not _message_like(rows[end - 1]):
        end -= 1
    return _page([r["uuid"] for r in rows[:end] if _shown_sdk(r, options)], options)
