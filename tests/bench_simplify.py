"""Benchmark: `compile` of a configuration whose START is a long OR (issue 11).

Run `python -m tests.bench_simplify [--seconds S]`. Not a test: it prints figures only.

What is timed: `compile_policy(load_config(text=...))` of `use POLICY : Desktop` with START
replaced by
* an OR of N clauses `(Owner == "uI" && KeyboardIdle > I) || ...`,
* a 100-user allow-list `Owner == "u1" || Owner == "u2" || ...`,
* a 100-host allow-list `Machine == "h1.example.org" || ...`,
in one process whose packages and era spec are already loaded (imports and the spec's
first load are `tests.bench_compile`'s figure). Every run uses new user and host names,
so no memo of an earlier run helps. Targets: N = 100 under 1 s, and cost near linear in
the expression's size: time(N = 100) / time(N = 25), measured in the same run, at most
1.5 times the 4 that linear cost gives.
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Callable

from compiler.config import load_config
from compiler.policy import compile_policy
from compiler.spec import load_spec
from tests.bench_common import Figure, best_time, print_figures

_RUN = itertools.count()


def clauses(n: int, tag: str) -> str:
    return " || ".join(f'(Owner == "{tag}u{i}" && KeyboardIdle > {i})' for i in range(1, n + 1))


def users(n: int, tag: str) -> str:
    return " || ".join(f'Owner == "{tag}u{i}"' for i in range(1, n + 1))


def hosts(n: int, tag: str) -> str:
    return " || ".join(f'Machine == "{tag}h{i}.example.org"' for i in range(1, n + 1))


def compile_time(start: Callable[[int, str], str], n: int, repeat: int) -> float:
    """The best wall time of compiling START = start(n, fresh names), in seconds."""
    load_spec("htcondor-current", "manual")

    def once() -> None:
        text = f"use POLICY : Desktop\nSTART = {start(n, f'r{next(_RUN)}')}\n"
        compile_policy(load_config(text=text))

    return best_time(once, repeat)


def _under_a_second(name: str, seconds: float, reference: str) -> Figure:
    return Figure(name, f"{seconds:.3f} s", reference, seconds, "< 1 s", seconds < 1.0)


def figures(seconds: float) -> list[Figure]:
    repeat = 3 if seconds >= 1.0 else 1
    t25 = compile_time(clauses, 25, repeat)
    t100 = compile_time(clauses, 100, repeat)
    t_users = compile_time(users, 100, repeat)
    t_hosts = compile_time(hosts, 100, repeat)
    linear = t100 / t25 / 4
    ref = f"N=25: {t25:.3f} s"
    return [
        _under_a_second("compile, START = OR of N=100 clauses", t100, ref),
        _under_a_second("compile, 100-user allow-list", t_users, ref),
        _under_a_second("compile, 100-host allow-list", t_hosts, ref),
        Figure(
            "compile, OR of clauses: t(N=100)/t(N=25)/4 (near linear)",
            f"{t100:.3f} s",
            ref,
            linear,
            "<= 1.5x",
            linear <= 1.5,
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="budget per figure")
    args = parser.parse_args(argv)
    repeat = 3 if args.seconds >= 1.0 else 1
    print("compile of `use POLICY : Desktop` with START = an OR of N clauses, warm process")
    print(f"{'N':>5} {'clauses s':>10} {'users s':>9} {'hosts s':>9}")
    for n in (10, 20, 40, 80, 100):
        times = [compile_time(form, n, repeat) for form in (clauses, users, hosts)]
        print(f"{n:>5} " + " ".join(f"{t:>9.3f}" for t in times))
    print()
    print_figures(figures(args.seconds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
