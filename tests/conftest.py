"""Hypothesis profiles: ``default`` (random, local database), ``ci`` (deterministic, bounded,
no database), ``nightly`` (many examples) and ``rechain-ci`` (random, every failure saved to
``$RECHAIN_EXAMPLE_DB``, default ``.hypothesis/examples``, for a CI that caches that directory).
Chosen with ``HYPOTHESIS_PROFILE`` or ``--hypothesis-profile``.

No profile has a deadline or the ``too_slow`` health check: both are wall-clock limits, and a
test must not fail because the machine is busy (speed is for the benchmarks to show).
"""

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from rechain.conformance.example_db import register_ci_profile

UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}

settings.register_profile("default", **UNTIMED)
settings.register_profile(
    "ci", derandomize=True, database=None, max_examples=60, print_blob=True, **UNTIMED)
settings.register_profile("nightly", max_examples=5000, **UNTIMED)
register_ci_profile()
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_configure(config: pytest.Config) -> None:
    """Under ``pytest -n N`` tests marked ``xdist_group`` (a module sharing one oracle
    process) stay on one worker, as with ``--dist loadgroup``; the rest spread as with
    ``--dist load``."""
    if getattr(config.option, "dist", "no") == "load":
        config.option.dist = "loadgroup"
    if getattr(config, "workerinput", {}).get("rechain_loadgroup"):
        config.option.loadgroup = True  # workers parse the command line, not the override


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Tell each xdist worker whether the run groups tests (see ``pytest_configure``)."""
    node.workerinput["rechain_loadgroup"] = node.config.option.dist == "loadgroup"


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """pytest-xdist 3.8 puts a test in its group by renaming ``item._nodeid`` (``…@group``);
    pytest 9.2 derives ``nodeid`` from ``item._id`` instead, so the rename is carried over
    (without it every group is spread over the workers)."""
    for item in items:
        renamed = vars(item).get("_nodeid")
        if isinstance(renamed, str) and renamed != item.nodeid:
            try:
                from _pytest.nodeid import coerce_node_id
            except ImportError:  # an older pytest reads _nodeid itself
                return
            item._id = coerce_node_id(renamed)  # type: ignore[attr-defined]


@pytest.fixture
def private_tmpdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``TMPDIR`` (and ``tempfile``'s cached choice) and the oracles' ``RECHAIN_SCRATCH`` set
    to a directory of the test's own, for this process and what it starts; after the test
    nothing named ``rechain-*`` may remain there: a run that leaves its scratch in a user's
    temp dir (or the oracles' memory file system) fails the test that ran it."""
    where = tmp_path / "tmp"
    where.mkdir()
    monkeypatch.setenv("TMPDIR", str(where))
    monkeypatch.setenv("RECHAIN_SCRATCH", str(where))
    monkeypatch.setattr(tempfile, "tempdir", str(where))
    yield where
    left = sorted(path.name for path in where.glob("rechain-*"))
    assert left == [], f"left in the temp dir: {left}"
