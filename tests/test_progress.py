"""Progress of ``rechain check`` where stderr is not a terminal: a line every ~10 s.

The clock is injected, so nothing here depends on how fast the machine is.
"""

from __future__ import annotations

import io
import re

import pytest
from cli_run import run

from rechain.progress import BAR, LINES, Progress, Style, duration


def drive(total: int, style: Style, cases: int, seconds_each: float,
          every_fifth_fails: bool = False) -> tuple[Progress, io.StringIO]:
    """A progress fed ``cases`` cases, each taking ``seconds_each`` on a hand-moved clock."""
    now = [100.0]
    stream = io.StringIO()
    progress = Progress(total, stream, style, lambda: now[0])
    for _ in range(cases):
        now[0] += seconds_each
        progress.step(1 if every_fifth_fails and progress.done % 5 == 4 else 0)
    now[0] += seconds_each / 2
    return progress, stream


def test_lines_every_ten_seconds_with_rate_and_eta() -> None:
    progress, stream = drive(100, LINES, 50, 1.0, every_fifth_fails=True)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 5
    assert lines[0] == "progress: 10/100 cases (10%), 1.0 cases/s, ETA 1 min 30 s, 2 not passing"
    assert lines[-1].startswith("progress: 50/100 cases (50%), 1.0 cases/s, ETA 50 s")
    progress.end()
    assert stream.getvalue().splitlines()[-1] == \
        "progress: 50/100 cases in 50 s (1.0 cases/s), 10 not passing"


def test_a_fast_run_prints_only_its_closing_line() -> None:
    progress, stream = drive(4, LINES, 4, 0.02)
    progress.end()
    assert stream.getvalue() == "progress: 4/4 cases in 0 s (44.4 cases/s), 0 not passing\n"


def test_the_bar_redraws_in_place() -> None:
    progress, stream = drive(4, BAR, 4, 1.0)
    progress.end()
    assert "\n" not in stream.getvalue()[:-1] and stream.getvalue().count("\r") == 5


def test_durations_read_as_people_say_them() -> None:
    assert [duration(s) for s in (0.4, 42, 185, 3720)] == ["0 s", "42 s", "3 min 05 s",
                                                          "1 h 02 min"]


@pytest.mark.parametrize(("flags", "shown"), [([], True), (["--no-progress"], False)])
def test_check_reports_progress_when_stderr_is_not_a_terminal(
    capsys: pytest.CaptureFixture[str], flags: list[str], shown: bool
) -> None:
    code, _, err = run(capsys, "check", "--impl", "reference", "--against", "reference",
                       "--no-corpus", "--examples", "2", "--seed", "1", *flags)
    assert code == 0
    closing = re.search(r"^progress: 2/2 cases in \S+ s \([0-9.]+ cases/s\), 0 not passing$",
                        err, re.M)
    assert bool(closing) is shown
    assert "\r" not in err
