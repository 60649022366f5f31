"""Real job processes under the slot: stopped, continued, soft-killed, hard-killed (Linux).

The job is a small Python child that records a SIGTERM in a file and keeps running, so a
soft kill is observable and only SIGKILL ends it. Every test's job is killed and reaped by
a finalizer, and the finalizer checks that no process of the job's group survived.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from runtime.clock import SimClock
from runtime.jobs import JobProcess, kill_signal
from runtime.sensors.fake import FakeSensors
from runtime.slot import Slot
from tests.runtime.support import compiled

pytestmark = [
    pytest.mark.realjob,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux process control"),
]

CHILD = (
    "import signal, sys, time\n"
    "def term(*_):\n"
    "    open(sys.argv[1], 'a').write('TERM\\n')\n"
    "signal.signal(signal.SIGTERM, term)\n"
    "open(sys.argv[1], 'a').write('START\\n')\n"
    "while True:\n"
    "    time.sleep(0.05)\n"
)

POLICY = (
    ("KILL", "KillNow =?= True"),
    ("MaxJobRetirementTime", "0"),
    ("PREEMPT", "PreemptNow =?= True"),
    ("RunBenchmarks", "False"),
    ("SUSPEND", "KeyboardIdle < 60"),
    ("CONTINUE", "KeyboardIdle > 300"),
    ("WANT_SUSPEND", "PreemptNow =!= True"),
    ("WANT_VACATE", "True"),
)


def _wait(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


@pytest.fixture
def jobs() -> Iterator[list[JobProcess]]:
    made: list[JobProcess] = []
    yield made
    for job in made:
        job.kill_all()
    for job in made:
        assert _wait(lambda job=job: not job.group_members()), job.group_members()


def _status(pid: int) -> str:
    try:
        return psutil.Process(pid).status()
    except psutil.NoSuchProcess:
        return "gone"


def _slot(job: JobProcess, semantics: str = "manual") -> Slot:
    _, table = compiled("htcondor-current", semantics, POLICY)
    clock = SimClock()
    sensors = FakeSensors(idle_ages=False, start=clock.now())
    sensors.set({"KeyboardIdle": 2000, "PreemptNow": False, "KillNow": False}, clock.now())
    slot = Slot(table, sensors, clock, jobs=job, job={"Owner": "coltrane"})
    slot.start()
    slot.poll()
    for event in ("match", "claim", "activate"):
        slot.send(event)
    return slot


def test_child_is_stopped_continued_soft_and_hard_killed(
    jobs: list[JobProcess], tmp_path: Path
) -> None:
    marks = tmp_path / "marks"
    job = JobProcess([sys.executable, "-c", CHILD, str(marks)])
    jobs.append(job)
    slot = _slot(job)
    assert slot.pair_tuple() == ("Claimed", "Busy")
    assert job.pid is not None
    pid = job.pid
    assert _wait(lambda: marks.exists() and "START" in marks.read_text())
    assert os.getpgid(pid) == pid  # its own process group

    slot.set_sensors({"KeyboardIdle": 0})
    slot.advance(10)
    assert slot.pair_tuple() == ("Claimed", "Suspended")
    assert _wait(lambda: _status(pid) == psutil.STATUS_STOPPED)

    slot.set_sensors({"KeyboardIdle": 2000})
    slot.advance(20)
    assert slot.pair_tuple() == ("Claimed", "Busy")
    assert _wait(lambda: _status(pid) in (psutil.STATUS_SLEEPING, psutil.STATUS_RUNNING))

    slot.set_sensors({"PreemptNow": True})
    slot.advance(40)
    assert slot.pair_tuple() == ("Preempting", "Vacating")
    assert _wait(lambda: "TERM" in marks.read_text())
    assert job.poll() is None  # the soft kill is only a request

    slot.set_sensors({"KillNow": True})
    slot.advance(400)
    assert slot.pair_tuple() == ("Preempting", "Killing")
    assert _wait(lambda: job.poll() is not None)
    assert job.returncode == -signal.SIGKILL
    slot.send("starter_exit")
    assert [f.number for f in slot.fired][-5:] == [13, 18, 21, 25, 1]
    assert job.signals[:4] == ["suspend", "continue", "soft_kill", "hard_kill"]
    assert set(job.signals[4:]) <= {"hard_kill"}  # KILLING_TIMEOUT may repeat it


def test_killing_timeout_sigkills_the_group_again(jobs: list[JobProcess], tmp_path: Path) -> None:
    job = JobProcess(["sleep", "60"])
    jobs.append(job)
    slot = _slot(job)
    slot.set_sensors({"PreemptNow": True, "KillNow": True})
    slot.advance(400)
    assert slot.pair_tuple() == ("Preempting", "Killing")
    # no starter_exit: KILLING_TIMEOUT (30 s) fires and hard-kills again, no state change
    slot.advance(440)
    assert slot.pair_tuple() == ("Preempting", "Killing")
    assert job.signals.count("hard_kill") == 2
    assert _wait(lambda: job.poll() is not None)


def test_kill_signal_from_the_job_ad() -> None:
    assert kill_signal({}) == signal.SIGTERM
    assert kill_signal({"KillSig": "SIGINT"}) == signal.SIGINT
    assert kill_signal({"killsig": "QUIT"}) == signal.SIGQUIT
    assert kill_signal({"KillSig": 10}) == signal.SIGUSR1


def _watch(tmp_path: Path, duration: str, job: str) -> tuple[subprocess.Popen[str], Path]:
    log = tmp_path / "watch.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "runtime",
            "watch",
            "--plain",
            "--job",
            job,
            "--log",
            str(log),
            "--duration",
            duration,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    return proc, log


def _job_pid(log: Path) -> int | None:
    if not log.exists():
        return None
    for line in log.read_text().splitlines():
        record = json.loads(line)
        if record.get("kind") == "job" and record.get("op") == "start" and "pid" in record:
            return int(record["pid"])
    return None


@pytest.mark.parametrize("how", ["duration", "sigterm", "sigint"])
def test_watch_leaves_nothing_running(tmp_path: Path, how: str) -> None:
    """The signal may arrive right after the job started, while the slot is still inside
    transition 11 (the job-start record is written before the transition's): the watcher
    finishes the step, so #11 is still printed (a raising handler once lost it)."""
    proc, log = _watch(tmp_path, "2" if how == "duration" else "60", "sleep 120")
    try:
        assert _wait(lambda: _job_pid(log) is not None, timeout=20), proc.stderr
        pid = _job_pid(log)
        assert pid is not None and psutil.pid_exists(pid)
        if how != "duration":
            proc.send_signal(signal.SIGTERM if how == "sigterm" else signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert "#11" in out  # claimed and activated: the job ran
        assert _wait(lambda: _status(pid) == "gone")
        assert json.loads(log.read_text().splitlines()[-1])["kind"] == "stop"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        pid = _job_pid(log)
        if pid is not None and _status(pid) != "gone":
            os.killpg(pid, signal.SIGKILL)


def test_a_stop_request_never_raises_inside_a_step() -> None:
    from runtime.commands.watch import StopRequest

    stop = StopRequest()
    assert not stop.requested
    stop(signal.SIGTERM, None)  # returns: the loop stops at the next step boundary
    assert stop.requested
