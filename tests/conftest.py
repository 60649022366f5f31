"""Shared test settings: hypothesis profiles and the HTCondor oracle.

Profiles: `dev` (default, quick) and `ci` (selected when CI=true; more examples).
Tests that need many examples scale with `EXAMPLES` rather than hard-coding a number.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "dev",
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "ci",
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
