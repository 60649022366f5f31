"""The Desktop policy (reference/transitions.md section 6.3), simplified with and without
the startd's domains: equal to the original by the oracle on machine/job ads the startd
could publish, and the simplifications an administrator should see."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.classad import ast as A
from compiler.classad import parse, unparse
from compiler.classad.values import ERROR, UNDEFINED
from compiler.simplify import STARTD_DOMAINS, simplify, truth
from tests.budget import examples
from tests.simplify.desktop import ALL, DESKTOP, GUARDS
from tests.simplify.helpers import oracle_eval

NOW = int(time.time())
ABSENT = object()
# Time offsets stay >= 3 s away from the policy's thresholds (10, 90, 120, 600 s), so a
# clock tick between the two evaluations cannot change a comparison.
AGES = [0, 5, 50, 100, 200, 1000]


def _pick(values: list[Any]) -> st.SearchStrategy[Any]:
    return st.sampled_from(values)


MACHINE = st.fixed_dictionaries(
    {
        "KeyboardIdle": _pick([0, 30, 59, 60, 61, 299, 300, 301, 899, 900, 901, 5000]),
        "LoadAvg": _pick([0.0, 0.1, 0.3, 0.5, 1.0, 2]),
        "CondorLoadAvg": _pick([0.0, 0.1, 0.2, 0.5, 1.0]),
        "State": _pick(["Owner", "Unclaimed", "Claimed", "owner", "Preempting"]),
        "Activity": _pick(["Idle", "Busy", "Suspended", "suspended", "Retiring"]),
        "EnteredCurrentActivity": _pick([NOW - a for a in AGES]),
        "CpuBusyValue": _pick([ABSENT, 0, 1, True, 1.0, UNDEFINED]),
        "CpuBusyTime": _pick([ABSENT, *(NOW - a for a in AGES), UNDEFINED]),
        "JobStart": _pick([ABSENT, *(NOW - a for a in AGES), UNDEFINED, "x"]),
        "SUSPEND": _pick([ABSENT, True, False, UNDEFINED, ERROR, 1]),
        "WANT_SUSPEND": _pick([ABSENT, True, False, UNDEFINED, 0]),
        "START": _pick([ABSENT, True, False, UNDEFINED, ERROR]),
    }
).map(lambda d: {k: v for k, v in d.items() if v is not ABSENT})
JOB = st.fixed_dictionaries(
    {
        "ImageSize": _pick([ABSENT, 100, 15359, 15360, 20000, "big", UNDEFINED]),
        "JobUniverse": _pick([ABSENT, 5, 1, 5.0, "vanilla"]),
        "JobStart": _pick([ABSENT, NOW - 100, "y"]),
    }
).map(lambda d: {k: v for k, v in d.items() if v is not ABSENT})


@pytest.mark.parametrize("name", list(ALL))
@settings(max_examples=examples(30))
@given(
    machines=st.lists(MACHINE, min_size=10, max_size=10),
    jobs=st.lists(JOB, min_size=10, max_size=10),
)
def test_desktop_simplification_is_sound(
    name: str, machines: list[dict[str, Any]], jobs: list[dict[str, Any]]
) -> None:
    e = ALL[name]
    with_domains = simplify(e, domains=STARTD_DOMAINS).expr
    without = simplify(e).expr
    for my, target in zip(machines, jobs, strict=True):
        want = oracle_eval(e, my, target)
        assert oracle_eval(with_domains, my, target) == want, (
            name,
            unparse(with_domains),
            my,
            target,
        )
        assert oracle_eval(without, my, target) == want, (name, unparse(without), my, target)


def _simple(e: A.Expr) -> str:
    return unparse(simplify(e, domains=STARTD_DOMAINS).expr)


def test_start_folds_constants_and_keeps_its_shape() -> None:
    assert _simple(DESKTOP["START"]) == unparse(
        parse(
            'KeyboardIdle > 900 && (LoadAvg - CondorLoadAvg <= 0.3 || State != "Unclaimed" && State != "Owner")'
        )
    )


def test_keyboard_not_busy_reads_as_a_comparison() -> None:
    # (KeyboardIdle < 60) == False  ->  KeyboardIdle >= 60: KeyboardIdle is always published
    assert "KeyboardIdle >= 60" in _simple(DESKTOP["WANT_SUSPEND"])
    assert "== false" not in _simple(DESKTOP["WANT_SUSPEND"])
    # Without the domain the comparison could be NaN-valued: the negation stays.
    assert "KeyboardIdle < 60)" in unparse(simplify(DESKTOP["WANT_SUSPEND"]).expr)


def test_want_suspend_and_suspend_drops_the_repeated_suspend() -> None:
    assert _simple(GUARDS["14 Busy->Suspended"]) == _simple(DESKTOP["WANT_SUSPEND"])


def test_is_owner_false_becomes_not_identical_to_false() -> None:
    assert _simple(GUARDS["1 Owner->Unclaimed"]).endswith("=!= false")


def test_kill_is_dead_and_start_is_live() -> None:
    assert truth(GUARDS["21 Vacating->Killing"], domains=STARTD_DOMAINS) == "dead"
    assert truth(DESKTOP["START"], domains=STARTD_DOMAINS) == "live"


def test_dedicated_node_assumption() -> None:
    fixed = {"KeyboardIdle": 10**9}
    out = simplify(DESKTOP["START"], domains=STARTD_DOMAINS, assume=fixed).expr
    assert unparse(out) == unparse(
        parse('LoadAvg - CondorLoadAvg <= 0.3 || State != "Unclaimed" && State != "Owner"')
    )
    out = simplify(DESKTOP["CONTINUE"], domains=STARTD_DOMAINS, assume=fixed).expr
    assert unparse(out) == "LoadAvg - CondorLoadAvg <= 0.3 && time() - EnteredCurrentActivity > 10"


def test_all_desktop_guards_are_minimised_or_say_why() -> None:
    for name, e in ALL.items():
        got = simplify(e, domains=STARTD_DOMAINS)
        assert got.minimised or got.notes, name


def test_assumptions_are_reported_in_notes() -> None:
    got = simplify(DESKTOP["START"], domains=STARTD_DOMAINS, assume={"KeyboardIdle": 10**9})
    assert got.notes == ("assumed KeyboardIdle = 1000000000",)
