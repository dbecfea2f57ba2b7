"""Hypothesis profiles: ``default`` (random, local database), ``ci`` (deterministic, bounded,
no database), ``nightly`` (many examples) and ``rechain-ci`` (random, every failure saved to
``$RECHAIN_EXAMPLE_DB``, default ``.hypothesis/examples``, for a CI that caches that directory).
Chosen with ``HYPOTHESIS_PROFILE`` or ``--hypothesis-profile``.

No profile has a deadline or the ``too_slow`` health check: both are wall-clock limits, and a
test must not fail because the machine is busy (speed is for the benchmarks to show).
"""

import os

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
