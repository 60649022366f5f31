"""Benchmark: one compiled guard over 10,000 slot ads at once, against classad2 per slot.

Run `python -m tests.bench_columns [--seconds S] [--slots N]`. Not a test: it prints
figures only (issue 11: at least 20x faster per slot than calling classad2's
`ExprTree.eval(slot, job)` once per slot, N = 10,000, both measured in this run).

The guard is the current era's Desktop START as HTCondor expands it (tests.bench_classad);
the slots are realistic startd ads (policy expressions included) whose KeyboardIdle,
LoadAvg, CondorLoadAvg, State, Activity and activity times vary; TARGET is one vanilla
job. Building the columns is a one-off cost (a pool simulator keeps its slots as
columns) and is printed on its own line, not in the per-slot figure. Before timing,
every row's value is checked against the scalar evaluator.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from tests.bench_classad import JOB, MACHINE, NAMES, desktop_policy
from tests.bench_common import Figure, best_time, print_figures

SLOTS = 10_000
TARGET_RATIO = 20.0


def slot_ads(count: int, now: int, policy: dict[str, str], seed: int = 7) -> list[dict[str, Any]]:
    """`count` startd slot ads carrying `policy`, with the values the Desktop policy reads
    varied (some thresholds hit exactly, a few attributes missing). Times are at least
    five minutes from any threshold of the policy, so a reader whose clock is a second
    off gets the same values."""
    from compiler.classad import parse
    from compiler.classad.ads import load_ad

    rng = random.Random(seed)
    base = dict(load_ad(MACHINE))
    for name, text in policy.items():
        base[name] = parse(text)
    slots = []
    for n in range(count):
        ad = dict(base)
        ad["Name"] = f"slot{n % 16 + 1}@node{n // 16}.example.org"
        ad["KeyboardIdle"] = rng.choice([0, 59, 60, 61, 899, 900, 901, 4210, 86400, 900.5])
        ad["LoadAvg"] = rng.choice([0.0, 0.3, 1.02, 1.3, 2.0, 1])
        ad["CondorLoadAvg"] = rng.choice([0.0, 1.0, 0.99])
        ad["State"] = rng.choice(["Owner", "Unclaimed", "Claimed", "claimed", "Preempting"])
        ad["Activity"] = rng.choice(["Idle", "Busy", "Suspended", "suspended", "Retiring"])
        ad["EnteredCurrentActivity"] = now - rng.choice([5, 300, 10_000])
        ad["CpuBusyValue"] = rng.choice([0, 1, 1.0, True])
        ad["CpuBusyTime"] = now - rng.choice([10, 1000])
        ad["JobStart"] = now - rng.choice([10, 1000])
        if rng.random() < 0.1:
            del ad[rng.choice(["KeyboardIdle", "JobStart", "CpuBusyValue", "State"])]
        slots.append(ad)
    return slots


class _Setup:
    """Everything both sides need, built once (not timed)."""

    def __init__(self, count: int) -> None:
        from compiler.classad.ads import load_ad
        from compiler.classad.columns import Columns
        from tests.classad.oracle_support import ad_text
        from tests.oracle import classad2

        self.count = count
        self.now = int(time.time())
        self.policy = desktop_policy()
        self.slots = slot_ads(count, self.now, self.policy)
        self.job = load_ad(JOB)
        start = time.perf_counter()
        self.columns = Columns.from_ads(self.slots)
        self.build_seconds = time.perf_counter() - start
        self.theirs_job = classad2.ClassAd("[" + ";".join(JOB.splitlines()) + "]")
        self.theirs_slots = [classad2.ClassAd(ad_text(ad)) for ad in self.slots]


def _per_slot(setup: _Setup, name: str, seconds: float) -> tuple[float, float, int]:
    """(our seconds per slot, classad2's seconds per slot, rows left to the scalar path)."""
    from compiler.classad import compile_expr
    from compiler.classad.columns import compile_columns
    from tests.oracle import classad2

    text = setup.policy[name]
    guard = compile_columns(text)
    values = guard(setup.columns, setup.job, now=setup.now)
    scalar = compile_expr(text)
    for row, ad in enumerate(setup.slots):
        expected = scalar(ad, setup.job, now=setup.now)
        assert repr(values[row]) == repr(expected), (name, row, values[row], expected)

    tree = classad2.ExprTree(text)
    slots, job = setup.theirs_slots, setup.theirs_job

    def theirs() -> None:
        for slot in slots:
            tree.eval(slot, job)

    def ours() -> None:
        guard(setup.columns, setup.job, now=setup.now)

    once = best_time(theirs, 1)
    repeat = max(3, min(20, int(seconds / max(once, 1e-9))))
    their_time = min(once, best_time(theirs, repeat))
    our_time = best_time(ours, max(5, repeat * 5))
    return our_time / setup.count, their_time / setup.count, len(values.scalar)


def _figure(setup: _Setup, name: str, seconds: float) -> Figure:
    ours, theirs, scalar = _per_slot(setup, name, seconds)
    ratio = theirs / ours
    return Figure(
        name=f"{name} over {setup.count:,} slot ads, per slot",
        ours=f"{ours * 1e9:,.0f} ns/slot ({scalar} rows scalar)",
        reference=f"classad2 {theirs * 1e9:,.0f} ns/slot",
        ratio=ratio,
        target=f">= {TARGET_RATIO:.0f}x",
        met=ratio >= TARGET_RATIO,
    )


def figures(seconds: float, count: int = SLOTS) -> list[Figure]:
    """Issue 11's figure: one guard (the Desktop START) over `count` slot ads."""
    return [_figure(_Setup(count), "START", seconds)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="time per measurement")
    parser.add_argument("--slots", type=int, default=SLOTS, help="slot ads (default 10,000)")
    args = parser.parse_args(argv)
    setup = _Setup(args.slots)
    print_figures([_figure(setup, name, args.seconds) for name in NAMES])
    print(
        f"\none-off: building the columns of {args.slots:,} slot ads "
        f"({len(setup.columns.names())} attributes) took {setup.build_seconds:.2f} s "
        f"({setup.build_seconds / args.slots * 1e6:.0f} us/slot); not in the figures above"
    )


if __name__ == "__main__":
    main()
