"""Property harnesses: generated transcripts, driven by the fuzzer through Hypothesis.

``fuzz_one_input`` lets libFuzzer choose Hypothesis' random bytes, so coverage
guides which transcripts the strategies write (the polyglot pattern of the
OSS-Fuzz ``ujson`` and ``jsonschema`` projects). Contract: for a clean
generated transcript the reference rebuilds exactly the conversation the
writer intended; for a corrupted one it never raises and, where the damage
leaves the conversation determined, still rebuilds it. Without
``rechain.strategies`` the harnesses do nothing (``AVAILABLE`` is False).

Run: ``rechain fuzz property-clean`` / ``property-corrupted``.
"""

from __future__ import annotations

import sys
from typing import Any

from hypothesis import HealthCheck, given, settings

from rechain.fuzz.contract import harness
from rechain.fuzz.sources import strategy
from rechain.reference import rebuild
from rechain.strategies.views import visible


class DisagreementError(AssertionError):
    """The reference rebuilt another conversation than the writer intended."""


def _check(generated: Any) -> None:
    result = rebuild(generated.to_bytes())
    intended = generated.intended
    if intended is None:
        return  # the damage leaves the conversation to a reader's tie-breaking
    # the SDK view hides meta, sidechain and non-message rows of the intended conversation
    shown = visible(intended, generated.entry, "sdk")
    if result.uuids != shown:
        raise DisagreementError(f"rebuilt {result.uuids}, intended (as shown) {shown}")


def _property(corrupted: bool) -> Any | None:
    source = strategy(corrupted=corrupted)
    if source is None:
        return None

    @settings(database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(source)
    def agrees(generated: Any) -> None:
        _check(generated)

    return agrees.hypothesis.fuzz_one_input  # type: ignore[attr-defined]


_CLEAN = _property(corrupted=False)
_CORRUPTED = _property(corrupted=True)
AVAILABLE = _CLEAN is not None and _CORRUPTED is not None


@harness(
    max_len=8192,
    timeout_s=20,
    seeds="random",
    description="strategies' transcripts rebuild as intended",
)
def clean_one_input(data: bytes) -> None:
    if _CLEAN is not None:
        _CLEAN(data)


@harness(
    max_len=8192,
    timeout_s=20,
    seeds="random",
    description="corrupted transcripts: no exception, intent kept",
)
def corrupted_one_input(data: bytes) -> None:
    if _CORRUPTED is not None:
        _CORRUPTED(data)


if __name__ == "__main__":
    from rechain.fuzz.worker import exec_harness

    exec_harness("rechain.fuzz.fuzz_property:clean_one_input", sys.argv[1:])
