"""Where the tests find files: the repository, and ../shared next to it.

No test reads a path outside the repository except through `shared_dir()`: the shared
requirements and references (seeds/, reference/, realworld-configs/) live next to the
clone, as ../shared, or wherever CONDOR_POLICY_SHARED points. When they are absent the
tests that need them skip, and the skip reason names the path that was looked at; the
project's own fixtures (tests/*/fixtures) cover what must always run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """../shared relative to the repository root (or $CONDOR_POLICY_SHARED)."""
    override = os.environ.get("CONDOR_POLICY_SHARED")
    return Path(override) if override else ROOT.parent / "shared"


def absent_reason(path: Path) -> str:
    return (
        f"SHARED FILES ABSENT: {path} does not exist (looked for ../shared next to the "
        f"repository {ROOT}; set CONDOR_POLICY_SHARED to use another copy)"
    )


def shared_path(*parts: str) -> Path:
    """A file or directory under ../shared; skips the calling test when it is absent."""
    path = shared_dir().joinpath(*parts)
    if not path.exists():
        pytest.skip(absent_reason(path))
    return path
