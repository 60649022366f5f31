"""The code base stays ruff-clean, ruff-formatted and mypy-clean (the CI gate).

These run the tools on the installed project rather than re-implementing checks; a
failure prints the tool's own report.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PATHS = ["compiler", "runtime", "spec", "tests"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_lint_is_clean() -> None:
    result = _run("ruff", "check", *PATHS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = _run("ruff", "format", "--check", *PATHS)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_is_clean() -> None:
    result = _run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr
