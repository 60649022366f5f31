"""What every benchmark shares: timing loops and the printed figure against its target.

A benchmark measures ours and the reference (classad2, a cold `import htcondor2, classad2`
process, a naive loop) in the same run and prints the ratio; it never asserts a time.
Each benchmark module exposes `figures(seconds) -> list[Figure]`, so `python -m
tests.bench_all` can print the whole table of issue 11 in one run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    """One measured figure: ours, the reference measured in the same run, the target.

    `ratio` is stated the way the target is stated (for example ours/classad2 in calls
    per second, or our time / reference time), and `met` says whether it meets it.
    """

    name: str
    ours: str
    reference: str
    ratio: float
    target: str
    met: bool


def rate(fn: Callable[[], object], seconds: float) -> float:
    """Calls per second of `fn`, measured for about `seconds` (batches double up to 10,000)."""
    count, batch = 0, 1
    start = time.perf_counter()
    while True:
        for _ in range(batch):
            fn()
        count += batch
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return count / elapsed
        batch = min(batch * 2, 10_000)


def paired_rates(
    ours: Callable[[], object], theirs: Callable[[], object], seconds: float, rounds: int
) -> tuple[float, float]:
    """(our calls/s, the reference's calls/s): `rounds` alternating rounds sharing
    `seconds`, the best round of each kept, so that a noisy neighbour on the shared
    machine hurts both sides alike."""
    best_ours = best_theirs = 0.0
    for _ in range(rounds):
        best_ours = max(best_ours, rate(ours, seconds / rounds))
        best_theirs = max(best_theirs, rate(theirs, seconds / rounds))
    return best_ours, best_theirs


def best_time(fn: Callable[[], object], repeat: int = 3) -> float:
    """The shortest wall time of `repeat` calls of `fn`, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def print_figures(figures: Sequence[Figure]) -> None:
    """The figures as a table: what, ours, reference, ratio, target, met."""
    rows = [("figure", "ours", "reference", "ratio", "target", "")]
    rows += [
        (f.name, f.ours, f.reference, f"{f.ratio:.2f}x", f.target, "ok" if f.met else "MISSED")
        for f in figures
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
        if n == 0:
            print("  ".join("-" * width for width in widths))
