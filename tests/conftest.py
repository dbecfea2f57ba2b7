"""Hypothesis profiles: ``ci`` (deterministic, bounded, no database) and ``nightly`` (many
examples; targets on). Chosen with ``HYPOTHESIS_PROFILE`` or ``--hypothesis-profile``."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None, max_examples=60, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "nightly", deadline=None, max_examples=5000, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
