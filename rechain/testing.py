"""Everything a transcript reader's own property tests need, from one import.

::

    from hypothesis import given
    from rechain.testing import Transcript, expected_uuids, transcripts

    @given(transcripts())
    def test_my_reader(t: Transcript) -> None:
        assert [m["uuid"] for m in my_reader.read(t.to_bytes())] == expected_uuids(t, "sdk")

The strategies write transcripts the way Claude Code does and know the conversation each
must rebuild to; the invariants are plain functions that raise ``AssertionError`` with a
readable message. Two kinds: properties of any reader's answer, which take your reader as a
:data:`Read` (``bytes -> list of message dicts``) or its answer (``contains_errors``,
``no_row_twice``, ``unchanged_by_formatting``, ...), and checks against the conversation a
generated transcript must rebuild to, which take it as ``reader=``, a :data:`Reader`
(``(data, profile, options) -> uuids``) and name rows by line number (``L12``).
Nothing here is defined twice: the names are those of ``rechain.strategies`` and
``rechain.conformance.invariants``, gathered so that a user's import does not depend on
where they live inside rechain.
"""

from __future__ import annotations

from rechain.conformance.invariants import (
    Reader,
    appending_extends,
    contains_errors,
    corruption_declared,
    expected_uuids,
    must_keep,
    no_repeats,
    no_row_lost,
    no_row_twice,
    order_free,
    parents_before_children,
    rebuilds_intended,
    reference_reader,
    results_follow_calls,
    robust,
    sidechains_apart,
    unchanged_by_formatting,
    unchanged_by_invalid_line,
)
from rechain.conformance.reader_invariants import Read
from rechain.reference.model import Options
from rechain.strategies import (
    EFFECTS,
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
    "EFFECTS",
    "FEATURES",
    "GENERATIONS",
    "CorruptedTranscript",
    "Mutation",
    "Options",
    "Read",
    "Reader",
    "Transcript",
    "TranscriptMachine",
    "Undetermined",
    "appending_extends",
    "contains_errors",
    "corrupted",
    "corruption_declared",
    "damage",
    "expected_uuids",
    "extend",
    "must_keep",
    "mutations",
    "no_repeats",
    "no_row_lost",
    "no_row_twice",
    "order_free",
    "parents_before_children",
    "rebuilds_intended",
    "reference_reader",
    "results_follow_calls",
    "robust",
    "sidechains_apart",
    "transcripts",
    "unchanged_by_formatting",
    "unchanged_by_invalid_line",
]
