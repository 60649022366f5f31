"""Benchmark: compiling `use POLICY : Desktop` into each era's state table, cold.

Run `python -m tests.bench_compile [--repeat N] [--semantics manual|code]`. Not a test:
it prints figures only (target: under 1 second per era, cold).

"Cold" means a fresh Python process per era, so nothing is memoised: the figure covers
reading the configuration, loading the spec, expanding, simplifying (sympy included),
deciding statuses and compiling every guard's predicate. The time to import the
packages (sympy, lark, ...) is printed separately, and so is a warm recompilation in the
same process (caches filled) for comparison.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from compiler.spec import ERAS  # the parent only; each measurement is a cold child


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
    parser.add_argument("--repeat", type=int, default=3, help="warm recompilations")
    parser.add_argument("--semantics", choices=("manual", "code"), default="manual")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_measure(args.child, args.semantics, args.repeat)))
        return 0
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
