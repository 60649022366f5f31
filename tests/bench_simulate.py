"""Benchmark: the pool simulator (issue 15) against its targets and against stepping every
slot every POLLING_INTERVAL, measured in the same run.

Run `python -m tests.bench_simulate [--week-hours H] [--naive-hours H]`. Not a test: it
prints figures only. The pool is desktops (`use POLICY : Desktop`, owners typing in
office hours, three keyboard sessions a day with their own load) and a saturating job
stream of three users (a queue as long as the pool at the start, then arrivals of half
the pool per hour; two-hour jobs), the negotiator every 300 s with the manual's 20 %
PREEMPTION_REQUIREMENTS. Every run is a fresh process, its peak memory (VmHWM) read at
its end.

Figures:
- 1,000 slots x 24 simulated hours, against the 10 s target;
- 10,000 slots x 7 days: simulated for `--week-hours` (a day by default, a whole week
  when 168) and extrapolated linearly in time when shorter (said so; the set-up,
  building the slots, counted once), against 120 s and 2 GB; less than a day leaves out the owners' office hours (the night is quiet: 6 h
  extrapolated a quarter short). The memory is the peak measured plus the growth per
  hour of the second half of the run carried on to the week (jobs and the event log
  accumulate);
- the same week stepped naively (every evaluation of every slot) on a 1 % sample (100
  slots) for `--naive-hours` (a day by default), extrapolated to all slots and the whole
  week (the set-up too to all slots, once), against the event-driven week: the speed-up (target >= 50x); and the speed-up on
  the sample itself, both engines measured on the same 100 slots and hours (same
  transitions);
- the slots' own runtime alone (`runtime.Slot`, which every slot of the simulator runs):
  what one job costs it at the least (its exit, then the next job's start on the same
  claim, sent on claimed slots with nothing else running), times the jobs the week
  finishes. It is a floor under the week's time whatever the engine around the slots
  does, against the same 120 s.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from typing import Any

from tests.bench_common import Figure, print_figures

DAY, WEEK = 24.0, 168.0


def pool_document(slots: int, hours: float, seed: int = 1) -> dict[str, Any]:
    owner = {"model": "office_hours", "start_hour": 9, "end_hour": 17, "sessions": 3,
             "session_minutes": 40, "load": 1.0}  # fmt: skip
    return {
        "hours": hours,
        "seed": seed,
        "machines": [
            {
                "name": "desk",
                "count": slots,
                "startd": "use POLICY : Desktop\n",
                "machine": {"Memory": 8192, "Cpus": 1},
                "owner": owner,
            }
        ],
        "jobs": [
            {
                "user": f"{u}@example.com",
                "count": max(1, slots // 3),
                "rate_per_hour": slots / 6,
                "run_minutes": {"mean": 120},
            }
            for u in ("alice", "bob", "carol")
        ],
        "negotiator": {
            "config": "NEGOTIATOR_INTERVAL = 300\n"
            "PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2\n"
        },
    }


def _memory_mb(field: str) -> float:
    """This process's resident memory (`VmRSS`) or its peak (`VmHWM`) in MB. Not
    getrusage's ru_maxrss: Linux keeps it across exec, so a child started by a large
    parent (bench_all) would report the parent's size."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def one(slots: int, hours: float, naive: bool) -> dict[str, Any]:
    """One simulation in this process: seconds (of them the set-up: making the
    `Simulation`), peak memory, the memory held half way and at the end (its growth per
    simulated hour), what it did."""
    from runtime.simulate import Simulation, pool_spec

    pool = pool_spec(pool_document(slots, hours), "<bench>")
    start = time.perf_counter()
    simulation = Simulation(pool, naive=naive)
    setup = time.perf_counter() - start
    simulation.run(hours * 1800)
    half = _memory_mb("VmRSS")
    record = simulation.run(hours * 3600)
    seconds = time.perf_counter() - start
    end = _memory_mb("VmRSS")
    return {
        "seconds": seconds,
        "setup": setup,
        "max_rss_mb": _memory_mb("VmHWM"),
        "growth_mb_per_hour": max(0.0, end - half) / (hours / 2),
        "transitions": len(record.log),
        "evaluations": sum(run.slot.evaluations for run in simulation.slots),
        "skipped": sum(run.slot.skipped for run in simulation.slots),
        "finished": sum(1 for job in simulation.jobs if job.finished is not None),
    }


def per_job(rounds: int = 30) -> dict[str, Any]:
    """The slot runtime's least cost per job: on the claimed slots of 100 desktops at
    night (2 h in), `rounds` times each, a minute on, the job's exit and the next job's
    start on the claim, sent as the simulator sends them (`Simulation._complete`,
    `_maybe_activate`), and nothing else."""
    from runtime.simulate import Simulation, pool_spec

    simulation = Simulation(pool_spec(pool_document(100, DAY), "<bench>"))
    simulation.run(2 * 3600)
    runs = [run for run in simulation.slots if run.slot.pair_tuple() == ("Claimed", "Busy")]
    jobs = 0
    start = time.perf_counter()
    for _ in range(rounds):
        for run in runs:
            slot, job = run.slot, run.job
            assert job is not None
            later = slot.clock.elapsed() + 60.0
            slot.skip_evaluations(later)
            slot.advance(later, inclusive=False)
            run.sensors.job_load = 0.0
            slot.send("job_exit")
            if slot.record.job is not None:
                slot.set_job(job.ad)
            run.sensors.job_load = 1.0
            slot.send("activate")
            slot.forget_history()
            jobs += slot.pair_tuple() == ("Claimed", "Busy")
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "jobs": jobs, "sent": 2 * rounds * len(runs)}


