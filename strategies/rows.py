"""Transcript rows: the one place a row's fields are put in order and turned into bytes.

Claude Code writes a chain row as three groups: the chain fields (``parentUuid`` first,
``logicalParentUuid`` on a boundary, ``isSidechain``), the entry's own fields (its
``type``, ``message``, flags, ``uuid``, ``timestamp``, in the order of its kind) and the
session stamps (``userType``, ``entrypoint``, ``cwd``, ``sessionId``, ``version``,
``gitBranch``, ``slug``), which releases up to 2.1.3x put before the own fields. The
writer model (:mod:`rechain.strategies.writer`), the corpus scenarios, the load
benchmark's synthetic transcripts and the unit tests all build rows with these functions
and serialise them with :func:`dumps` / :func:`jsonl`, so a change of layout or encoding
is made once.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

import orjson

Json = dict[str, Any]
#: A transcript line: a row, or raw bytes / text written verbatim (for broken lines).
Line = Json | bytes | str


class _Drop:
    """Marker for a field a caller wants left out of a row (say, a stamp)."""

    def __repr__(self) -> str:
        return "DROP"


DROP: Final[Any] = _Drop()


def dumps(row: object) -> bytes:
    """One row as ``JSON.stringify`` writes it: compact, UTF-8, non-ASCII kept, no newline.

    orjson for speed; what it refuses (integers past 64 bits) goes through :mod:`json`,
    which writes the same bytes for every value both accept.
    """
    try:
        return orjson.dumps(row)
    except TypeError:
        return json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode()


def line(row: Line) -> bytes:
    """One line of a file: a row serialised (or raw bytes/text verbatim) plus LF."""
    return _bytes(row) + b"\n"


def _bytes(row: Line) -> bytes:
    if isinstance(row, bytes):
        return row
    if isinstance(row, str):
        return row.encode()
    return dumps(row)


def jsonl(lines: Iterable[Line], *, newline: bytes = b"\n", final_newline: bool = True) -> bytes:
    """Rows and raw lines joined into a file, one per line (LF unless told otherwise)."""
    chunks = [_bytes(item) for item in lines]
    data = newline.join(chunks)
    return data + newline if final_newline and chunks else data


def chain(parent: str | None, *, sidechain: bool = False, logical: str | _Drop | None = DROP,
          agent_id: str | None = None) -> Json:
    """The chain fields: ``parentUuid``, ``logicalParentUuid`` (boundaries only),
    ``isSidechain``, and the ``agentId`` current releases write right after them."""
    out: Json = {"parentUuid": parent}
    if logical is not DROP:
        out["logicalParentUuid"] = logical
    out["isSidechain"] = sidechain
    if agent_id is not None:
        out["agentId"] = agent_id
    return out


def stamps(session_id: str, *, cwd: str, version: str, git_branch: str,
           entrypoint: str | None = "cli", agent_id: str | None = None,
           slug: str | None = None) -> Json:
    """The session stamps in Claude Code's order (``entrypoint`` and ``slug`` only in the
    releases that write them; ``agentId`` here in the stamps-first layout)."""
    out: Json = {"userType": "external"}
    if entrypoint is not None:
        out["entrypoint"] = entrypoint
    out["cwd"] = cwd
    out["sessionId"] = session_id
    out["version"] = version
    out["gitBranch"] = git_branch
    if agent_id is not None:
        out["agentId"] = agent_id
    if slug is not None:
        out["slug"] = slug
    return out


def row(head: Mapping[str, Any], own: Mapping[str, Any], stamped: Mapping[str, Any] | None = None,
        *, stamps_first: bool = False) -> Json:
    """A row: chain fields, then the own fields, then each stamp the row does not set itself
    (``stamps_first``: the stamps between the chain and the own fields). A field whose value
    is :data:`DROP` is left out; an own field that repeats a chain field keeps its place."""
    if stamps_first and stamped:
        out: Json = {**head, **stamped, **own}
    else:
        out = {**head, **own}
        if stamped and out.keys().isdisjoint(stamped):
            out.update(stamped)
        elif stamped:
            for key, value in stamped.items():
                if key not in out:
                    out[key] = value
    if DROP in out.values():
        return {key: value for key, value in out.items() if value is not DROP}
    return out


# -- message fields -------------------------------------------------------------------------

def user_message(content: str | list[Json]) -> Json:
    """A user row's ``message``."""
    return {"role": "user", "content": content}


def usage(input_tokens: int, output_tokens: int, *, cache_creation: int = 0,
          cache_read: int = 0, service_tier: str | None = "standard") -> Json:
    """An assistant message's ``usage`` in the API's key order."""
    out: Json = {"input_tokens": input_tokens, "cache_creation_input_tokens": cache_creation,
                 "cache_read_input_tokens": cache_read, "output_tokens": output_tokens}
    if service_tier is not None:
        out["service_tier"] = service_tier
    return out


def assistant_message(content: list[Json], message_id: str | None = None, *,
                      model: str | None = None, usage: Json | None = None,
                      model_first: bool = True) -> Json:
    """An assistant row's ``message``: the API response holding ``content``.

    With a ``model``, the whole response as Claude Code stores it (``model`` first in
    current releases, after ``role`` in 1.0.x); without one, the bare ``role``/``content``
    (and ``id``) that unit tests need.
    """
    if model is None:
        bare: Json = {"role": "assistant", "content": content}
        if message_id is not None:
            bare["id"] = message_id
        return bare
    if model_first:
        out: Json = {"model": model, "id": message_id, "type": "message", "role": "assistant"}
    else:
        out = {"id": message_id, "type": "message", "role": "assistant", "model": model}
    out["content"] = content
    out["stop_reason"] = None
    out["stop_sequence"] = None
    out["usage"] = usage
    return out


# -- content blocks -------------------------------------------------------------------------

def text(value: str) -> Json:
    """A ``text`` block."""
    return {"type": "text", "text": value}


def thinking(value: str, signature: str) -> Json:
    """A ``thinking`` block."""
    return {"type": "thinking", "thinking": value, "signature": signature}


def tool_use(tool_id: str, name: str, tool_input: Json) -> Json:
    """A ``tool_use`` block."""
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


def tool_result(tool_id: str, content: object, is_error: bool | None = None) -> Json:
    """A ``tool_result`` block (``is_error`` written only when given)."""
    out: Json = {"tool_use_id": tool_id, "type": "tool_result", "content": content}
    if is_error is not None:
        out["is_error"] = is_error
    return out


def bash_result(stdout: str) -> Json:
    """The ``toolUseResult`` a Bash call leaves on its result row."""
    return {"stdout": stdout, "stderr": "", "interrupted": False}
