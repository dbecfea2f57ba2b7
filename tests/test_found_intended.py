"""A corrupted transcript the property-corrupted fuzz harness wrote: several compact
boundaries that relink one preserved segment, one of them duplicated after a later one.
The real TS SDK relinks boundaries in the order their uuids were first written, so the
duplicate changes nothing; the writer's model once applied it at its last copy and
expected another conversation. The SDK's answer is recorded beside the input."""

from __future__ import annotations

import json
from pathlib import Path

from rechain.reference import rebuild

FOUND = Path(__file__).parent / "found"
NAME = "property-corrupted-intended-compactions"


def test_the_reference_rebuilds_what_the_real_sdk_recorded() -> None:
    recorded = json.loads((FOUND / f"{NAME}.sdk.json").read_text())
    data = (FOUND / f"{NAME}.jsonl").read_bytes()
    assert rebuild(data, session_id=recorded["session_id"]).uuids == recorded["uuids"]


def test_the_property_harness_passes_on_the_input_it_found() -> None:
    from rechain.fuzz import fuzz_property

    fuzz_property._CORRUPTED((FOUND / f"{NAME}.input").read_bytes())
