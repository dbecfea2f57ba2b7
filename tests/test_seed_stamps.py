"""2.1.88's leaf choice compares written-form stamps as strings (``stamps.newest_written``):
the leaf is the one ``Date.parse`` of each stamp picks (``date_v8``, held to Node by
``tests/test_jsdate_node.py``), on every stamp the match takes or refuses."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rechain.reference.js import date_v8
from rechain.reference.profiles.claude_code_2_1_88.stamps import newest_written

_FIELDS = st.tuples(st.sampled_from([1970, 1999, 2000, 2024, 2026, 2100, 9999]),
                    st.integers(0, 13), st.integers(0, 32), st.integers(0, 24),
                    st.integers(0, 60), st.integers(0, 60), st.integers(0, 999))
STAMPS = st.one_of(
    _FIELDS.map(lambda f: "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:03d}Z".format(*f)),
    st.sampled_from(["2026-02-29T00:00:00.000Z", "2024-02-29T10:00:00.000Z",
                     "2026-04-31T00:00:00.000Z", "2026-01-01T24:00:00.000Z",
                     "2026-01-01T00:00:00.000Z\n2026-01-01T00:00:00.000Z",
                     "2026-01-01T00:00:00Z", "2026-01-01 00:00:00.000Z",
                     "\uff12\uff10\uff12\uff16-01-01T00:00:00.000Z", ""]),
    st.none(), st.integers(0, 10**13))


def _first_greatest(stamps: list[Any]) -> int | None:
    """The place of the first stamp with the strictly greatest ``Date.parse``."""
    best, best_time = None, float("-inf")
    for at, stamp in enumerate(stamps):
        moment = date_v8.parse(stamp)
        if moment > best_time:
            best, best_time = at, moment
    return best


@settings(max_examples=400, deadline=None)
@given(st.lists(STAMPS, max_size=8))
def test_the_string_order_picks_what_parsing_each_stamp_picks(stamps: list[Any]) -> None:
    found = newest_written(stamps)
    if found is not None:
        assert found == _first_greatest(stamps)


def test_written_stamps_are_compared_as_strings() -> None:
    stamps = ["2026-01-02T00:00:00.000Z", "2026-03-31T23:59:59.999Z",
              "2026-03-31T23:59:59.999Z", "2025-12-31T23:59:59.999Z"]
    assert newest_written(stamps) == 1
    assert newest_written([*stamps, "2024-02-29T00:00:00.000Z"]) is None
    assert newest_written([*stamps, None]) is None
    # the 31st of April is the 1st of May to Date.parse: not one instant per string
    assert newest_written(["2025-04-31T00:00:00.000Z", "2025-05-01T00:00:00.000Z"]) is None
    assert newest_written(["2025-02-29T00:00:00.000Z", "2025-03-01T00:00:00.000Z"]) is None


_CLOSE = st.tuples(st.sampled_from([2024, 2025]), st.sampled_from([2, 3, 4, 5]),
                   st.sampled_from([1, 29, 30, 31]), st.just(0),
                   st.just(0), st.just(0), st.just(0)).map(
    lambda f: "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:03d}Z".format(*f))


@settings(max_examples=400, deadline=None)
@given(st.lists(_CLOSE, min_size=1, max_size=12))
def test_close_and_equal_written_stamps_pick_the_first_greatest(stamps: list[str]) -> None:
    """Ties and month ends: the match takes the stamps whose string order is time order."""
    found = newest_written(stamps)
    if found is not None:
        assert found == _first_greatest(stamps)
    if all(s[5:10] in ("02-01", "03-31", "04-30", "05-01") for s in stamps):
        assert found is not None
