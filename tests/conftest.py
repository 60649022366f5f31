"""Shared test settings: hypothesis profiles, the `explore` marker and ../shared.

The README test command (`python -m pytest -q`, also what .ci/run runs with CI=true) gives
the same answer every time and anywhere:

- hypothesis runs under the `gate` profile whatever the environment says: derandomized
  (each test's examples are a function of the test alone, no example database), the
  example counts written in the tests, no deadline, and `print_blob` so a failure prints
  the `@reproduce_failure` line that replays it exactly;
- tests marked `explore` (long random exploration: the `_many` tests, oracle fuzzing) are
  deselected. `python -m pytest -m explore` runs them, under the `explore` profile
  (random, many examples, example database kept); every counterexample they find is to
  be pinned as an `@example` of the matching gate test;
- `python -m pytest --hypothesis-profile=explore` runs the whole suite randomized.

Tests that read ../shared (the real-world configurations, the seeds and the reference)
find it through tests.paths and skip with the path they looked at when it is absent; the
run's summary says so once.
"""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import HealthCheck, settings

from tests.budget import GATE_MAX_EXAMPLES
from tests.paths import shared_dir

settings.register_profile(
    "gate",
    derandomize=True,
    database=None,
    max_examples=GATE_MAX_EXAMPLES,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "explore",
    derandomize=False,
    max_examples=1000,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("gate")

#: A -m expression that names `explore` other than as `not explore`.
_ASKS_FOR_EXPLORE = re.compile(r"(?<!not )\bexplore\b")


def _asks_for_explore(config: pytest.Config) -> bool:
    return bool(_ASKS_FOR_EXPLORE.search(config.option.markexpr or ""))


def pytest_configure(config: pytest.Config) -> None:
    # `-m explore` without an explicit --hypothesis-profile explores randomly.
    if _asks_for_explore(config) and not config.getoption("hypothesis_profile", None):
        settings.load_profile("explore")


@pytest.hookimpl(trylast=True)  # after -m and -k: the spread sees the final list
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect `explore` tests unless the -m expression names them (so `-m "not slow"`
    does not bring them back, as an addopts `-m "not explore"` would); then spread the
    slow tests over the xdist workers."""
    if not _asks_for_explore(config):
        explore = [item for item in items if item.get_closest_marker("explore")]
        if explore:
            config.hook.pytest_deselected(items=explore)
            items[:] = [item for item in items if not item.get_closest_marker("explore")]
    _spread_slow_tests(items)


def _spread_slow_tests(items: list[pytest.Item]) -> None:
    """Under pytest-xdist, start every worker on its share of the `slow` tests.

    xdist's `load` scheduler first hands each of the N workers a run of consecutive tests
    (a quarter of its share, xdist/scheduler/load.py) and then feeds the rest in order
    to whichever worker is free; a long test near the end of the collection (mypy, in
    tests/tooling) keeps one core busy after the other has finished. So the slow tests
    go to the front of the workers' first runs, dealt out in turn, and the quick tests
    fill the tail. Which tests run does not change, only their order.
    """
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if workers < 2 or len(items) < 2 * workers:
        return
    chunk = max(len(items) // workers // 4, 2)
    slow = [item for item in items if item.get_closest_marker("slow")]
    if not slow or -(-len(slow) // workers) > chunk:
        return
    rest = [item for item in items if not item.get_closest_marker("slow")]
    order: list[pytest.Item] = []
    for worker in range(workers):
        mine = slow[worker::workers]
        order += mine + rest[: chunk - len(mine)]
        rest = rest[chunk - len(mine) :]
    items[:] = order + rest


def pytest_report_header(config: pytest.Config) -> list[str]:
    shared = shared_dir()
    where = str(shared) if shared.is_dir() else f"{shared} (absent: tests that need it skip)"
    return [f"hypothesis profile: {settings.get_current_profile_name()}", f"shared: {where}"]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    shared = shared_dir()
    if not shared.is_dir():
        terminalreporter.write_line(
            f"NOTE: {shared} is absent: the tests that read the real-world configurations, "
            "the seeds and the reference were skipped (they need ../shared next to the repository).",
            yellow=True,
            bold=True,
        )
