"""`compiler.analysis.satisfiable`: "unsat" is a proof, "sat" comes with a witness the
HTCondor oracle confirms, on hand-written startd guards and on random guards."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.analysis import always, satisfiable
from compiler.classad import ast as A
from compiler.classad import parse
from compiler.simplify import STARTD_DOMAINS
from tests.simplify.helpers import ads, guards, oracle_eval

DEAD = [
    "KeyboardIdle < 0",
    "ClockMin > 1439 || ClockDay == 7",
    "KeyboardIdle > 15 * 60 && KeyboardIdle < 60",
    'State == "Owner" && State == "Unclaimed"',
    "KeyboardIdle == undefined",
    "LoadAvg < 0 && TARGET.ImageSize > 5",
    "False",
]
LIVE = [
    "KeyboardIdle > 15 * 60 && LoadAvg - CondorLoadAvg <= 0.3",
    'Owner == "coltrane" && KeyboardIdle < 60',
    'time() - EnteredCurrentActivity > 600 && Activity == "Suspended"',
    "ifThenElse(JobStart =!= undefined, time() - JobStart, 0) > 90",
    "TARGET.ImageSize < 15 * 1024 || TARGET.JobUniverse == 5",
    '(KeyboardIdle > 900 || Owner == "coltrane") =?= undefined',
]


def _oracle_true(e: A.Expr, my: dict[str, Any], target: dict[str, Any], now: int) -> bool:
    # The oracle has no fixed clock: replace time() and CurrentTime by the witness's now.
    from compiler.classad.ast import map_children

    def fix(x: A.Expr) -> A.Expr:
        if isinstance(x, A.Call) and x.key == "time" and not x.args:
            return A.Integer(now)
        if isinstance(x, A.AttrRef) and x.key == "currenttime":
            return A.Integer(now)
        return map_children(x, fix)

    def plain(ad: dict[str, Any]) -> dict[str, Any]:
        from compiler.classad.values import ERROR, UNDEFINED

        out = {}
        for k, v in ad.items():
            out[k] = (
                UNDEFINED
                if isinstance(v, A.UndefinedLit)
                else ERROR
                if isinstance(v, A.ErrorLit)
                else v
            )
        return out

    return oracle_eval(fix(e), plain(my), plain(target)) == ("bool", True) or oracle_eval(
        A.Unary("!", A.Unary("!", fix(e))), plain(my), plain(target)
    ) == ("bool", True)


@pytest.mark.parametrize("text", DEAD)
def test_dead_guards_are_proved_unsat(text: str) -> None:
    result = satisfiable(parse(text))
    assert result.verdict == "unsat", result
    assert result.proof


@pytest.mark.parametrize("text", LIVE)
def test_live_guards_get_an_oracle_confirmed_witness(text: str) -> None:
    e = parse(text)
    result = satisfiable(e)
    assert result.verdict == "sat", result
    assert result.witness is not None
    my, target = result.witness.as_dicts()
    assert _oracle_true(e, my, target, result.witness.now), result.witness.describe()


def test_always_true_guard() -> None:
    assert always(parse("KeyboardIdle < 60 || KeyboardIdle >= 60")).verdict == "unsat"
    assert always(parse("KeyboardIdle < 60")).verdict == "sat"


def test_assumed_state_decides_a_guard() -> None:
    e = parse('Activity == "Suspended" && KeyboardIdle < 60')
    busy = satisfiable(e, assume={"State": "Claimed", "Activity": "Busy"})
    suspended = satisfiable(e, assume={"State": "Claimed", "Activity": "Suspended"})
    assert busy.verdict == "unsat"
    assert suspended.verdict == "sat"


def test_wanted_truth_values_other_than_true() -> None:
    # IS_OWNER = START =?= False with a job attribute in START: START locally UNDEFINED.
    e = parse('KeyboardIdle > 900 || Owner == "coltrane"')
    undefined = satisfiable(e, want=("U",))
    assert undefined.verdict == "sat"
    assert satisfiable(parse("KeyboardIdle > 900"), want=("U", "E")).verdict == "unsat"


@settings(max_examples=60)
@given(
    guards(), st.lists(ads(), min_size=15, max_size=15), st.lists(ads(), min_size=15, max_size=15)
)
def test_random_guards_never_get_a_wrong_answer(
    e: A.Expr, machines: list[dict[str, Any]], jobs: list[dict[str, Any]]
) -> None:
    result = satisfiable(e, domains={})
    if result.verdict == "sat":
        assert result.witness is not None
        my, target = result.witness.as_dicts()
        assert _oracle_true(e, my, target, result.witness.now), (e, result.witness)
    elif result.verdict == "unsat":
        for my, target in zip(machines, jobs, strict=True):
            value = oracle_eval(A.Unary("!", A.Unary("!", e)), my, target)
            assert value != ("bool", True), (e, my, target)


def test_startd_domains_are_used_by_default() -> None:
    assert satisfiable(parse("ClockDay == 7"), domains={}).verdict == "sat"
    assert satisfiable(parse("ClockDay == 7")).verdict == "unsat"
    assert "ClockDay" in STARTD_DOMAINS
