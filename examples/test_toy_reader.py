"""Property tests of ``toy_reader`` built on rechain's strategies and invariants.

Run: ``python -m pytest examples/test_toy_reader.py``. With ``RECHAIN_TOY_BUG=1`` the
reader has a planted bug and the first test fails with a shrunk transcript.
"""

from __future__ import annotations

import toy_reader  # the reader under test, next to this file
from hypothesis import given, settings

from rechain.testing import (
    CorruptedTranscript,
    Options,
    Transcript,
    corrupted,
    corruption_declared,
    no_repeats,
    rebuilds_intended,
    results_follow_calls,
    robust,
    transcripts,
)

# The toy reader does not implement compaction relinks or split streamed responses yet.
supported = transcripts(compaction=False, split_messages=False)


def reader(data: bytes, profile: str, options: Options) -> list[str]:
    """The toy reader in the shape the invariants call: bytes in, uuids out."""
    return [row["uuid"] for row in toy_reader.read(data)]


@settings(max_examples=200, deadline=None)
@given(supported)
def test_rebuilds_the_intended_conversation(t: Transcript) -> None:
    rebuilds_intended(t, "sdk", reader=reader)  # == expected_uuids(t, "sdk"), rows named L<n>
    got = reader(t.to_bytes(), "sdk", Options())
    no_repeats(got)
    results_follow_calls(t, got)


@settings(max_examples=200, deadline=None)
@given(corrupted(supported))
def test_damage_loses_only_what_it_declares(damaged: CorruptedTranscript) -> None:
    robust(damaged.to_bytes(), "sdk", reader=reader)  # never raises, on any bytes
    corruption_declared(damaged, "sdk", reader=reader)  # skipped when undetermined
