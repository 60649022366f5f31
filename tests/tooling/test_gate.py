"""The README test command is a gate: the same answer every time, anywhere (issue 10).

- .ci/run runs exactly the README's test command;
- the README run is derandomized with example counts from one profile (tests/conftest.py),
  whatever the environment says (no test reads CI);
- `explore` tests leave the README run and come back only when -m names them;
- no test names a path outside the repository: ../shared is found by tests/paths.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import settings

from tests.conftest import _ASKS_FOR_EXPLORE
from tests.paths import ROOT

TESTS = ROOT / "tests"


def _readme_test_command() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", readme, re.S)
    commands = [b.strip() for b in blocks if "pip install" in b and "pytest" in b]
    assert len(commands) == 1, f"README.md should show one set-up-and-test command: {commands}"
    return commands[0]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert script[-1].strip() == _readme_test_command()


def test_the_readme_run_is_derandomized() -> None:
    if settings.get_current_profile_name() != "gate":
        pytest.skip(f"profile {settings.get_current_profile_name()} chosen on purpose")
    current = settings()
    assert current.derandomize and current.database is None
    assert current.deadline is None and current.print_blob


def _sources() -> list[Path]:
    return sorted(TESTS.rglob("*.py"))


def test_no_test_reads_the_ci_variable() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in _sources()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"environ(\.get\(|\[)\s*[\"']CI[\"']", line)
    ]
    assert not found


def test_no_test_names_a_path_outside_the_repository() -> None:
    """Paths into this machine's work area and ../shared literals: only tests/paths.py
    knows where ../shared is. (Paths inside ClassAd values, like Iwd, are data.)"""
    pattern = re.compile(r"[\"'](/work/|\.\./shared)")
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in _sources()
        if path.name != "paths.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not found


@pytest.mark.parametrize(
    ("markexpr", "selects"),
    [
        ("", False),
        ("not slow", False),
        ("not explore", False),
        ("explore", True),
        ("explore and oracle", True),
        ("not slow and explore", True),
        ("explorer", False),
    ],
)
def test_explore_tests_come_back_only_when_named(markexpr: str, selects: bool) -> None:
    assert bool(_ASKS_FOR_EXPLORE.search(markexpr)) == selects
