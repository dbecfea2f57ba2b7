"""The newest of many timestamps in the form every writer stamps rows with, without
parsing each: the leaf choice compares every leaf's ``Date.parse`` (2,815 leaves on the
100 MB linear file), and for such stamps string order is time order."""

from __future__ import annotations

import re
from typing import Any

_D = "[0-9]"
# ``YYYY-MM-DDTHH:MM:SS.sssZ`` with every field in range for any year (the 29th of
# February left out: its year decides), so each stamp is one instant and a later one in
# string order is a later one in time (``date_v8.parse`` reads them as they are)
_MONTH_DAY = ("(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)"
              "|(?:0[13578]|1[02])-31)")
_ONE = (f"{_D}{{4}}-{_MONTH_DAY}T(?:[01]{_D}|2[0-3]):[0-5]{_D}:[0-5]{_D}\\.{_D}{{3}}Z")
_ALL = re.compile(f"(?:{_ONE}\n)*{_ONE}")


def newest_written(stamps: list[Any]) -> int | None:
    """The place of the first of the greatest stamps when every one is a string in the
    written form (one match of them all); None: parse them one by one."""
    if not stamps or not all(type(stamp) is str for stamp in stamps):
        return None
    joined = "\n".join(stamps)
    if joined.count("\n") != len(stamps) - 1 or _ALL.fullmatch(joined) is None:
        return None
    return max(range(len(stamps)), key=stamps.__getitem__)
