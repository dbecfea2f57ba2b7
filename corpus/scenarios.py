"""Every hand-written scenario, in a stable order: ``rechain corpus new`` writes them as cases.

The scenarios live in themed modules (chain shape, tools, compaction, bytes,
special rows, the large file); this module only gathers them and looks them up.
"""

from __future__ import annotations

from collections.abc import Iterable

from rechain.corpus import (
    make_large_case,
    scenarios_chain,
    scenarios_compact,
    scenarios_parse,
    scenarios_rows,
    scenarios_tools,
)
from rechain.corpus.scenario import Scenario, ScenarioFn

_MODULES = (
    scenarios_chain,
    scenarios_tools,
    scenarios_compact,
    scenarios_parse,
    scenarios_rows,
    make_large_case,
)

SCENARIOS: tuple[ScenarioFn, ...] = tuple(fn for module in _MODULES for fn in module.SCENARIOS)


def build_scenarios(ids: Iterable[str] | None = None) -> list[Scenario]:
    """Build the named scenarios (all when ``ids`` is None); unknown ids raise KeyError."""
    built = [fn() for fn in SCENARIOS]
    if ids is None:
        return built
    by_id = {scenario.id: scenario for scenario in built}
    return [by_id[case_id] for case_id in ids]
