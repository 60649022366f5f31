"""Runtime speed: one evaluation pass of a claimed slot, and a day-long desktop replay.

Run: `python -m tests.bench_runtime [--seconds S] [--days N] [--era E] [--semantics S]`.
A benchmark, not a test: no timing is asserted.

The figure (`figures`, issue 11): one `Slot.poll()` of a slot compiled from `use POLICY :
Desktop` in the current era, claimed and running a job, against one classad2 two-ad
evaluation of the same policy's expanded START (`ExprTree.eval(machine, job)` with the
realistic ads of tests/bench_classad.py), measured in the same run. The slot's sensors
are those of that machine ad and stay fixed, the clock moves one second per pass (the
time-derived attributes change on every pass, as in a real slot), and no transition
fires (checked).

Then the replay: the number of fired transitions and evaluation passes of a generated
day, slot-transitions per second and simulated seconds per wall second.

The trace is generated (seeded): an owner who types in bursts during working hours, and
a schedd that matches, claims and activates the slot every few minutes with jobs of a
few minutes to an hour; events the slot cannot take in its state are simply ignored.
"""

from __future__ import annotations

import argparse
import random
import time

from compiler.classad.ads import load_ad
from compiler.config import load_config
from compiler.policy import compile_policy
from runtime.clock import SimClock
from runtime.sensors.fake import FakeSensors
from runtime.slot import Slot
from runtime.trace import Step, Trace, replay
from tests.bench_classad import JOB, MACHINE, desktop_policy
from tests.bench_common import Figure, paired_rates, print_figures

DAY = 24 * 60 * 60


def desktop_day(days: float = 1.0, seed: int = 6) -> Trace:
    rng = random.Random(seed)
    steps: list[Step] = [Step(0.0, "tick")]
    t = 0.0
    end = days * DAY
    job_end = 0.0
    while t < end:
        t += rng.uniform(60, 600)
        hour = (t % DAY) / 3600
        if 8 <= hour < 18 and rng.random() < 0.5:
            steps.append(Step(t, "set", values={"KeyboardIdle": 0}))
        steps.append(Step(t, "event", "benchmarks_done"))  # ignored unless benchmarking
        if rng.random() < 0.15:
            steps.append(Step(t, "set", values={"LoadAvg": round(rng.uniform(0, 1.2), 2)}))
        if t >= job_end and rng.random() < 0.6:
            owner = rng.choice(["coltrane", "tyner", "garrison", "jones", "mccoy"])
            job = {"Owner": owner, "JobUniverse": 5, "ImageSize": rng.randint(1000, 40000)}
            steps.append(Step(t, "event", "match"))
            steps.append(Step(t + 1, "event", "claim", job=job))
            steps.append(Step(t + 2, "event", "activate"))
            job_end = t + rng.uniform(300, 3600)
            steps.append(Step(job_end, "event", "job_exit"))
            steps.append(Step(job_end + 1, "event", "starter_exit"))
            steps.append(Step(job_end + 2, "event", "vacate", how="graceful"))
            if rng.random() < 0.3:
                rival = {"Owner": "garrison", "JobUniverse": 5}
                steps.append(Step(t + rng.uniform(10, 200), "event", "preempting_claim", job=rival))
    steps.sort(key=lambda s: s.t)
    return Trace(
        file="<desktop day>",
        steps=tuple(s for s in steps if s.t <= end),
        machine={"KeyboardIdle": 3600, "LoadAvg": 0.0, "LastBenchmark": 999_990_000},
        job={"Owner": "coltrane", "JobUniverse": 5},
    )


#: The measured attributes of tests/bench_classad.py's machine ad, as the slot's sensors.
SENSORS = ("KeyboardIdle", "ConsoleIdle", "LoadAvg", "CondorLoadAvg", "TotalLoadAvg")
SENSORS += ("Cpus", "TotalCpus", "Memory", "Disk", "KFlops", "Mips", "Arch", "OpSys")


