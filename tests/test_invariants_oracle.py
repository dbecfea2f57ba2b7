"""The real TS Agent SDK returns the intended conversation of generated transcripts.

This checks the writer model itself (not the reference): ``Transcript.intended`` and
the declared effects of corruptions must be what ``getSessionMessages`` of
``@anthropic-ai/claude-agent-sdk`` 0.3.332 returns. Skips until the oracle is installed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rechain.conformance.oracles.ts_sdk import TsSdkOracle
from rechain.reference import Options
from rechain.strategies import CorruptedTranscript, Transcript, corrupted, transcripts
from rechain.strategies.views import visible

UNAVAILABLE = TsSdkOracle.available()
pytestmark = [pytest.mark.xdist_group("oracle-agent-sdk-ts-invariants"),
              pytest.mark.oracle,
              pytest.mark.skipif(UNAVAILABLE is not None, reason=f"agent-sdk-ts: {UNAVAILABLE}")]
FIXTURE = settings(suppress_health_check=[*settings.default.suppress_health_check,
                                          HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def oracle() -> Iterator[TsSdkOracle]:
    with TsSdkOracle() as started:
        yield started


def sdk_uuids(oracle: TsSdkOracle, value: Transcript | CorruptedTranscript,
              include_system: bool) -> list[str]:
    messages = oracle.session_messages(value.to_bytes(), session_id=value.session_id,
                                       include_system_messages=include_system)
    return [m["uuid"] for m in messages]


@FIXTURE
@given(t=transcripts(), include_system=st.booleans())
def test_the_sdk_returns_the_intended_conversation(oracle: TsSdkOracle, t: Transcript,
                                                   include_system: bool) -> None:
    want = visible(t.intended, t.entry, "sdk", Options(include_system_messages=include_system))
    assert sdk_uuids(oracle, t, include_system) == want


@FIXTURE
@given(c=corrupted(transcripts(), min_mutations=1))
def test_the_sdk_loses_only_what_damage_declares(oracle: TsSdkOracle,
                                                 c: CorruptedTranscript) -> None:
    got = sdk_uuids(oracle, c, False)
    if c.intended is not None:
        assert got == visible(c.intended, c.entry, "sdk")
