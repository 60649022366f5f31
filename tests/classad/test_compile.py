"""The compiled fast path agrees with the reference interpreter, value for value."""

from __future__ import annotations

import math

from hypothesis import given, settings

from compiler.classad import UNDEFINED, ClassAd, ast, parse, unparse
from compiler.classad.compile import compile_expr
from compiler.classad.evaluator import evaluate
from compiler.classad.values import type_name
from tests.budget import examples
from tests.classad.strategies import ads, policy_exprs

EXAMPLES = examples(200)  # test_compile_fast checks the same property on other inputs
NOW = 1_000_000_000


def _identical(a: object, b: object) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_identical(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_identical(a[k], b[k]) for k in a)
    if type_name(a) != type_name(b):
        return False
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return a is b if type_name(a) in ("undefined", "error") else a == b


@given(policy_exprs(), ads(), ads())
@settings(max_examples=EXAMPLES)
def test_compiled_matches_interpreter_on_two_ads(expr: ast.Expr, my: dict, target: dict) -> None:
    expected = evaluate(expr, my, target, now=NOW)
    got = compile_expr(expr)(my, target, now=NOW)
    assert _identical(got, expected), f"{unparse(expr)}: compiled {got!r}, interpreted {expected!r}"


@given(policy_exprs(), ads())
@settings(max_examples=EXAMPLES)
def test_compiled_matches_interpreter_on_classad_objects(expr: ast.Expr, my: dict) -> None:
    ad = ClassAd(my)
    expected = evaluate(expr, ad, None, now=NOW)
    assert _identical(compile_expr(expr)(ad, now=NOW), expected)


def test_constant_folding_keeps_semantics() -> None:
    for text in ["15 * 60", "1 / 0", "1.0 / 0", "undefined + 1", "true ? 1 : 1/0", "-(5)"]:
        assert _identical(compile_expr(text)(), evaluate(text))


def test_clock_is_injected() -> None:
    check = compile_expr("CurrentTime - time()")
    assert check(now=NOW) == 0
    assert compile_expr("CurrentTime")(now=NOW) == NOW
    assert compile_expr(parse("time()"))(now=lambda: 42) == 42


def test_reused_ad_pair_sees_changes_and_cycles_reset() -> None:
    machine = ClassAd({"a": parse("b + 1"), "b": parse("isUndefined(a)")})
    job = ClassAd({"Owner": "coltrane"})
    cycle = compile_expr("a * 10 + b")
    first = cycle(machine, job)
    assert first == cycle(machine, job) == evaluate("a * 10 + b", machine, job)
    machine["b"] = 5
    assert cycle(machine, job) == 65
    owner = compile_expr("Owner")
    assert owner(machine, job) == "coltrane"
    job["Owner"] = "tyner"
    assert owner(machine, job) == "tyner"
    assert owner(machine, ClassAd({"Owner": "jones"})) == "jones"


def test_attributes_named_like_scopes_win_over_the_scope() -> None:
    machine = {"MY": parse("[w = 8]"), "w": 3, "r": parse("[TARGET = [z = 1]; v = TARGET.z]")}
    job = {"z": 7, "TARGET": 5}
    for text in ["MY.w", "TARGET.z", "r.v", "[a = TARGET.z].a", "TARGET.TARGET"]:
        expected = evaluate(text, machine, job)
        assert _identical(compile_expr(text)(machine, job), expected), text
    assert evaluate("MY.w", machine, job) == 8 and evaluate("r.v", machine, job) == 1


def test_self_containing_list_converts_finitely() -> None:
    ad = {"U": parse("{U, [a = U]}")}
    assert evaluate("U", ad) == [UNDEFINED, {"a": UNDEFINED}]
    assert compile_expr("size(U)")(ad) == 2
