"""The simplifier and ClassAd time values: times are an opaque kind it never folds wrongly.

`abstract()` must allow the kind of every value a time expression evaluates to (a
time's truth value is ERROR, time arithmetic gives a time or ERROR), and simplifying an
expression must keep its value in every time zone: calls that read the local zone
(`absTime`, `splitTime`, `formatTime`, `getYear` & co) are never folded at compile
time, where the zone may not be the pool's.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler.classad import ast as A
from compiler.classad import evaluate, parse, unparse
from compiler.classad.values import AbsTime, RelTime
from compiler.simplify import simplify
from compiler.simplify.abstract import abs_of_value, abstract, tvs
from compiler.simplify.domains import Env
from compiler.simplify.threevl import tv_of_value
from tests.budget import examples
from tests.classad.time_oracle import in_zone

ZONE_PAIRS = [("UTC", "America/Chicago"), ("Asia/Kolkata", "UTC")]

atoms = st.sampled_from(
    [
        'absTime("2004-07-01T12:00:00")',
        'absTime("2004-07-01T12:00:00Z")',
        "absTime(0)",
        "absTime(1000000000, 3600)",
        "relTime(90061.5)",
        "relTime(-5)",
        'relTime("1:30")',
        "currentTime()",
        "1",
        "2.5",
        "true",
        '"s"',
        "undefined",
        "x",
    ]
)
_ops = st.sampled_from(["+", "-", "*", "/", "<", "==", "=?=", "!=", "&&", "||"])
_calls = st.sampled_from(
    ["int", "real", "string", "bool", "isAbsTime", "isRelTime", "getHours", "-", "!", ""]
)


@st.composite
def time_expressions(draw: st.DrawFn, depth: int = 2) -> str:
    if depth == 0 or draw(st.booleans()):
        return draw(atoms)
    kind = draw(st.sampled_from(["binary", "call", "split", "cond"]))
    left = draw(time_expressions(depth - 1))
    if kind == "binary":
        return f"({left}) {draw(_ops)} ({draw(time_expressions(depth - 1))})"
    if kind == "call":
        return f"{draw(_calls)}({left})"  # `-(x)`, `!(x)`, `(x)` or a call
    if kind == "split":
        return f'formatTime({left}, "%H:%M") =?= splitTime({left}).Hours'
    return f"({left}) ? ({draw(time_expressions(depth - 1))}) : relTime(1)"


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return type(a) is type(b) and a == b if not isinstance(a, dict | list) else a == b


@settings(max_examples=examples(150), deadline=None)
@given(text=time_expressions())
@example(text="relTime(5) && true")
@example(text="absTime(0) - absTime(5)")
@example(text="relTime(2) * 3 < relTime(7)")
@example(text="-(absTime(0))")
def test_abstract_allows_every_time_value(text: str) -> None:
    env = Env.make({}, {})
    root = parse(text)
    for e in A.walk(root, same_scope=True):
        value = evaluate(e, now=1_700_000_000)
        allowed = abstract(e, env)
        assert abs_of_value(value).tags <= allowed.tags, (unparse(e), value, allowed)
        assert tv_of_value(value) in tvs(allowed), (unparse(e), value, allowed)


@pytest.mark.parametrize(("compile_zone", "run_zone"), ZONE_PAIRS)
@settings(max_examples=examples(40), deadline=None)
@given(text=time_expressions())
@example(text='int(absTime("2004-07-01T12:00:00"))')
@example(text='getHours(absTime("2004-07-01T12:00:00Z"))')
@example(text="string(splitTime(absTime(0)))")
def test_simplified_times_keep_their_value_in_every_zone(
    compile_zone: str, run_zone: str, text: str
) -> None:
    expr = parse(text)
    with in_zone(compile_zone):
        simpler = simplify(expr).expr
    with in_zone(run_zone):
        for x in ({}, {"x": 3}, {"x": RelTime(2.0)}, {"x": AbsTime(5, 0)}):
            before = evaluate(expr, x, now=1_700_000_000)
            after = evaluate(simpler, x, now=1_700_000_000)
            assert _same(after, before), (text, unparse(simpler), x, before, after)
