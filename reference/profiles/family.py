"""The Claude Code release family: one profile per release, built from the known switches.

Releases 2.1.285 to 2.1.332 are the 2.1.332 profile with the switches of
``CliRelease`` set from the first release of each change (found by bisecting with
``rechain drift``); 2.1.88 is its own profile. A release is answered only inside a
range whose both ends were checked against the real program; any other is a clear
error naming what was verified, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

from rechain.reference.model import UsageError
from rechain.reference.profiles.claude_code_2_1_88 import SEED
from rechain.reference.profiles.claude_code_2_1_332.load import parse_cli
from rechain.reference.profiles.claude_code_2_1_332.profile import (
    CLAUDE_CODE,
    api_view,
    chain_view,
)
from rechain.reference.profiles.claude_code_2_1_332.release import CliRelease
from rechain.reference.stages import Profile

ENTRY_POINTS = ("resume-id", "continue", "resume-file")


def version_tuple(version: str) -> tuple[int, ...]:
    """``"2.1.88"`` → ``(2, 1, 88)``; anything else is the user's mistake."""
    parts = version.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise UsageError(f"claude-code@{version}: a release is three numbers, e.g. 2.1.332")
    return tuple(int(p) for p in parts)


@dataclass(frozen=True, slots=True)
class Switch:
    """One behaviour change of the resume: the ``CliRelease`` field and its first release."""

    field: str
    first: str
    summary: str


#: Changes between 2.1.285 and 2.1.332, each from a ``rechain drift`` bisection.
SWITCHES: tuple[Switch, ...] = (
    Switch("tool_use_caller", "2.1.304",
           "tool_use blocks are sent with their `caller` (before: without it)"),
    Switch("voice_call_records", "2.1.319",
           "a voice-call user row is sent as a VoiceCallRecord call and its result (before: as "
           "a plain user row)"),
    Switch("voice_record_blocks", "2.1.321",
           "the voice-call record's reminder and result speak of one or more blocks (before: "
           "of one block)"),
    Switch("voice_call_talk_rows", "2.1.323",
           "a voice_call_talk system row is read as the row it stands for (before: left out)"),
)

#: Releases checked against the real program, oldest first, and on what.
VERIFIED: tuple[tuple[str, str], ...] = (
    ("2.1.88", "the corpus's recorded 2.1.88 expectations, all three entry points"),
    ("2.1.285", "the whole corpus (202/202 option sets)"),
    ("2.1.303", "the cases each switch shows on (9/9)"),
    ("2.1.304", "the whole corpus (205/205 option sets)"),
    ("2.1.318", "the cases each switch shows on (9/9)"),
    ("2.1.319", "the whole corpus (205/205 option sets)"),
    ("2.1.321", "the whole corpus (205/205 option sets)"),
    ("2.1.322", "the cases each switch shows on (9/9)"),
    ("2.1.323", "the whole corpus (202/202 option sets)"),
    ("2.1.332", "the whole corpus's recorded expectations and generated sweeps"),
)

#: Ranges answered by the switches (both ends verified); single releases outside them.
CLI_RANGE = ("2.1.285", "2.1.332")


def cli_release(version: str) -> CliRelease:
    """The switches of one release of the 2.1.332 line."""
    at = version_tuple(version)
    settings = {s.field: at >= version_tuple(s.first) for s in SWITCHES}
    return CliRelease(version=version, **settings)


def _verified_text() -> str:
    low, high = CLI_RANGE
    singles = [v for v, _ in VERIFIED
               if not version_tuple(low) <= version_tuple(v) <= version_tuple(high)]
    return f"{', '.join(singles)} and {low} to {high}"


def is_answered(version: str) -> bool:
    """Whether the family answers for this release (inside what was verified)."""
    at = version_tuple(version)
    low, high = (version_tuple(v) for v in CLI_RANGE)
    return low <= at <= high or version == SEED.name.split("@")[1]


def profile_for(version: str) -> Profile:
    """The profile of ``claude-code@version``; outside what was verified, a UsageError."""
    if version == SEED.name.split("@")[1]:
        return SEED
    if not is_answered(version):
        raise UsageError(f"claude-code@{version} is not a verified release; rechain answers for "
                         f"{_verified_text()} (`rechain history` shows them)")
    release = cli_release(version)
    if release == CliRelease():
        return CLAUDE_CODE
    return replace(
        CLAUDE_CODE,
        name=release.profile_name,
        description=f"claude -p --resume <id> of Claude Code {version}",
        oracle=f"claude-code@{version}",
        parse=partial(parse_cli, release=release),
        aliases=(),
        views={"chain": chain_view, "api": partial(api_view, release=release)},
    )


def verified_releases() -> tuple[tuple[str, str], ...]:
    """(release, profile name) for every verified release and switch point, oldest first."""
    points = {v for v, _ in VERIFIED} | {s.first for s in SWITCHES}
    ordered = sorted((p for p in points if is_answered(p)), key=version_tuple)
    return tuple((v, f"claude-code@{v}") for v in ordered)

