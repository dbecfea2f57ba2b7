"""Words for people reading rechain's output: a count with its noun, as a person writes it."""

from __future__ import annotations


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``1 comparison``, ``2 comparisons``, ``0 messages`` (``plural`` when not noun + s)."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def counted_lines(number: object) -> str:
    """A case's line count as a report has it (``? lines`` when it has none)."""
    return counted(number, "line") if isinstance(number, int) else "? lines"
