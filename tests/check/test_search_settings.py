"""`check`'s hypothesis search does not depend on the test suite's profiles.

`settings(...)` built without a parent takes every field it does not name from the
loaded profile; under pytest that is tests/conftest.py's `gate` (derandomized, print_blob)
or `explore`. The product's search must be the same however it is run.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, Phase, Verbosity, settings

from runtime.check.search import search_settings

FIELDS = (
    "database",
    "deadline",
    "derandomize",
    "max_examples",
    "phases",
    "print_blob",
    "report_multiple_bugs",
    "stateful_step_count",
    "suppress_health_check",
    "verbosity",
)

settings.register_profile(
    "test_search_settings_odd",
    derandomize=True,
    database=None,
    max_examples=3,
    deadline=timedelta(milliseconds=1),
    print_blob=True,
    report_multiple_bugs=False,
    stateful_step_count=7,
    verbosity=Verbosity.verbose,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow],
)


def _fields(s: settings) -> dict[str, object]:
    return {name: getattr(s, name) for name in FIELDS}


@pytest.fixture
def restore_profile() -> Iterator[None]:
    """Put the session's profile back for the tests that follow."""
    loaded = settings.get_current_profile_name()
    yield
    settings.load_profile(loaded)


@pytest.mark.parametrize("profile", ["default", "gate", "explore", "test_search_settings_odd"])
def test_search_settings_do_not_depend_on_the_loaded_profile(
    profile: str, restore_profile: None
) -> None:
    settings.load_profile("default")
    expected = _fields(search_settings(50))
    settings.load_profile(profile)
    assert _fields(search_settings(50)) == expected


def test_search_settings_are_what_check_needs() -> None:
    s = search_settings(50)
    assert s.max_examples == 50
    assert s.database is None and s.deadline is None and not s.derandomize
    assert tuple(s.phases) == (Phase.generate, Phase.shrink)
    assert not s.print_blob and s.verbosity is Verbosity.quiet
