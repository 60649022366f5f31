"""Where the real-world configurations are: realworld-configs/ under ../shared.

../shared is found by tests.paths (next to the repository, or $CONDOR_POLICY_SHARED),
the one lookup every test uses. The configurations are not part of the repository, so
every test that reads them skips (with a reason that `-ra` prints, naming the path
looked at) when they are absent; the project's own fixtures in tests/config/fixtures
cover what must always run.
"""

from __future__ import annotations

import pytest

from tests.paths import absent_reason, shared_dir

#: realworld-configs/ under ../shared.
REALWORLD = shared_dir() / "realworld-configs"
#: The configuration files in it (empty when it is absent).
FILES = sorted(REALWORLD.glob("*.conf*")) if REALWORLD.is_dir() else []
#: Skip marker for tests that need the directory.
needs_realworld = pytest.mark.skipif(
    not FILES,
    reason=absent_reason(REALWORLD)
    if not REALWORLD.is_dir()
    else f"SHARED FILES ABSENT: {REALWORLD} holds no *.conf* files: tests skipped",
)
