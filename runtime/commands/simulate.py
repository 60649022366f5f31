"""`condor-policy simulate POOL_FILE [--hours H] [--seed S] [--out DIR] [--semantics
code|manual] [--format text|json]`: a what-if simulation of a whole pool (issue 15).

POOL_FILE (YAML or JSON; `condor-policy simulate --example` prints a commented one):
machine groups (count, attributes, the startd policy, an owner model), job streams
(count and arrival rate, run times, the job ad, nice, accounting group) and the
negotiator's configuration. Every slot runs its compiled table (runtime.Slot), every
match comes from the negotiator's cycle, every priority from the accountant. Output:
the metrics summary (a table, or JSON with `--format json`) and, with `--out DIR`,
events.jsonl (every transition with its slot, number and cause), metrics.json and the
plots states.png, rup.png, queue.png, preemptions.png. A progress bar on a terminal;
Ctrl-C stops the simulation and writes everything simulated so far (held back while
the files are written: they are never cut short).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from runtime.commands._interrupt import held_back

if TYPE_CHECKING:
    from runtime.simulate import PoolSpec, Record, Simulation

NAME = "simulate"
HELP = "Simulate a whole pool over hours or days: slots, owners, jobs, the negotiator."


def hours(text: str) -> float:
    """`--hours`: a finite number, at least 0 and at most the pool file's longest time
    (as the pool file's `hours`)."""
    from runtime.simulate.poolfile import LONGEST_HOURS

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of hours: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of hours, at least 0: {text!r}")
    if value > LONGEST_HOURS:
        raise argparse.ArgumentTypeError(f"must be at most {LONGEST_HOURS:g} hours: {text!r}")
    return value


def out_directory(path: str) -> Path:
    """`--out`: the directory made (with its parents) before any simulation runs, so a
    place that cannot be one fails at once, not after hours of simulating."""
    from compiler.errors import PolicyError

    out = Path(path)
    if out.exists() and not out.is_dir():
        raise PolicyError(f"--out {path}: exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pool_file", metavar="POOL_FILE", nargs="?", help="the pool (YAML or JSON)")
    parser.add_argument(
        "--example", action="store_true", help="print a commented example pool file"
    )
    parser.add_argument(
        "--hours", type=hours, help="simulated hours (default: the file's, else 24)"
    )
    parser.add_argument("--seed", type=int, help="random seed (default: the file's, else 1)")
    parser.add_argument(
        "--out", metavar="DIR", help="write events.jsonl, metrics.json and plots here"
    )
    parser.add_argument(
        "--semantics",
        choices=("code", "manual"),
        default="code",
        help="code (default): the daemons' behaviour; manual: the manuals read literally",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace) -> int:
    from compiler.errors import PolicyError
    from runtime.simulate import (
        example_text,
        read_pool,
        summary,
        table_lines,
        write_outputs,
    )

    if args.example:
        sys.stdout.write(example_text())
        return 0
    if not args.pool_file:
        raise PolicyError("a POOL_FILE is needed (condor-policy simulate --example prints one)")
    pool = read_pool(args.pool_file)
    if args.out:
        out_directory(args.out)  # (before the run, not after it)
    hours = args.hours if args.hours is not None else pool.hours
    simulation = _set_up(pool, args.semantics, args.seed)
    for warning in simulation.warnings:  # (a configuration text's, at its place)
        print(f"condor-policy: warning: {warning}", file=sys.stderr)
    until = hours * 3600
    record = _run(simulation, until)
    with held_back() as held:  # (a Ctrl-C now would cut the files short)
        metrics = summary(record, len(simulation.slots))
        written = write_outputs(Path(args.out), record, metrics) if args.out else []
        if args.format == "json":
            print(json.dumps(metrics, indent=2, sort_keys=True))
        else:
            for line in table_lines(metrics):
                print(line)
            for path in written:
                print(f"wrote {path}")
    if record.interrupted_at is not None:
        print(
            f"interrupted at {record.interrupted_at / 3600:.2f} simulated hours: "
            "everything simulated so far was written",
            file=sys.stderr,
        )
        return 130
    if held.interrupted:
        print("interrupted once the simulation was over: all of it was written", file=sys.stderr)
        return 130
    return 0


def _set_up(pool: PoolSpec, semantics: str, seed: int | None) -> Simulation:
    """The simulation set up, with a progress bar on a terminal (stderr): a pool of ten
    thousand slots takes seconds, a mistyped count far longer (Ctrl-C stops it)."""
    from runtime.simulate import Simulation
    from runtime.simulate.engine import setup_size

    if not sys.stderr.isatty():
        return Simulation(pool, semantics=semantics, seed=seed)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with Progress(
        TextColumn("setting up"), BarColumn(), MofNCompleteColumn(), transient=True,
    ) as bar:  # fmt: skip
        task = bar.add_task("setup", total=setup_size(pool))

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done)

        return Simulation(pool, semantics=semantics, seed=seed, progress=progress)


def _run(simulation: Simulation, until: float) -> Record:
    """The simulation with a progress bar on a terminal (stderr)."""
    if not sys.stderr.isatty():
        return simulation.run(until)
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("simulating"), BarColumn(), TextColumn("{task.fields[hours]:.1f} h"),
        TimeRemainingColumn(), transient=True,
    ) as bar:  # fmt: skip
        task = bar.add_task("sim", total=until, hours=0.0)

        def progress(at: float) -> None:
            bar.update(task, completed=at, hours=at / 3600)

        return simulation.run(until, progress)
