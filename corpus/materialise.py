"""Turn a built scenario into a case, keeping the expectations that still hold.

An expectation stays only while the input bytes, the env and its option set are
unchanged; a case with an option set that lacks an expectation is tagged
``unrecorded`` until ``rechain corpus record`` fills it in.
"""

from __future__ import annotations

from rechain.corpus.cases_io import PROFILE, VIEW, Case
from rechain.corpus.scenario import Scenario

UNRECORDED = "unrecorded"


def scenario_case(
    scenario: Scenario, old: Case | None = None, old_bytes: bytes | None = None
) -> Case:
    """The case for ``scenario``; ``old``/``old_bytes`` are what is on disk now, if anything."""
    still_valid = (
        old is not None and old_bytes == scenario.data and dict(old.env) == dict(scenario.env)
    )
    variants = tuple(dict(v) for v in scenario.variants)
    kept = tuple(
        e
        for e in (old.expectations if still_valid and old is not None else ())
        if e.profile != PROFILE or e.view != VIEW or dict(e.options) in variants
    )
    recorded = [dict(e.options) for e in kept if e.profile == PROFILE and e.view == VIEW]
    missing = any(v not in recorded for v in variants)
    tags = [t for t in scenario.tags if t != UNRECORDED] + ([UNRECORDED] if missing else [])
    return Case(
        id=scenario.id,
        description=scenario.description,
        tags=tuple(tags),
        session_id=scenario.session_id,
        expectations=kept,
        provenance=scenario.provenance(),
        env=dict(scenario.env),
        variants=variants,
    )
