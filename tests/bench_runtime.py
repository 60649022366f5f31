"""Replay speed of the runtime: a day-long desktop trace through the 6.8 default policy.

Run: `python -m tests.bench_runtime [--days N] [--era E] [--semantics S]`. Prints the
number of fired transitions and evaluation passes, slot-transitions per second and
simulated seconds per wall second. A benchmark, not a test: no timing is asserted.

The trace is generated (seeded): an owner who types in bursts during working hours, and
a schedd that matches, claims and activates the slot every few minutes with jobs of a
few minutes to an hour; events the slot cannot take in its state are simply ignored.
"""

from __future__ import annotations

import argparse
import random
import time

from compiler.config import load_config
from compiler.policy import compile_policy
from runtime.trace import Step, Trace, replay

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", type=float, default=1.0)
    parser.add_argument("--era", default="condor-6.8")
    parser.add_argument("--semantics", default="manual")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
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
