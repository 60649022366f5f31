"""The abstraction every law relies on: the oracle's value of a random expression always
has one of the kinds `abstract()` allows, within its numeric bounds; and `truth_values`
contains the value's truth value."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.classad import ast as A
from compiler.simplify.abstract import abstract, truth_values
from compiler.simplify.domains import Env
from tests.budget import examples
from tests.simplify.helpers import ads, guards, oracle_eval
from tests.simplify.test_soundness import DOMAINS, _domain_machine

EXAMPLES = examples(150)


def _kind(v: Any) -> str:
    match v:
        case ("undefined",):
            return "U"
        case ("error",):
            return "E"
        case ("real", "nan"):
            return "nan"
        case ("real", x):
            return "real" if math.isfinite(x) else "nan"
        case ("bool" | "int" | "str" | "list" | "ad" as tag, *_):
            return str(tag)
    raise AssertionError(v)


def _tv(v: Any) -> str:
    kind = _kind(v)
    if kind in ("U", "E"):
        return kind
    if kind in ("str", "list", "ad"):
        return "E"
    if kind == "nan":
        return "T"
    return "T" if v[1] else "F"


def _subtrees(e: A.Expr) -> list[A.Expr]:
    return list(A.walk(e, same_scope=True))


def _check(root: A.Expr, env: Env, my: dict[str, Any], target: dict[str, Any]) -> None:
    for e in _subtrees(root):
        _check_one(e, env, my, target)


def _check_one(e: A.Expr, env: Env, my: dict[str, Any], target: dict[str, Any]) -> None:
    v = oracle_eval(e, my, target)
    a = abstract(e, env)
    assert _kind(v) in a.tags, (e, v, a)
    if _kind(v) in ("int", "real", "bool") and isinstance(v[1], int | float):
        assert a.low is None or v[1] >= a.low, (e, v, a)
        assert a.high is None or v[1] <= a.high, (e, v, a)
    assert _tv(v) in truth_values(e, env), (e, v, a)


@settings(max_examples=EXAMPLES)
@given(guards(), st.lists(ads(), min_size=4, max_size=4), st.lists(ads(), min_size=4, max_size=4))
def test_abstraction_covers_every_value(
    e: A.Expr, machines: list[dict[str, Any]], jobs: list[dict[str, Any]]
) -> None:
    env = Env.make({}, {})
    for my, target in zip(machines, jobs, strict=True):
        _check(e, env, my, target)


@settings(max_examples=EXAMPLES)
@given(
    guards(),
    st.lists(_domain_machine(), min_size=4, max_size=4),
    st.lists(ads(), min_size=4, max_size=4),
)
def test_abstraction_covers_every_value_within_domains(
    e: A.Expr, machines: list[dict[str, Any]], jobs: list[dict[str, Any]]
) -> None:
    env = Env.make(DOMAINS, {})
    for my, target in zip(machines, jobs, strict=True):
        _check(e, env, my, target)
