"""The SDK recovery's sort shortcuts against their plain definitions: one format of
stamps (string order is then the collation) and parts already in order (no sort)."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from rechain.reference.recover import _in_order, _one_format

# stamps of one shape and near misses: another length, a letter, an LF, non-ASCII, not a string
_STAMP = st.one_of(
    st.from_regex(r"2026-0[1-9]-[0-2][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\.[0-9]{3}Z",
                  fullmatch=True),
    st.sampled_from(["2026-01-01T00:00:00Z", "2026-01-01T00:00:00.000z", "2026-01-01\n00:00",
                     "2026-01-01T00:00:00.000Z\n", "\n", "\n\n", "", "é", "١٢", None, 5]),
)


def _shape(stamp: str) -> str:
    return "".join("0" if c in "0123456789" else c for c in stamp)


@given(st.lists(_STAMP, max_size=6))
@example(["\n", "", "\n\n"])  # joined by LFs, the same text as three LFs joined
@example(["2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z\n"])
def test_one_format_is_ascii_strings_that_differ_only_in_digits(stamps: list[object]) -> None:
    plain = all(type(s) is str and s.isascii() for s in stamps) and \
        len({_shape(s) for s in stamps}) <= 1  # type: ignore[arg-type]
    # two or more stamps with an LF in one are left to the exact collation
    with_lf = len(stamps) > 1 and any(type(s) is str and "\n" in s for s in stamps)
    assert _one_format(stamps) is (plain and not with_lf)


@given(st.lists(st.lists(st.sampled_from("abc"), min_size=2, max_size=4), max_size=4))
def test_in_order_is_every_part_already_sorted(parts: list[list[str]]) -> None:
    stamps = [stamp for part in parts for stamp in part]
    assert _in_order(stamps, parts) is all(part == sorted(part) for part in parts)
