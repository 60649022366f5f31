"""`watch` evaluates the policy on the wall clock when the startd would (issue 12).

Reference transitions.md section 3.1 (HTCondor `ResMgr::start_update_timer`,
`ResMgr::check_polling`, `ResState::enter_action`): the startd evaluates at start-up and
every UPDATE_INTERVAL whatever the state, and every POLLING_INTERVAL once a claim's job
runs (entering Claimed/Busy starts the polling timer). These tests run the real `watch`
command on real time with short intervals and read what it printed and logged: a job
under `SUSPEND = True` is suspended one polling interval after it starts (it used to run
on for the whole watch), and a slot whose IS_OWNER turns FALSE leaves Owner at the next
update (it used to stay in Owner forever).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.realjob,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux process control"),
]

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(r"^t=([0-9.]+) #(\S+): (\S+) -> (\S+) ")


def _watch(tmp_path: Path, config: str, *extra: str) -> tuple[list[tuple[float, str]], Path]:
    """Run `watch --plain` on `config` (code semantics); (t, number) of every printed
    transition, and the event log."""
    path = tmp_path / "condor_config"
    path.write_text(config, encoding="utf-8")
    log = tmp_path / "watch.jsonl"
    command = [sys.executable, "-m", "runtime", "watch", str(path), "--plain"]
    done = subprocess.run(
        [*command, "--semantics", "code", "--log", str(log), *extra],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    fired = []
    for line in done.stdout.splitlines():
        match = LINE.match(line)
        if match:
            fired.append((float(match.group(1)), match.group(2)))
    return fired, log


def test_a_running_job_is_suspended_one_polling_interval_after_it_starts(
    tmp_path: Path,
) -> None:
    config = (
        "START = True\nIS_OWNER = False\nRunBenchmarks = False\n"
        "WANT_SUSPEND = True\nSUSPEND = True\nCONTINUE = False\n"
        "POLLING_INTERVAL = 1\nUPDATE_INTERVAL = 60\n"
    )
    fired, log = _watch(tmp_path, config, "--job", "sleep 60", "--duration", "4")
    numbers = [n for _, n in fired]
    assert "11" in numbers and "14" in numbers, fired  # activated, then suspended
    busy = next(t for t, n in fired if n == "11")
    suspended = next(t for t, n in fired if n == "14")
    # The first polling evaluation is one POLLING_INTERVAL after Claimed/Busy is entered
    # (wall clock: allow the watcher's 0.25 s look-around and a loaded machine).
    assert 0.9 <= suspended - busy <= 2.5, fired
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert {"kind": "signal", "signal": "suspend"} in [
        {k: r[k] for k in ("kind", "signal")} for r in records if r.get("kind") == "signal"
    ]


def test_owner_is_left_at_the_first_update_after_is_owner_turns_false(tmp_path: Path) -> None:
    # IS_OWNER is TRUE for the first 2 s in Owner; Owner is not polled, so only the
    # update timer (every UPDATE_INTERVAL = 1 s from the start) can notice.
    config = (
        "RunBenchmarks = False\nPOLLING_INTERVAL = 5\nUPDATE_INTERVAL = 1\n"
        "IS_OWNER = time() - EnteredCurrentState < 2\n"
    )
    fired, _ = _watch(tmp_path, config, "--duration", "5")
    leave = [t for t, n in fired if n == "1"]
    assert leave, fired
    # time() and EnteredCurrentState are whole seconds: IS_OWNER turns FALSE 1 to 2 s
    # after the start; the slot leaves at the next update, on a whole second of watch
    # time (the update timer's phase is the start).
    assert 1 <= leave[0] <= 3.5, fired
    assert abs(leave[0] - round(leave[0])) < 0.3, fired
