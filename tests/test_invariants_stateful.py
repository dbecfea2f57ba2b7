"""The stateful model: a growing file with rewinds, compactions and torn writes."""

from hypothesis import settings

from rechain.strategies.machine import TranscriptMachine

TranscriptMachine.TestCase.settings = settings(
    TranscriptMachine.TestCase.settings, stateful_step_count=12)
TestGrowingTranscript = TranscriptMachine.TestCase