def claimed_desktop_slot() -> Slot:
    """A current-era `use POLICY : Desktop` slot, claimed and running the benchmark job."""
    config = load_config(text="use POLICY : Desktop\n", era="htcondor-current")
    table = compile_policy(config, era="htcondor-current", semantics="manual")
    machine = load_ad(MACHINE)
    clock = SimClock()
    sensors = FakeSensors(start=clock.now())
    sensors.set({name: machine[name] for name in SENSORS}, clock.now())
    slot = Slot(table, sensors, clock, job=dict(load_ad(JOB)))
    slot.start()
    # Entering Unclaimed/Idle evaluates at once (LastBenchmark == 0 starts benchmarks).
    for t, event in ((5, "benchmarks_done"), (10, "match"), (11, "claim"), (12, "activate")):
        clock.advance_to(t)
        slot.send(event)
    clock.advance_to(600)
    if slot.pair_tuple() != ("Claimed", "Busy"):
        raise RuntimeError(f"the benchmark slot is {slot.pair}, not Claimed/Busy")
    return slot


#: Measurement rounds per side (see `poll_figure`).
ROUNDS = 5


def poll_figure(seconds: float) -> Figure:
    """`Slot.poll()` of a claimed Desktop slot / one classad2 START evaluation."""
    from tests.oracle import classad2

    policy = desktop_policy()
    o_machine = classad2.ClassAd("[" + ";".join(MACHINE.splitlines()) + "]")
    o_job = classad2.ClassAd("[" + ";".join(JOB.splitlines()) + "]")
    for name, text in policy.items():
        o_machine[name] = classad2.ExprTree(text)
    start = classad2.ExprTree(policy["START"])
    slot = claimed_desktop_slot()
    clock = slot.clock
    fired = len(slot.fired)

    def poll() -> bool:
        clock.advance_to(clock.elapsed() + 1)
        return slot.poll()

    ours, theirs = paired_rates(poll, lambda: start.eval(o_machine, o_job), seconds, ROUNDS)
    if len(slot.fired) != fired or slot.pair_tuple() != ("Claimed", "Busy"):
        raise RuntimeError(f"a transition fired while polling: {slot.fired[fired:]}")
    ratio = theirs / ours  # our time per pass / their time per START evaluation
    return Figure(
        "Slot.poll() of a claimed Desktop slot",
        f"{1e6 / ours:.1f} us/pass",
        f"classad2 START {1e6 / theirs:.1f} us",
        ratio,
        "<= 4x",
        ratio <= 4,
    )


def figures(seconds: float) -> list[Figure]:
    """The runtime's figures of issue 11 (see the module docstring)."""
    return [poll_figure(seconds)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    parser.add_argument("--days", type=float, default=1.0)
    parser.add_argument("--era", default="condor-6.8")
    parser.add_argument("--semantics", default="manual")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print_figures(figures(args.seconds))
    print()
    config = load_config(era=args.era)
    table = compile_policy(config, era=args.era, semantics=args.semantics)
    trace = desktop_day(args.days)
    best = float("inf")
    fired = evaluations = 0
    for _ in range(args.repeat):
        start = time.perf_counter()
        slot = replay(trace, table)
        wall = time.perf_counter() - start
        best = min(best, wall)
        fired, evaluations = len(slot.fired), slot.evaluations
    simulated = args.days * DAY
    print(f"{args.era} ({args.semantics}), {args.days:g} day(s), {len(trace.steps)} trace steps")
    print(f"fired transitions: {fired}, evaluation passes: {evaluations}")
    print(f"wall time (best of {args.repeat}): {best:.3f} s")
    print(f"slot-transitions per second: {fired / best:,.0f}")
    print(f"evaluation passes per second: {evaluations / best:,.0f}")
    print(f"simulated seconds per wall second: {simulated / best:,.0f}")


if __name__ == "__main__":
    main()
