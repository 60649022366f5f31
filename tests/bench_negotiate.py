"""Benchmark: one negotiation cycle over 10,000 slots and 50,000 jobs (issue 14: under
10 s), against the slot-by-slot cycle measured in the same run.

Run `python -m tests.bench_negotiate [--slots N] [--jobs N]`. Not a test: it prints
figures only. The snapshot is tests/pool/snapshots.py's: a real site's negotiator
settings (../shared/realworld-configs, UWCS: PREEMPTION_REQUIREMENTS, PREEMPTION_RANK,
NEGOTIATOR_PRE/POST_JOB_RANK) over generated `condor_status -l`-like slot ads (30 %
claimed) and `condor_q -l`-like jobs of 50 submitters in 100 autoclusters.

Figures:
- the `condor-policy negotiate SNAPSHOT --format json` command, a process of its own
  reading the snapshot as JSON and writing the whole answer (every unmatched job's
  analysis included), against the 10 s target;
- the cycle in process at a tenth of the size, column-wise (runtime.pool.matchlist.Pool)
  against the slot-by-slot reference (tests/pool/naive.py: the scalar evaluator on each
  slot, which the cycle used before), both giving the same answer (checked here).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.bench_common import Figure, print_figures

SLOTS, JOBS = 10_000, 50_000
TARGET_SECONDS = 10.0


def _snapshot(slots: int, jobs: int) -> dict[str, object]:
    from tests.pool.snapshots import generated_snapshot, site_config

    return generated_snapshot(slots, jobs, config=site_config())


def command_seconds(slots: int, jobs: int) -> tuple[float, int, int]:
    """Wall time of the command in a fresh process; (seconds, matches, unmatched)."""
    with tempfile.TemporaryDirectory() as workdir:
        path = Path(workdir) / "snapshot.json"
        path.write_text(json.dumps(_snapshot(slots, jobs)))
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "runtime.cli", "negotiate", str(path), "--format", "json"],
            capture_output=True,
            check=True,
        )
        seconds = time.perf_counter() - start
    answer = json.loads(done.stdout)
    return seconds, len(answer["matches"]), len(answer["unmatched"])


def cycle_seconds(slots: int, jobs: int) -> tuple[float, float]:
    """(column-wise, slot-by-slot) seconds of one cycle in process, same answer."""
    from runtime.pool import negotiate_snapshot
    from tests.pool.naive import NaivePool

    start = time.perf_counter()
    ours = negotiate_snapshot(_snapshot(slots, jobs), semantics="code").to_json()
    fast = time.perf_counter() - start
    start = time.perf_counter()
    naive = negotiate_snapshot(
        _snapshot(slots, jobs), semantics="code", pool_class=NaivePool
    ).to_json()
    slow = time.perf_counter() - start
    if ours != naive:
        raise SystemExit("the column-wise cycle and the slot-by-slot cycle disagree")
    return fast, slow


def figures(seconds: float, slots: int = SLOTS, jobs: int = JOBS) -> list[Figure]:
    del seconds  # one cycle each: the figures are seconds, not rates
    whole, matched, unmatched = command_seconds(slots, jobs)
    small_slots, small_jobs = max(1, slots // 10), max(1, jobs // 10)
    fast, slow = cycle_seconds(small_slots, small_jobs)
    return [
        Figure(
            name=f"negotiate command, {slots:,} slots x {jobs:,} jobs",
            ours=f"{whole:.1f} s ({matched:,} matched, {unmatched:,} analysed)",
            reference=f"target {TARGET_SECONDS:.0f} s",
            ratio=TARGET_SECONDS / whole,
            target=">= 1x (under 10 s)",
            met=whole < TARGET_SECONDS,
        ),
        Figure(
            name=f"one cycle, {small_slots:,} slots x {small_jobs:,} jobs",
            ours=f"{fast:.2f} s column-wise",
            reference=f"slot by slot {slow:.2f} s",
            ratio=slow / fast,
            target="faster",
            met=fast < slow,
        ),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slots", type=int, default=SLOTS)
    parser.add_argument("--jobs", type=int, default=JOBS)
    args = parser.parse_args(argv)
    print_figures(figures(0.0, args.slots, args.jobs))


if __name__ == "__main__":
    main()
