"""Benchmark: compiled two-ad evaluation against classad2's `ExprTree.eval(machine, job)`.

Run `python -m tests.bench_eval [--seconds S]`. Not a test: it prints figures only.

Issue 11's figure: `compile_expr(text)(my, target)` must take at most 0.25x the time of
classad2's `ExprTree.eval(machine_ad, job_ad)` per call (4x faster than the C++),
measured in the same run, for the Desktop policy's START, SUSPEND, PREEMPT and
WANT_SUSPEND. The expressions and the slot and job ads are tests/bench_classad.py's
(the slot ad also holds the four policy expressions, as a startd's ad does). Two ways
of passing the ads are measured: plain Python dicts of attribute values (as a user
would pass them; the policy expressions as parsed `Expr`s), and our `ClassAd` objects.
Every measured value is first checked against classad2's.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from tests.bench_classad import JOB, MACHINE, NAMES, desktop_policy
from tests.bench_common import Figure, paired_rates, print_figures

TARGET = 0.25
ROUNDS = 3


def _same(ours: Any, theirs: Any) -> bool:
    """Our public value and classad2's agree (type and value)."""
    from tests.oracle import classad2

    if theirs is classad2.Value.Undefined:
        return repr(ours) == "UNDEFINED"
    if theirs is classad2.Value.Error:
        return repr(ours) == "ERROR"
    return type(ours) is type(theirs) and ours == theirs


def _figure(
    name: str, ours: Callable[[], object], theirs: Callable[[], object], s: float
) -> Figure:
    ours_rate, theirs_rate = paired_rates(ours, theirs, s, ROUNDS)
    ratio = theirs_rate / ours_rate  # our time per call / classad2's time per call
    return Figure(
        name=name,
        ours=f"{1e6 / ours_rate:.2f} us/call",
        reference=f"{1e6 / theirs_rate:.2f} us/call",
        ratio=ratio,
        target=f"<= {TARGET}x classad2 time",
        met=ratio <= TARGET,
    )


def figures(seconds: float) -> list[Figure]:
    """One figure per Desktop expression, for plain dicts and for our ClassAd objects."""
    from compiler.classad import compile_expr, parse
    from compiler.classad.ads import load_ad
    from tests.oracle import classad2

    policy = desktop_policy()
    machine, job = load_ad(MACHINE), load_ad(JOB)
    for name, text in policy.items():
        machine[name] = parse(text)
    plain_machine, plain_job = dict(machine.items()), dict(job.items())
    o_machine = classad2.ClassAd("[" + ";".join(MACHINE.splitlines()) + "]")
    o_job = classad2.ClassAd("[" + ";".join(JOB.splitlines()) + "]")
    for name, text in policy.items():
        o_machine[name] = classad2.ExprTree(text)

    out: list[Figure] = []
    for kind, my, target in (("dicts", plain_machine, plain_job), ("ClassAd", machine, job)):
        for name in NAMES:
            compiled = compile_expr(policy[name])
            oracle = classad2.ExprTree(policy[name])
            ours_value, theirs_value = compiled(my, target), oracle.eval(o_machine, o_job)
            if not _same(ours_value, theirs_value):
                raise AssertionError(f"{name}: ours {ours_value!r}, classad2 {theirs_value!r}")
            out.append(
                _figure(
                    f"eval {name} ({kind})",
                    lambda c=compiled, m=my, t=target: c(m, t),
                    lambda o=oracle: o.eval(o_machine, o_job),
                    seconds,
                )
            )
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="time per measurement")
    args = parser.parse_args(argv)
    print_figures(figures(args.seconds))
    print("\nratio: our time per call / classad2's time per call (lower is better)")


if __name__ == "__main__":
    main()
