"""`condor-policy watch [CONFIG] [--job 'CMD ARGS'] [--job-ad FILE] [--log FILE]
[--duration S] [--era E] [--semantics manual|code] [--policy NAME] [--plain]`.

Runs one slot of the compiled policy on wall time with this host's real sensors
(runtime.sensors.real). With `--job`, the watcher acts as schedd and starter: when the
slot is Unclaimed and START holds for the job ad (`--job-ad`, default Owner = the local
user, vanilla universe) it claims and activates the slot, which starts the command in its
own process group; Claimed/Suspended stops it (SIGSTOP), continuing resumes it (SIGCONT),
Preempting/Vacating sends the soft-kill signal (KillSig, default SIGTERM), Killing and
KILLING_TIMEOUT send SIGKILL to the group. The job's exit drives the job_exit/starter_exit
transition, after which the claim is released. The policy is evaluated when the startd
would (runtime.timers): at start-up, every UPDATE_INTERVAL, and every POLLING_INTERVAL
while the polling timer runs. A live view (rich) shows the slot; with `--plain` or when
stdout is not a terminal, transitions (and events no transition took) are printed as
lines.

Ctrl-C, SIGTERM or `--duration` end the watch: the job's process group is killed and
reaped, the JSONL event log (`--log`) is flushed and closed.
"""

from __future__ import annotations

import argparse
import getpass
import shlex
import signal
import sys
import time
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from compiler.errors import PolicyError
from runtime.commands._policy_args import (
    add_policy_arguments,
    add_slot_argument,
    load_policy,
    print_warnings,
)

if TYPE_CHECKING:
    from runtime.jobs import JobProcess
    from runtime.slot import Slot

# The slot, its real sensors and the job runner (psutil, transitions) are imported by the
# functions that watch: the CLI imports every command module to list the commands, and
# `condor-policy compile` must not pay for them (issue 11, cold compile).

NAME = "watch"
HELP = "Run the policy live on this host's load and keyboard, optionally controlling a real job."
#: Longest sleep between two looks at the job process and the sensors.
TICK = 0.25


class StopRequest:
    """Ctrl-C or SIGTERM to the watcher, remembered until the loop reaches a step boundary.

    The signal handler only sets `requested`: raising from it could interrupt the slot in
    the middle of a transition (after the job started but before the transition was
    recorded and printed), and then the output would lose what happened.
    """

    def __init__(self) -> None:
        self.requested = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_policy_arguments(parser)
    add_slot_argument(parser)
    parser.add_argument("--job", metavar="CMD", help="command to run as the job ('CMD ARGS')")
    parser.add_argument("--job-ad", metavar="FILE", help="the job's ClassAd attributes")
    parser.add_argument("--log", metavar="FILE", help="append the JSONL event log here")
    parser.add_argument("--duration", type=float, metavar="S", help="stop after S seconds")
    parser.add_argument("--plain", action="store_true", help="print lines, no live view")


def _job_ad(path: str | None) -> dict[str, Any]:
    from compiler.classad import load_ad

    ad: dict[str, Any] = {"Owner": getpass.getuser(), "JobUniverse": 5, "ImageSize": 1000}
    if path is not None:
        if not Path(path).is_file():
            raise PolicyError("no such job ad file", file=path)
        ad.update(dict(load_ad(Path(path))))
    return ad


def _job_argv(command: str) -> list[str]:
    """`--job 'CMD ARGS'` split as a shell would split it (quotes, no expansion)."""
    try:
        return shlex.split(command)
    except ValueError as err:  # an unbalanced quote
        raise PolicyError(f"cannot split the job command: {err}", file="--job") from None


class Watcher:
    """The watch loop, separate from argument parsing so tests can drive it."""

    def __init__(self, slot: Slot, job: JobProcess | None, job_ad: dict[str, Any]) -> None:
        self.slot = slot
        self.job = job
        self.job_ad = job_ad
        self.claimed_once = False

    def step(self) -> None:
        slot = self.slot
        slot.advance(slot.clock.elapsed())
        if slot.activity == "Benchmarking":
            # No MIPS/KFLOPS benchmark is run: report it finished (LastBenchmark = now).
            slot.send("benchmarks_done")
        if self.job is None:
            return
        if slot.state == "Unclaimed" and slot.activity == "Idle" and not self.claimed_once:
            start = slot.policy.value("START", slot.ad, slot.classad(self.job_ad), slot.clock.now())
            if start is True:
                self.claimed_once = True
                slot.send("claim", job=self.job_ad)
                if slot.state == "Claimed":
                    slot.send("activate")
        if self.job.proc is not None and self.job.returncode is None:
            code = self.job.poll()
            if code is not None:
                event = "job_exit" if slot.activity in ("Busy", "Retiring") else "starter_exit"
                slot.send(event)
                if slot.state == "Claimed" and slot.activity == "Idle":
                    slot.send("release")

    def wait(self) -> None:
        due = self.slot.next_due()
        now = self.slot.clock.elapsed()
        delay = TICK if due is None else min(TICK, max(0.0, due - now))
        time.sleep(delay)


def run(args: argparse.Namespace) -> int:
    from compiler import compile_policy
    from runtime.clock import WallClock
    from runtime.eventlog import EventLog
    from runtime.jobs import JobProcess
    from runtime.sensors.real import RealSensors
    from runtime.slot import Slot

    choice = load_policy(args)
    table = compile_policy(choice.config, era=choice.era, semantics=choice.semantics)
    print_warnings(table.warnings, only_loud=True)
    log = EventLog(args.log) if args.log else None
    plain = args.plain or not sys.stdout.isatty()

    def listener(record: dict[str, Any]) -> None:
        if log is not None:
            log.write(record)
        if plain and record.get("kind") == "transition":
            print(
                f"t={record['t']} #{record['number']}: {'/'.join(record['from'])} -> "
                f"{'/'.join(record['to'])} ({record['reason']})",
                flush=True,
            )
        elif plain and record.get("kind") == "ignored":
            print(
                f"t={record['t']} event {record['event']} ignored ({record['reason']})", flush=True
            )

    job = JobProcess(_job_argv(args.job), listener=listener) if args.job is not None else None
    sensors = RealSensors(job_cpu=job.tree_cpu_seconds if job else (lambda: 0.0))
    slot = Slot(
        table,
        sensors,
        WallClock(),
        jobs=job,
        job=_job_ad(args.job_ad),
        listener=listener,
    )
    sensors.owner_state = lambda: slot.state == "Owner"
    watcher = Watcher(slot, job, slot.request_job)
    stop = StopRequest()
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    end = None if args.duration is None else time.time() + args.duration
    said = 0
    try:
        slot.start()
        view = None if plain else _view()
        if view is not None:
            view.__enter__()
        try:
            while not stop.requested and (end is None or time.time() < end):
                watcher.step()
                for note in sensors.notes[said:]:
                    listener({"t": round(slot.clock.elapsed(), 3), "kind": "note", "note": note})
                    if plain:
                        print(f"note: {note}", flush=True)
                said = len(sensors.notes)
                if view is not None:
                    view.update(slot, sensors.notes, job.pid if job else None)
                watcher.wait()
        finally:
            if view is not None:
                view.__exit__(None, None, None)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if job is not None:
            job.kill_all()
        if log is not None:
            log.write({"t": round(slot.clock.elapsed(), 3), "kind": "stop"})
            log.close()
    if plain:
        print(f"# ends {slot.state}/{slot.activity}", flush=True)
    return 0


def _view() -> Any:
    from runtime.view import LiveView

    return LiveView()
