"""Calendar arithmetic both JavaScript date models share (V8 for 2.1.88, Bun for 2.1.332)."""

from __future__ import annotations

import calendar


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 in the proleptic Gregorian calendar, for any year."""
    if 1 <= year <= 9999:
        return calendar.timegm((year, month, day, 0, 0, 0)) // 86400
    return civil_formula(year, month, day)


def civil_formula(year: int, month: int, day: int) -> int:
    """The era arithmetic behind ``days_from_civil`` (years counted from March, 400-year eras).

    Python's ``//`` floors, so negative years need no correction of their own.
    """
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468
