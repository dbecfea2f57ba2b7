"""Hypothesis strategies that write Claude Code transcripts the way Claude Code does.

Public API (other projects import these)::

    from rechain.strategies import transcripts, corrupted, Transcript

    @given(transcripts(rewinds=True, compaction=True, generations=["2.1.332"]))
    def test_reader(t: Transcript) -> None:
        t.lines          # the main file's objects, in file order
        t.to_bytes()     # the file, one JSON.stringify per line + LF
        t.session_id     # its sessionId
        t.subagents      # agent id -> that subagent file's lines
        t.intended       # uuids of the live conversation, in reader order

    @given(corrupted(transcripts()))
    def test_damage(c: CorruptedTranscript) -> None:
        c.to_bytes(); c.mutations; c.intended  # None when the damage leaves it undetermined

Scripts of operations (``ops``) are executed by a writer model (``writer``); the intended
conversation is derived from the lines (``conversation``); corruptions declare what they
do to lines (``corruptions.EFFECTS``); ``machine.TranscriptMachine`` serves incremental
readers; ``python -m rechain.strategies.bench`` prints the generation rate.
"""

from rechain.strategies.conversation import Undetermined, expected
from rechain.strategies.corruptions import (
    EFFECTS,
    CorruptedTranscript,
    Mutation,
    corrupted,
    damage,
    mutations,
)
from rechain.strategies.generations import GENERATIONS, Generation
from rechain.strategies.ops import Compact, Metadata, Note, Op, Prompt, Reply, Rewind, Task
from rechain.strategies.scripts import FEATURES, operations, transcripts
from rechain.strategies.transcript import Transcript, extend, write

__all__ = [
    "EFFECTS",
    "FEATURES",
    "GENERATIONS",
    "Compact",
    "CorruptedTranscript",
    "Generation",
    "Metadata",
    "Mutation",
    "Note",
    "Op",
    "Prompt",
    "Reply",
    "Rewind",
    "Task",
    "Transcript",
    "Undetermined",
    "corrupted",
    "damage",
    "expected",
    "extend",
    "mutations",
    "operations",
    "transcripts",
    "write",
]