def measured(slots: int, hours: float, naive: bool = False) -> dict[str, Any]:
    """`one` in a fresh process (its memory is its own)."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.bench_simulate", "--one", str(slots), str(hours),
         "naive" if naive else "events"],
        capture_output=True, check=True, text=True,
    )  # fmt: skip
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def measured_per_job() -> dict[str, Any]:
    """`per_job` in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.bench_simulate", "--per-job"],
        capture_output=True, check=True, text=True,
    )  # fmt: skip
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _in_time(run: dict[str, Any], hours: float) -> float:
    """The seconds of `run` (`one`'s) carried on to a week: its set-up once, the rest
    linearly in simulated time."""
    return run["setup"] + (run["seconds"] - run["setup"]) * WEEK / hours


def figures(seconds: float, week_hours: float = DAY, naive_hours: float = DAY) -> list[Figure]:
    del seconds  # whole simulations: the figures are seconds, not rates
    day = measured(1_000, DAY)
    week = measured(10_000, week_hours)
    week_seconds = _in_time(week, week_hours)
    # memory grows with the jobs and the log: the second half's growth carried on
    week_mb = week["max_rss_mb"] + week["growth_mb_per_hour"] * max(0.0, WEEK - week_hours)
    extrapolated = (
        "" if week_hours >= WEEK else f" (extrapolated from {week_hours:g} h, set-up once)"
    )
    floor = measured_per_job()
    per_job_us = floor["seconds"] / floor["sent"] * 2 * 1e6
    week_jobs = week["finished"] * WEEK / week_hours
    floor_seconds = week_jobs * per_job_us / 1e6
    sample_naive = measured(100, naive_hours, naive=True)
    sample_events = measured(100, naive_hours)
    naive_week = 100 * _in_time(sample_naive, naive_hours)
    return [
        Figure(
            name="simulate 1,000 slots x 24 h",
            ours=f"{day['seconds']:.1f} s, {day['max_rss_mb']:.0f} MB, {day['transitions']:,} transitions",
            reference="target 10 s",
            ratio=10.0 / day["seconds"],
            target=">= 1x (under 10 s)",
            met=day["seconds"] < 10.0,
        ),
        Figure(
            name="simulate 10,000 slots x 7 days",
            ours=f"{week_seconds:.0f} s{extrapolated}, {week_mb:.0f} MB "
            f"({week['max_rss_mb']:.0f} MB at {week_hours:g} h "
            f"+ {week['growth_mb_per_hour']:.1f} MB/h)",
            reference="target 120 s, 2 GB",
            ratio=120.0 / week_seconds,
            target=">= 1x (under 120 s and 2 GB)",
            met=week_seconds < 120.0 and week_mb < 2048,
        ),
        Figure(
            name="event-driven week vs naive stepping",
            ours=f"{week_seconds:.0f} s event-driven",
            reference=f"naive {naive_week:.0f} s (100 slots x {naive_hours:g} h, x100 x{WEEK / naive_hours:g})",
            ratio=naive_week / week_seconds,
            target=">= 50x",
            met=naive_week / week_seconds >= 50,
        ),
        Figure(
            name="runtime.Slot alone, the week's jobs",
            ours=f"{floor_seconds:.0f} s: {per_job_us:.0f} us per job (exit, next start) "
            f"x {week_jobs:,.0f} jobs finished",
            reference="target 120 s (the whole week)",
            ratio=120.0 / floor_seconds,
            target=">= 1x (room for the rest)",
            met=floor_seconds < 120.0,
        ),
        Figure(
            name=f"same 100 slots x {naive_hours:g} h, both engines",
            ours=f"{sample_events['seconds']:.1f} s, {sample_events['evaluations']:,} evaluations",
            reference=f"naive {sample_naive['seconds']:.1f} s, {sample_naive['evaluations']:,} evaluations",
            ratio=sample_naive["seconds"] / sample_events["seconds"],
            target="faster, same transitions",
            met=sample_naive["transitions"] == sample_events["transitions"]
            and sample_events["seconds"] < sample_naive["seconds"],
        ),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--week-hours", type=float, default=DAY,
                        help="hours of the 10,000-slot week actually simulated (168: all)")  # fmt: skip
    parser.add_argument("--naive-hours", type=float, default=DAY,
                        help="hours of the naive 1 %% sample actually simulated")  # fmt: skip
    parser.add_argument(
        "--one", nargs=3, metavar=("SLOTS", "HOURS", "MODE"), help=argparse.SUPPRESS
    )
    parser.add_argument("--per-job", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.per_job:
        print(json.dumps(per_job()))
        return
    if args.one:
        slots, hours, mode = args.one
        print(json.dumps(one(int(slots), float(hours), mode == "naive")))
        return
    print_figures(figures(0.0, args.week_hours, args.naive_hours))


if __name__ == "__main__":
    main()
