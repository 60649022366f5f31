"""Every clause `runtime.explain.decide` reports has the value the HTCondor wheel's
ClassAd library gives the clause's text in the same ads (MY = slot ad, TARGET = job ad),
and the deciding sub-clauses have the truth that decides their parent (an `&&` that is
FALSE is decided by FALSE conjuncts, and so on: runtime/explain/clauses.py)."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.classad import ClassAd, parse
from runtime.explain import Ads, Clause, decide
from tests.oracle import classad2
from tests.simplify.helpers import normalise

#: Guards in the shape of the seeds' policies (seed 000's START, Desktop's pieces,
#: the OSPool START of seed 002), without time(): the wheel's clock is the wall clock.
GUARDS = [
    'KeyboardIdle > 15 * 60 && Owner == "coltrane"',
    'KeyboardIdle > 15 * 60 || Owner == "coltrane"',
    "(KeyboardIdle > 15 * 60 && LoadAvg - CondorLoadAvg <= 0.3) =?= false",
    "(TARGET.ImageSize < 15 * 1024 || (KeyboardIdle < 60) == false || "
    "TARGET.JobUniverse == 5) && KeyboardIdle < 60",
    '!isUndefined(TARGET.ProjectName) && (Memory >= 2048 ? Cpus > 1 : State == "Owner")',
    "KeyboardIdel > 900 && Cpus >= 1",
    '!(LoadAvg > 0.5) && (TARGET.Owner == "miles" || TARGET.Owner =?= undefined)',
]
MACHINES = [
    {"KeyboardIdle": 34, "LoadAvg": 0.1, "CondorLoadAvg": 0.0, "Memory": 4096, "Cpus": 2,
     "State": "Owner"},
    {"KeyboardIdle": 1000, "LoadAvg": 0.9, "CondorLoadAvg": 0.0, "Memory": 1024, "Cpus": 1,
     "State": "Unclaimed"},
]  # fmt: skip
JOBS: list[dict[str, Any] | None] = [
    None,
    {"Owner": "coltrane", "ImageSize": 100, "JobUniverse": 5, "ProjectName": "x"},
    {"Owner": "miles", "ImageSize": 100000, "JobUniverse": 1},
]


def _oracle(text: str, my: dict[str, Any], target: dict[str, Any] | None) -> Any:
    mine = classad2.ClassAd()
    for k, v in my.items():
        mine[k] = v
    theirs = classad2.ClassAd()
    for k, v in (target or {}).items():
        theirs[k] = v
    return normalise(classad2.ExprTree(text).eval(mine, theirs))


def _walk(clause: Clause) -> list[Clause]:
    return [clause, *(c for sub in clause.deciding for c in _walk(sub))]


@pytest.mark.parametrize("guard", GUARDS)
@pytest.mark.parametrize("machine", MACHINES)
@pytest.mark.parametrize("job", JOBS)
def test_clause_values_match_the_wheel(
    guard: str, machine: dict[str, Any], job: dict[str, Any] | None
) -> None:
    ads = Ads(ClassAd(machine), None if job is None else ClassAd(job), 0)
    tree = decide(parse(guard), ads)
    for clause in _walk(tree):
        ours = normalise(ads.value(parse(clause.text)))
        assert ours == _oracle(clause.text, machine, job), clause.text
    for clause in _walk(tree):
        if clause.op == "&&" and clause.truth == "FALSE":
            assert all(c.truth == "FALSE" for c in clause.deciding)
        if clause.op == "||" and clause.truth == "TRUE":
            assert all(c.truth == "TRUE" for c in clause.deciding)
        if clause.op in ("&&", "||") and clause.truth in ("UNDEFINED", "ERROR"):
            assert all(c.truth == clause.truth for c in clause.deciding)
