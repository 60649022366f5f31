"""`condor-policy sweep SWEEP_FILE [--out DIR] [--workers N | --scheduler ADDRESS |
--htcondor] [--print-job-script] [--format text|json]`: many simulations (policy
variants x seeds x pool sizes) as tasks on dask.distributed (issue 15).

Where the tasks run: a LocalCluster of worker processes on this machine (default, one per
core or `--workers N`); an existing dask scheduler (`--scheduler tcp://host:8786`); or,
with `--htcondor`, dask-jobqueue's HTCondorCluster: each worker is a job submitted to the
HTCondor pool this machine's schedd belongs to, with the sweep file's `htcondor:`
requests (`--print-job-script` prints that job's submit description and stops). The
results (sorted by variant, scale, seed: the same sweep, the same table) go to DIR as
results.csv, results.json and sweep-<metric>.png; the terminal shows each variant's
means over seeds. Ctrl-C cancels what has not finished and writes what has (exit 130).
A simulation that fails (a variant whose transitions never settle, say) is reported with
its variant, scale and seed and its problem at its place; the others are written (exit 2).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from runtime.commands._interrupt import held_back

NAME = "sweep"
HELP = "Run many simulations (variants x seeds x pool sizes) on dask.distributed."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sweep_file", nargs="?", metavar="SWEEP_FILE",
                        help="the sweep (YAML or JSON; --example prints a commented one)")  # fmt: skip
    parser.add_argument(
        "--example", action="store_true", help="print the commented example sweep file"
    )
    parser.add_argument(
        "--out", default="sweep-out", help="directory for the results (default: sweep-out)"
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers", type=int, help="LocalCluster worker processes (default: one per core)"
    )
    where.add_argument(
        "--scheduler", metavar="ADDRESS", help="an existing dask scheduler, e.g. tcp://host:8786"
    )
    where.add_argument("--htcondor", action="store_true",
                       help="workers as jobs of this machine's HTCondor pool (dask-jobqueue HTCondorCluster)")  # fmt: skip
    parser.add_argument("--print-job-script", action="store_true",
                        help="with --htcondor: print the workers' submit description and stop")  # fmt: skip
    parser.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace) -> int:
    from compiler.errors import PolicyError
    from runtime.commands.simulate import out_directory
    from runtime.simulate.sweep import example_text, read_sweep, table_lines, write_results

    if args.example:
        sys.stdout.write(example_text())
        return 0
    if not args.sweep_file:
        raise PolicyError("a SWEEP_FILE is needed (condor-policy sweep --example prints one)")
    if args.print_job_script and not args.htcondor:
        raise PolicyError("--print-job-script goes with --htcondor")
    if args.workers is not None and args.workers < 1:
        raise PolicyError("--workers must be at least 1")
    spec = read_sweep(args.sweep_file)
    for warning in spec.warnings:  # (a configuration text's, at its place)
        print(f"condor-policy: warning: {warning}", file=sys.stderr)
    if not args.print_job_script:
        out_directory(args.out)  # (before the sweep, not after it)
    with _client(args, spec) as client:
        if client is None:  # --print-job-script
            return 0
        rows, complete = _gather(spec, client)
    failed = [row for row in rows if "error" in row]
    rows = [row for row in rows if "error" not in row]
    with held_back() as held:  # (a Ctrl-C now would cut the files short)
        written = write_results(Path(args.out), rows, spec)
        if args.format == "json":
            print(json.dumps({"rows": rows, "complete": complete, "failed": failed}, indent=2,
                             sort_keys=True))  # fmt: skip
        else:
            for line in table_lines(rows):
                print(line)
            for path in written:
                print(f"wrote {path}")
    complete = complete and not held.interrupted
    if not complete:
        print(f"interrupted: {len(rows)} of the sweep's simulations finished and were written",
              file=sys.stderr)  # fmt: skip
        return 130
    if failed:
        # each failed simulation named, with its problem at its place; the others written
        for row in failed:
            print(f"condor-policy: variant {row['variant']}, scale {row['scale']:g}, seed "
                  f"{row['seed']}: {row['error']}", file=sys.stderr)  # fmt: skip
        print(f"condor-policy: {len(failed)} of the sweep's {len(failed) + len(rows)} "
              "simulations failed (the others' results were written)", file=sys.stderr)  # fmt: skip
        return 2
    return 0


class _client:
    """The dask client the arguments ask for, closed (with its cluster) on exit; None
    after printing the HTCondor job script."""

    def __init__(self, args: argparse.Namespace, spec: Any) -> None:
        self.args = args
        self.spec = spec
        self.cluster: Any = None
        self.client: Any = None
        self.environ: dict[str, str] = {}

    def __enter__(self) -> Any:
        from distributed import Client, LocalCluster

        from compiler.errors import PolicyError

        # distributed sets OMP_NUM_THREADS, PYTHONHASHSEED ... in this process's
        # environment for the workers it spawns; they are put back on exit
        self.environ = dict(os.environ)
        args = self.args
        if args.scheduler:
            try:
                self.client = Client(args.scheduler)
            except (OSError, ValueError, TypeError) as err:  # (unreachable; not an address)
                raise PolicyError(f"--scheduler {args.scheduler}: cannot connect: {err}") from None
            return self.client
        if args.htcondor:
            from runtime.simulate.sweep import htcondor_cluster

            self.cluster = htcondor_cluster(self.spec.htcondor)
            if args.print_job_script:
                print(self.cluster.job_script())
                return None
            self.cluster.scale(jobs=self.spec.htcondor.jobs)
        else:
            workers = args.workers or os.cpu_count() or 1
            self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                        processes=True, dashboard_address=None)  # fmt: skip
        self.client = Client(self.cluster)
        return self.client

    def __exit__(self, *exc: object) -> None:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
        os.environ.clear()
        os.environ.update(self.environ)


def _gather(spec: Any, client: Any) -> tuple[list[dict[str, Any]], bool]:
    """The sweep's rows, with a progress bar on a terminal."""
    from runtime.simulate.sweep import run_sweep, tasks

    total = len(tasks(spec))
    if not sys.stderr.isatty():
        return run_sweep(spec, client)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("simulations"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), transient=True) as bar:  # fmt: skip
        task = bar.add_task("sweep", total=total)
        return run_sweep(spec, client, progress=lambda row: bar.advance(task))
