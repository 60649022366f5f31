"""Benchmark: compiling `use POLICY : Desktop`, cold, as a whole process and per era.

Run `python -m tests.bench_compile [--seconds S] [--repeat N] [--semantics manual|code]`.
Not a test: it prints figures only.

The issue 11 figure: a cold `condor-policy compile --policy desktop` (current era, default
options, the table printed to a pipe), the whole process from exec to exit, against a
cold `python -c 'import htcondor2, classad2'` process, both with the same interpreter and
measured in the same run, interleaved, best of several (target: at most 3x). Both are
"cold" as a user's next command is: a fresh process each time, after one untimed run of
each so that the byte-code caches exist (PYTHONDONTWRITEBYTECODE is dropped from the
children's environment: an installed package has its .pyc files).

The per-era table below it runs a fresh Python process per era, so nothing is memoised:
reading the configuration, loading the spec, expanding, simplifying (sympy when needed),
deciding statuses and compiling every guard's predicate. The time to import the packages
is printed separately, and so is a warm recompilation in the same process (caches
filled) for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from compiler.spec import ERAS  # the parent only; each measurement is a cold child
from tests.bench_common import Figure, print_figures

ROOT = Path(__file__).resolve().parents[1]
#: The reference process: the official library's two modules, imported cold.
REFERENCE = ("-c", "import htcondor2, classad2")
#: Target of the cold-compile figure: our process at most this many times the reference.
TARGET = 3.0


def compile_command() -> list[str]:
    """`condor-policy compile --policy desktop` as a user runs it: the console script next
    to this interpreter when it is installed, else `python -m runtime` (the same `main`)."""
    script = shutil.which("condor-policy", path=str(Path(sys.executable).parent))
    start = [script] if script else [sys.executable, "-m", "runtime"]
    return [*start, "compile", "--policy", "desktop"]


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def _wall(command: list[str], env: dict[str, str]) -> float:
    """Wall time of one run of `command`, its output to a pipe (drained, not a terminal)."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{command} failed: {done.stderr.decode(errors='replace')}")
    return elapsed


def cold_compile(seconds: float, least: int = 5) -> tuple[float, float, int]:
    """(best wall of ours, best wall of the reference, runs of each): interleaved runs for
    about `seconds`, at least `least` of each, after one untimed run of each."""
    env = _environment()
    ours_command = compile_command()
    reference_command = [sys.executable, *REFERENCE]
    _wall(ours_command, env)
    _wall(reference_command, env)
    ours = reference = float("inf")
    runs = 0
    deadline = time.perf_counter() + seconds
    while runs < least or time.perf_counter() < deadline:
        reference = min(reference, _wall(reference_command, env))
        ours = min(ours, _wall(ours_command, env))
        runs += 1
    return ours, reference, runs


def figures(seconds: float) -> list[Figure]:
    """Issue 11's cold-compile figure, measured for about `seconds`."""
    ours, reference, runs = cold_compile(seconds)
    ratio = ours / reference
    return [
        Figure(
            name="cold compile --policy desktop, whole process",
            ours=f"{ours:.3f} s",
            reference=f"{reference:.3f} s (python -c 'import htcondor2, classad2'; best of {runs})",
            ratio=ratio,
            target=f"<= {TARGET:g}x",
            met=ratio <= TARGET,
        )
    ]


def _measure(era: str, semantics: str, repeat: int) -> dict[str, float | int]:
    """Runs in the child process: one era, timed from cold."""
    start = time.perf_counter()
    from compiler.config import load_config
    from compiler.policy import compile_policy

    imported = time.perf_counter()
    config = load_config(text="use POLICY : Desktop\n", era=era)
    table = compile_policy(config, era, semantics)
    cold = time.perf_counter()
    warm = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        compile_policy(load_config(text="use POLICY : Desktop\n", era=era), era, semantics)
        warm.append(time.perf_counter() - t0)
    return {
        "import": imported - start,
        "cold": cold - imported,
        "warm": min(warm) if warm else float("nan"),
        "rows": len(table.rows),
        "numbered": len(table.numbered()),
        "guards": sum(
            1
            for row in table.rows
            for g in (*row.triggers, *row.choices, row.guard)
            if g is not None
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time for the cold figure")
    parser.add_argument("--repeat", type=int, default=3, help="warm recompilations")
    parser.add_argument("--semantics", choices=("manual", "code"), default="manual")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_measure(args.child, args.semantics, args.repeat)))
        return 0
    print_figures(figures(args.seconds))
    print()
    print(f"POLICY : Desktop, {args.semantics} semantics; fresh process per era")
    print(
        f"{'era':18} {'rows':>5} {'numbered':>8} {'guards':>6} {'import s':>9} "
        f"{'cold s':>7} {'warm s':>7}"
    )
    for era in ERAS:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "tests.bench_compile",
                "--child",
                era,
                "--semantics",
                args.semantics,
                "--repeat",
                str(args.repeat),
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(
            f"{era:18} {r['rows']:>5} {r['numbered']:>8} {r['guards']:>6} "
            f"{r['import']:>9.3f} {r['cold']:>7.3f} {r['warm']:>7.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
