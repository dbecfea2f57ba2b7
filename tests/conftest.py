"""Hypothesis profiles: ``default`` (random, local database), ``ci`` (deterministic, bounded,
no database) and ``nightly`` (many examples). Chosen with ``HYPOTHESIS_PROFILE`` or
``--hypothesis-profile``.

No profile has a deadline or the ``too_slow`` health check: both are wall-clock limits, and a
test must not fail because the machine is busy (speed is for the benchmarks to show).
"""

import os

from hypothesis import HealthCheck, settings

UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}

settings.register_profile("default", **UNTIMED)
settings.register_profile(
    "ci", derandomize=True, database=None, max_examples=60, print_blob=True, **UNTIMED)
settings.register_profile("nightly", max_examples=5000, **UNTIMED)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
