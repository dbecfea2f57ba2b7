"""Identifiers derived from position, so scripts shrink without dragging random ids along.

Every id is a pure function of ``(salt, index)``: the writer numbers what it creates and
asks for the n-th uuid, tool id or message id. ``salt`` is drawn once per transcript and
shrinks to 0, which gives the most regular ids; any salt gives ids of the real shapes
(uuid4 text, ``toolu_01…``, ``msg_01…``, ``req_011C…``).
"""

from __future__ import annotations

import binascii

_MASK = (1 << 128) - 1
_MIX = 0x9E3779B97F4A7C15F39CC0605CEDC834


def _bits(salt: int, index: int, domain: int) -> int:
    """128 well-mixed bits for one (salt, index, domain) triple."""
    x = (salt * 0x100000001B3 + index * 0x2545F4914F6CDD1D + domain * 0x5851F42D4C957F2D) & _MASK
    x = (x * _MIX + 0x632BE59BD9B4E019) & _MASK
    return x ^ (x >> 61)


_V4_KEEP = ~((0xF << 76) | (0x3 << 62))
_V4_SET = (0x4 << 76) | (0x2 << 62)


def uuid4_text(salt: int, index: int) -> str:
    """A uuid4-shaped lowercase string (version 4, RFC 4122 variant) for entry ``index``."""
    h = f"{_bits(salt, index, 1) & _V4_KEEP | _V4_SET:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


_TO_B62 = bytes.maketrans(b"+/", b"Qz")


def _base62(x: int, width: int) -> str:
    """``width`` characters of [0-9A-Za-z] from the bits of ``x`` (base64, two letters swapped)."""
    raw = binascii.b2a_base64((x & _MASK).to_bytes(16, "little"), newline=False)
    return raw.translate(_TO_B62)[:width].decode()


def tool_use_id(salt: int, index: int) -> str:
    """An Anthropic tool-use id (``toolu_01`` + 22 base62 characters)."""
    return "toolu_01" + _base62(_bits(salt, index, 2), 22)


def message_id(salt: int, index: int) -> str:
    """An API message id (``msg_01`` + 22 base62 characters)."""
    return "msg_01" + _base62(_bits(salt, index, 3), 22)


def request_id(salt: int, index: int) -> str:
    """An API request id (``req_011C`` + 20 base62 characters)."""
    return "req_011C" + _base62(_bits(salt, index, 4), 20)


def agent_id(salt: int, index: int) -> str:
    """A subagent id: 7 hex digits, as in ``agent-a1b2c3d.jsonl``."""
    return f"a{_bits(salt, index, 5) & 0xFFFFFF:06x}"


def slug(salt: int) -> str:
    """A session slug of three words, like ``humble-seeking-umbrella``."""
    words = ("humble", "seeking", "umbrella", "lexical", "painting", "whisper", "idempotent",
             "sprouting", "ocean", "delegated", "marinating", "toast")
    x = _bits(salt, 0, 6)
    return "-".join(words[(x >> (8 * k)) % len(words)] for k in range(3))
