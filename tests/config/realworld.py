"""Where the real-world configurations are: ../shared/realworld-configs next to the repository.

They are not part of the repository, so every test that reads them skips (with a reason
that `-ra` prints) when the directory is absent; the project's own fixtures in
tests/config/fixtures cover what must always run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

#: ../shared/realworld-configs, found relative to the repository root.
REALWORLD = Path(__file__).resolve().parents[2].parent / "shared" / "realworld-configs"
#: The configuration files in it (empty when it is absent).
FILES = sorted(REALWORLD.glob("*.conf*")) if REALWORLD.is_dir() else []
#: Skip marker for tests that need the directory.
needs_realworld = pytest.mark.skipif(
    not FILES, reason=f"real-world configurations not found at {REALWORLD}: tests skipped"
)
