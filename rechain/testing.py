"""Everything a transcript reader's own property tests need, from one import.

::

    from hypothesis import given
    from rechain.testing import Transcript, expected_uuids, transcripts

    @given(transcripts())
    def test_my_reader(t: Transcript) -> None:
        assert [m["uuid"] for m in my_reader.read(t.to_bytes())] == expected_uuids(t, "sdk")

The strategies write transcripts the way Claude Code does and know the conversation each
must rebuild to; the invariants are plain functions that raise ``AssertionError`` with a
readable message (rows named by their line number, ``L12``). Each invariant that runs a
reader takes it as ``reader=``: a :data:`Reader`, ``(data, profile, options) -> uuids``.
Nothing here is defined twice: the names are those of ``rechain.strategies`` and
``rechain.conformance.invariants``, gathered so that a user's import does not depend on
where they live inside rechain.
"""

from __future__ import annotations

from rechain.conformance.invariants import (
    Reader,
    appending_extends,
    corruption_declared,
    expected_uuids,
    no_repeats,
    order_free,
    rebuilds_intended,
    reference_reader,
    results_follow_calls,
    robust,
)
from rechain.reference.model import Options
from rechain.strategies import (
    FEATURES,
    GENERATIONS,
    CorruptedTranscript,
    Mutation,
    Transcript,
    Undetermined,
    corrupted,
    damage,
    extend,
    mutations,
    transcripts,
)
from rechain.strategies.machine import TranscriptMachine

__all__ = [
    "FEATURES",
    "GENERATIONS",
    "CorruptedTranscript",
    "Mutation",
    "Options",
    "Reader",
    "Transcript",
    "TranscriptMachine",
    "Undetermined",
    "appending_extends",
    "corrupted",
    "corruption_declared",
    "damage",
    "expected_uuids",
    "extend",
    "mutations",
    "no_repeats",
    "order_free",
    "rebuilds_intended",
    "reference_reader",
    "results_follow_calls",
    "robust",
    "transcripts",
]
