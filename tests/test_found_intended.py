"""A corrupted transcript the property-corrupted fuzz harness wrote, whose ``intended``
conversation the real TS SDK does not rebuild (several compact boundaries with preserved
segments, a ``null`` line). The reference agrees with the SDK; the writer's model of what
the damage leaves determined is what is wrong, a known failure until it is mended."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rechain.reference import rebuild

FOUND = Path(__file__).parent / "found"
NAME = "property-corrupted-intended-compactions"


def test_the_reference_rebuilds_what_the_real_sdk_recorded() -> None:
    recorded = json.loads((FOUND / f"{NAME}.sdk.json").read_text())
    data = (FOUND / f"{NAME}.jsonl").read_bytes()
    assert rebuild(data, session_id=recorded["session_id"]).uuids == recorded["uuids"]


@pytest.mark.xfail(strict=True, reason="the writer's intended conversation is wrong here")
def test_the_property_harness_passes_on_the_input_it_found() -> None:
    from rechain.fuzz import fuzz_property

    fuzz_property._CORRUPTED((FOUND / f"{NAME}.input").read_bytes())
