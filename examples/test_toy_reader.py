"""Property tests of ``toy_reader`` built on rechain's strategies and invariants.

Run: ``python -m pytest examples/test_toy_reader.py``. With ``RECHAIN_TOY_BUG=1`` the
reader has a planted bug and the first test fails with a shrunk transcript.
"""

from __future__ import annotations

import toy_reader  # the reader under test, next to this file
from hypothesis import given, settings

from rechain.testing import (
    EFFECTS,
    CorruptedTranscript,
    Options,
    Transcript,
    contains_errors,
    corrupted,
    corruption_declared,
    no_row_twice,
    parents_before_children,
    rebuilds_intended,
    results_follow_calls,
    sidechains_apart,
    transcripts,
    unchanged_by_formatting,
    unchanged_by_invalid_line,
)

# The toy reader does not implement compaction relinks or split streamed responses yet, nor
# bring back a tool result left off the walked path (which a `cycle` corruption can do).
supported = transcripts(compaction=False, split_messages=False)
damage_kinds = tuple(kind for kind in EFFECTS if kind != "cycle")


def reader(data: bytes, profile: str, options: Options) -> list[str]:
    """The toy reader in the shape the invariants call: bytes in, uuids out."""
    return [row["uuid"] for row in toy_reader.read(data)]


@settings(max_examples=200, deadline=None)
@given(supported)
def test_rebuilds_the_intended_conversation(t: Transcript) -> None:
    rebuilds_intended(t, "sdk", reader=reader)  # == expected_uuids(t, "sdk"), rows named L<n>
    results_follow_calls(t, reader(t.to_bytes(), "sdk", Options()))


@settings(max_examples=200, deadline=None)
@given(corrupted(supported, kinds=damage_kinds))
def test_damage_loses_only_what_it_declares(damaged: CorruptedTranscript) -> None:
    data = damaged.to_bytes()
    contains_errors(toy_reader.read, data)  # a bad line is skipped, never fatal
    answer = toy_reader.read(data)
    no_row_twice(answer)
    parents_before_children(data, answer)
    sidechains_apart(data, answer)
    unchanged_by_invalid_line(toy_reader.read, data)
    unchanged_by_formatting(toy_reader.read, data)  # spaces, key order, escaped Unicode
    corruption_declared(damaged, "sdk", reader=reader)  # nothing to compare when undetermined
