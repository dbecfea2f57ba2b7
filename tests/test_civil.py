"""The calendar arithmetic under both JavaScript date models, for any year."""

from __future__ import annotations

import calendar

from hypothesis import given
from hypothesis import strategies as st

from rechain.reference.js.civil import civil_formula, days_from_civil


def _month_days(year: int, month: int) -> int:
    return calendar.monthrange(year % 400 + 2000, month)[1]  # the calendar repeats every 400 years


@given(st.integers(1, 9999), st.integers(1, 12), st.integers(1, 28))
def test_the_formula_agrees_with_the_standard_library(year: int, month: int, day: int) -> None:
    assert civil_formula(year, month, day) == calendar.timegm((year, month, day, 0, 0, 0)) // 86400


@given(st.integers(-300_000, 300_000), st.integers(1, 12))
def test_days_run_on_without_gaps(year: int, month: int) -> None:
    """The first of each month is the last day of the month before plus one, in any year."""
    last = _month_days(year, month)
    next_year, next_month = (year + 1, 1) if month == 12 else (year, month + 1)
    assert days_from_civil(year, month, last) + 1 == days_from_civil(next_year, next_month, 1)


def test_known_days_around_year_zero() -> None:
    assert days_from_civil(1, 1, 1) == -719162
    assert days_from_civil(0, 12, 31) == -719163
    assert days_from_civil(0, 1, 1) == -719162 - 366  # year 0 is a leap year
    assert days_from_civil(-1, 12, 31) == -719162 - 366 - 1
    assert days_from_civil(-400, 1, 1) == days_from_civil(0, 1, 1) - 146097
