"""Every figure of the speed table in one run: `python -m tests.bench_all [--seconds S]`.

Each benchmark module measures ours and its reference (classad2, a cold `import htcondor2,
classad2` process, a smaller input) in the same run; this prints them in one table with
the target each must meet. Figures only: nothing here is a test.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from tests.bench_common import Figure, print_figures

#: The benchmark modules, in the order of the table in issue 11, then issue 14's and 15's.
MODULES = (
    "tests.bench_classad",
    "tests.bench_eval",
    "tests.bench_columns",
    "tests.bench_compile",
    "tests.bench_runtime",
    "tests.bench_dump",
    "tests.bench_simplify",
    "tests.bench_negotiate",
    "tests.bench_simulate",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="time per rate measurement")
    args = parser.parse_args(argv)
    figures: list[Figure] = []
    for name in MODULES:
        print(f"measuring {name} ...", file=sys.stderr, flush=True)
        figures += importlib.import_module(name).figures(args.seconds)
    print_figures(figures)
    return 0 if all(f.met for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
