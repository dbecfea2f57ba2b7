"""Progress of a long run on stderr: a redrawn bar on a terminal, a line every ~10 s elsewhere.

A CLI sweep takes minutes to hours; in CI logs or under ``nohup`` there is no
terminal to redraw, so the same counts are written as plain lines, seldom enough
to keep a log readable: cases done of the total, the rate and the time left.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO


@dataclass(frozen=True, slots=True)
class Style:
    """How progress is drawn: how often, and whether a line replaces the previous one."""

    every: float
    redraw: bool


BAR = Style(every=0.1, redraw=True)
LINES = Style(every=10.0, redraw=False)


def duration(seconds: float) -> str:
    """``1 h 02 min``, ``3 min 05 s``, ``42 s``."""
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"


def _rate(done: int, elapsed: float) -> str:
    if elapsed <= 0:
        return "? cases/s"
    per_second = done / elapsed
    return f"{per_second:.1f} cases/s" if per_second >= 0.1 else f"{per_second:.3f} cases/s"


class Progress:
    """Counts cases as they end and draws them in one ``Style``; ``stream=None`` draws nothing."""

    def __init__(self, total: int, stream: IO[str] | None, style: Style,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.stream, self.style, self.clock = total, stream, style, clock
        self.done, self.bad = 0, 0
        self.started = clock()
        self._last = self.started

    def step(self, not_passing: int = 0) -> None:
        """One case ended (``not_passing`` of its records failed, crashed or timed out)."""
        self.done += 1
        self.bad += not_passing
        now = self.clock()
        if self.stream is None or now - self._last < self.style.every:
            return
        if self.style.redraw or self.done < self.total:
            self._last = now
            self._draw(now)

    def end(self) -> None:
        """The last state, then a newline (a bar) or a closing line (lines)."""
        if self.stream is None:
            return
        now = self.clock()
        if self.style.redraw:
            self._draw(now)
            self.stream.write("\n")
        else:
            elapsed = now - self.started
            self.stream.write(f"progress: {self.done}/{self.total} cases in {duration(elapsed)} "
                              f"({_rate(self.done, elapsed)}), {self.bad} not passing\n")
        self.stream.flush()

    def _draw(self, now: float) -> None:
        assert self.stream is not None
        if self.style.redraw:
            width = 30
            filled = int(width * self.done / max(self.total, 1))
            self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] "
                              f"{self.done}/{self.total} cases, {self.bad} not passing ")
        else:
            elapsed = now - self.started
            share = 100 * self.done // max(self.total, 1)
            left = (self.total - self.done) * elapsed / self.done if self.done else None
            eta = duration(left) if left is not None else "?"
            self.stream.write(f"progress: {self.done}/{self.total} cases ({share}%), "
                              f"{_rate(self.done, elapsed)}, ETA {eta}, "
                              f"{self.bad} not passing\n")
        self.stream.flush()
