"""Harnesses: the whole-file loader, one per reference profile, plus the CLI's output path.

Contract: ``rebuild(data, profile, options)`` never raises on any bytes (a
reader's own error is reported in ``Rebuild.error``, not raised) and returns a
consistent result: every message names an entry of the file with its line
number, every diagnostic line is a line of the file. ``output_one_input``
adds what ``rechain rebuild`` does next (JSON and text rendering, written to a
UTF-8 stdout), which must not raise either; ``views_one_input`` computes every
extra view of every profile (``rechain rebuild --view chain|api|state``).
Options (system rows, limit, offset, entry point, model) are chosen from a hash
of the input so every input replays the same way.

Run: ``rechain fuzz rebuild-sdk`` or ``python -m rechain.fuzz.fuzz_rebuild [libFuzzer flags]``.
"""

from __future__ import annotations

import re
import sys
import zlib
from collections.abc import Callable
from types import SimpleNamespace

from rechain import jsonio, textview
from rechain.fuzz.contract import harness
from rechain.reference import DEFAULT_PROFILE, PROFILES, Options, Rebuild, rebuild
from rechain.reference.profiles.claude_code_2_1_88.resume import ENTRY_POINTS

_LIMITS = (None, None, 1, 3)
_OFFSETS = (0, 0, 1, 2)
_ENTRIES = (None, *ENTRY_POINTS)
_MODELS = (None, None, "claude-opus-4-6", "claude-sonnet-4-5-20250929")


class BrokenResultError(AssertionError):
    """``rebuild`` returned something inconsistent with its input."""


def options_for(data: bytes) -> Options:
    """Reader options picked from the input's CRC (half the inputs get the defaults).

    The entry point (used by profiles with several, ignored by the others) and the
    request's model vary too, so every way in is reached."""
    crc = zlib.crc32(data)
    if crc & 1:
        return Options()
    return Options(
        include_system_messages=bool(crc & 2),
        limit=_LIMITS[(crc >> 2) & 3],
        offset=_OFFSETS[(crc >> 4) & 3],
        entry=_ENTRIES[(crc >> 6) & 3],
        model=_MODELS[(crc >> 8) & 3],
        resume_interrupted_turn=bool(crc & 1024),
    )


def check_result(result: Rebuild, data: bytes, profile: str) -> None:
    """What every result must satisfy, whatever the input."""
    if not isinstance(result, Rebuild) or result.profile != profile:
        raise BrokenResultError("not a Rebuild of the requested profile")
    last = data.count(b"\n") + 1
    for message in result.messages:
        line = message.get("line")
        if type(message.get("uuid")) is not str or type(line) is not int or not 1 <= line <= last:
            raise BrokenResultError(f"message without a uuid or a line of the file: {line!r}")
    for diagnostic in result.diagnostics:
        if diagnostic.line is not None and not 1 <= diagnostic.line <= last:
            raise BrokenResultError(f"diagnostic on line {diagnostic.line} of {last}")
    if result.leaf is None and result.messages and result.error is None:
        raise BrokenResultError("messages without a leaf")


def short_name(profile: str) -> str:
    """A profile's shortest unambiguous alias: ``agent-sdk``, ``claude-code-2.1.88``, ..."""
    prefix = profile.split("@")[0]
    aliases = [a for a in PROFILES[profile].aliases if a.startswith(prefix)]
    return aliases[0] if aliases else profile


def slug(profile: str) -> str:
    """The attribute naming a profile's harness: ``agent_sdk``, ``claude_code_2_1_88``."""
    return re.sub(r"[^a-z0-9]+", "_", short_name(profile).lower())


def _profile_harness(name: str) -> Callable[[bytes], None]:
    @harness(max_len=16384, timeout_s=10, description=f"rebuild({name}): never raises")
    def one_input(data: bytes) -> None:
        check_result(rebuild(data, name, options_for(data)), data, name)

    return one_input


#: one harness per profile: target ``rechain.fuzz.fuzz_rebuild:profiles.<slug>``
profiles = SimpleNamespace(**{slug(name): _profile_harness(name) for name in PROFILES})
one_input = _profile_harness(DEFAULT_PROFILE)


@harness(max_len=16384, timeout_s=10, description="rebuild + JSON and text output: never raises")
def output_one_input(data: bytes) -> None:
    result = rebuild(data, options=options_for(data))
    jsonio.dumps(result.to_json())
    textview.render_bytes(result)  # exactly what `rechain rebuild --format text` writes


@harness(max_len=16384, timeout_s=10, description="every profile's extra views: never raise")
def views_one_input(data: bytes) -> None:
    options = options_for(data)
    for profile in PROFILES.values():
        result = rebuild(data, profile, options)
        for view in profile.views:
            jsonio.dumps(result.view(view))


if __name__ == "__main__":
    from rechain.fuzz.worker import exec_harness

    exec_harness("rechain.fuzz.fuzz_rebuild:one_input", sys.argv[1:])
