"""The Claude Code release family: which profile answers for which release.

Only releases a profile was checked against are answered; any other is a clear
error naming what was verified (never a guess).
"""

from __future__ import annotations

ENTRY_POINTS = ("resume-id", "continue", "resume-file")

#: verified release → the profile that reproduces it (oldest first)
VERIFIED: tuple[tuple[str, str], ...] = (
    ("2.1.88", "claude-code@2.1.88"),
    ("2.1.332", "claude-code@2.1.332"),
)


def verified_releases() -> tuple[tuple[str, str], ...]:
    """(release, profile name) for every verified release, oldest first."""
    return VERIFIED
