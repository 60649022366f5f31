"""tests/config/realworld.py finds the real-world configurations through tests.paths,
the one lookup of ../shared (which honours $CONDOR_POLICY_SHARED), and skips loudly.

Each case imports the module afresh in a child process, as a test run would, so the
environment it is given is the one it reads at import time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.paths import ROOT

_PROBE = """\
import json
from tests.config.realworld import FILES, REALWORLD, needs_realworld
print(json.dumps({"dir": str(REALWORLD), "files": [f.name for f in FILES],
                  "skip": needs_realworld.args[0], "reason": needs_realworld.kwargs["reason"]}))
"""


def _probe(shared: Path) -> dict[str, object]:
    env = {**os.environ, "CONDOR_POLICY_SHARED": str(shared)}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
        check=True, timeout=120,
    )  # fmt: skip
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_realworld_honours_condor_policy_shared(tmp_path: Path) -> None:
    configs = tmp_path / "realworld-configs"
    configs.mkdir()
    (configs / "b.conf").write_text("START = True\n")
    (configs / "a.config").write_text("START = False\n")
    (configs / "notes.txt").write_text("not a configuration\n")
    found = _probe(tmp_path)
    assert found["dir"] == str(configs)
    assert found["files"] == ["a.config", "b.conf"]
    assert found["skip"] is False


def test_realworld_absent_skips_naming_the_path(tmp_path: Path) -> None:
    found = _probe(tmp_path / "nowhere")
    assert found["skip"] is True and found["files"] == []
    reason = str(found["reason"])
    assert (
        "SHARED FILES ABSENT" in reason
        and str(tmp_path / "nowhere" / "realworld-configs") in reason
    )
    assert "CONDOR_POLICY_SHARED" in reason


def test_realworld_empty_directory_skips_loudly(tmp_path: Path) -> None:
    (tmp_path / "realworld-configs").mkdir()
    found = _probe(tmp_path)
    assert found["skip"] is True
    assert str(tmp_path / "realworld-configs") in str(found["reason"])
