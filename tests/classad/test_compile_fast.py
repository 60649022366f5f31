"""The fast paths of compile.py: generated functions for hot expressions, and plain
dicts read in place, agree with the reference interpreter (and with classad2).

A `CompiledExpr` runs its closures for its first calls and a generated function after
that (`compile._WARM_CALLS`); attribute expressions stored in ads switch the same way.
So every check here calls the compiled expression often enough to reach the generated
code, and checks again after the ads changed.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, reject, settings
from hypothesis import strategies as st

from compiler.classad import ClassAd, ast, parse, unparse
from compiler.classad import compile as compile_module
from compiler.classad.compile import compile_expr, generated
from compiler.classad.evaluator import evaluate
from tests.budget import examples
from tests.classad.oracle_support import NoOracleAnswer, oracle_eval, same
from tests.classad.strategies import VOCAB, policy_exprs, typed_exprs
from tests.classad.test_compile import _identical

EXAMPLES = examples(150)
NOW = 1_000_000_000
WARM = compile_module._WARM_CALLS + 1


def _spellings(name: str) -> st.SearchStrategy[str]:
    """`name` as written, lower case, upper case, or with its case flipped at random."""
    flips = st.lists(st.booleans(), min_size=len(name), max_size=len(name))
    mixed = flips.map(
        lambda f: "".join(c.swapcase() if x else c for c, x in zip(name, f, strict=True))
    )
    return st.one_of(st.just(name), st.just(name.lower()), st.just(name.upper()), mixed)


_python_values = st.one_of(
    st.integers(-5, 2000),
    st.sampled_from([2**63 - 1, -(2**63), 2**62]),
    st.floats(-1e6, 1e6, allow_nan=False),
    st.booleans(),
    st.sampled_from(["", "coltrane", "Coltrane", "COLTRANE", "Suspended", "suspended", "é"]),
)
_values = st.one_of(_python_values, policy_exprs(max_leaves=5))


@st.composite
def plain_ads(draw: st.DrawFn, duplicates: bool = False) -> dict[str, object]:
    """A plain dict: VOCAB names in any case spelling, values Python values or
    expressions; with `duplicates`, some names held under two spellings."""
    names = draw(st.lists(st.sampled_from(VOCAB), unique=True, max_size=len(VOCAB)))
    ad: dict[str, object] = {}
    for name in names:
        ad[draw(_spellings(name))] = draw(_values)
        if duplicates and draw(st.booleans()):
            ad[draw(_spellings(name))] = draw(_values)
    return ad


def _warm_value(expr: ast.Expr, my: object, target: object) -> object:
    compiled = compile_expr(expr)
    value = None
    for _ in range(WARM):
        value = compiled(my, target, now=NOW)
    return value


def _check_warm(expr: ast.Expr, my: object, target: object) -> None:
    """After the warm-up calls (the generated function by then) the compiled expression
    gives exactly what the interpreter gives."""
    expected = evaluate(expr, my, target, now=NOW)
    got = _warm_value(expr, my, target)
    assert _identical(got, expected), (
        f"{unparse(expr)}: generated {got!r}, interpreted {expected!r}"
    )


@given(policy_exprs(), plain_ads(), plain_ads())
@settings(max_examples=EXAMPLES)
@example(
    parse('KeyboardIdle > 15 * 60 && TARGET.Owner == "coltrane"'),
    {"keyboardidle": 901},
    {"OWNER": "Coltrane"},
)
def test_generated_matches_interpreter_on_plain_dicts(
    expr: ast.Expr, my: dict, target: dict
) -> None:
    _check_warm(expr, my, target)


@given(policy_exprs(), plain_ads(duplicates=True), plain_ads(duplicates=True))
@settings(max_examples=EXAMPLES)
def test_generated_matches_interpreter_on_dicts_with_several_spellings(
    expr: ast.Expr, my: dict, target: dict
) -> None:
    _check_warm(expr, my, target)


@given(policy_exprs(), plain_ads(), plain_ads())
@settings(max_examples=EXAMPLES)
def test_generated_matches_interpreter_on_classad_objects(
    expr: ast.Expr, my: dict, target: dict
) -> None:
    _check_warm(expr, ClassAd(my), ClassAd(target))


@given(typed_exprs(), plain_ads(), plain_ads())
@settings(max_examples=EXAMPLES)
def test_generated_function_itself_matches_interpreter(
    expr: ast.Expr, my: dict, target: dict
) -> None:
    # the generated function straight away, not only after the warm-up calls
    expected = evaluate(expr, my, target, now=NOW)
    got = compile_expr(expr)(my, target, now=NOW)
    assert _identical(got, expected)
    compiled = compile_expr(expr)
    compiled.fn, compiled.calls = generated(expr), -1
    assert _identical(compiled(my, target, now=NOW), expected), unparse(expr)


def test_plain_dict_changes_are_seen_between_calls() -> None:
    machine = {"KeyboardIdle": 10, "Activity": "Busy", "SUSPEND": parse("KeyboardIdle < 60")}
    job = {"ImageSize": 100}
    preempt = compile_expr('(Activity == "Suspended") || (SUSPEND && TARGET.ImageSize > 50)')
    assert [preempt(machine, job) for _ in range(WARM)] == [True] * WARM
    machine["KeyboardIdle"] = 600  # a value changes
    assert preempt(machine, job) is False
    machine["Activity"] = "suspended"  # a string differing only in case
    assert preempt(machine, job) is True
    del machine["Activity"]  # a key goes away: UNDEFINED || false
    machine["KeyboardIdle"] = 0
    job["imagesize"] = job.pop("ImageSize")  # a key changes its spelling only
    assert preempt(machine, job) == evaluate(preempt.expr, machine, job) is True
    machine["keyboardidle"] = 900  # a second spelling: the exact one wins
    assert preempt(machine, job) == evaluate(preempt.expr, machine, job)
    assert compile_expr("keyboardidle")(machine, job) == 900
    assert compile_expr("KEYBOARDIDLE")(machine, job) == 900  # otherwise the last one


def test_scope_words_held_as_attributes_in_plain_dicts() -> None:
    machine = {"tArGeT": parse("[z = 1]"), "w": 3}
    job = {"z": 7}
    for _ in range(WARM):
        assert compile_expr("TARGET.z")(machine, job) == evaluate("TARGET.z", machine, job) == 1
    del machine["tArGeT"]
    assert compile_expr("TARGET.z")(machine, job) == 7
    # A key renamed to a scope word between calls, the dict's size unchanged.
    del machine["w"]
    machine["Target"] = parse("[z = 2]")
    assert compile_expr("TARGET.z")(machine, job) == evaluate("TARGET.z", machine, job) == 2


def test_reordered_spellings_read_the_last_one_as_classad2() -> None:
    ad = {"A": 1, "b": 0, "a": 2}
    read = compile_expr("A + 0")
    for _ in range(WARM):
        assert read(ad, None) == evaluate("A + 0", ad) == 1  # the exact spelling first
    ad = {"a": 2, "b": 0}
    ad["A"] = 1
    ad.pop("b")
    ad["b"] = 0
    both = compile_expr("(b + 1) * 10 + (a + 0)")
    for _ in range(WARM):
        assert both(ad, None) == evaluate("(b + 1) * 10 + (a + 0)", ad)


def test_cycles_through_generated_attribute_expressions() -> None:
    ad = {"a": parse("b + 1"), "b": parse("isUndefined(a) ? 10 : a")}
    for _ in range(WARM):
        assert compile_expr("a * 100 + b")(ad, {}) == evaluate("a * 100 + b", ad, {})


def test_deep_expressions_fall_back_to_closures() -> None:
    text = " && ".join(f"(x{i} > {i} || y{i})" for i in range(300))
    nested = "(" * 120 + "x" + " + 1)" * 120
    chain = "x" + " - 1" * 400  # left-nested: deep tree, no indentation
    ad = {f"x{i}": i + 1 for i in range(300)} | {"x": 1}
    for t in (text, nested, chain):
        compiled = compile_expr(t)
        values = [compiled(ad) for _ in range(WARM)]
        assert values == [evaluate(t, ad)] * WARM


# ---- against the wheel: plain dicts through the compiled path -------------------------


@pytest.mark.oracle
@given(policy_exprs(), plain_ads(), plain_ads())
@settings(max_examples=examples(100))
def test_compiled_plain_dicts_against_classad2(expr: ast.Expr, my: dict, target: dict) -> None:
    try:
        theirs = oracle_eval(expr, my, target)
    except NoOracleAnswer:
        reject()
    compiled = compile_expr(expr)
    for _ in range(WARM):
        ours = compiled(my, target)
        assert same(ours, theirs), f"{unparse(expr)!r}: ours {ours!r}, oracle {theirs!r}"


def test_alternating_pairs_and_threads_see_their_own_ads() -> None:
    import threading

    start = compile_expr("KeyboardIdle > 15 * 60 && TARGET.Owner == MY.Owner")
    pairs = [
        ({"KeyboardIdle": 901, "Owner": "tyner"}, {"Owner": "Tyner"}),
        (ClassAd({"KeyboardIdle": 901, "Owner": "tyner"}), ClassAd({"Owner": "jones"})),
        ({"keyboardidle": 10, "owner": "x"}, {"OWNER": "x"}),
    ]
    expected = [evaluate(start.expr, my, target) for my, target in pairs]
    assert expected == [True, False, False]
    for _ in range(WARM):
        assert [start(my, target) for my, target in pairs] == expected
    seen: list[object] = []
    worker = threading.Thread(target=lambda: seen.extend(start(m, t) for m, t in pairs))
    worker.start()
    worker.join()
    assert seen == expected


def test_reused_runtimes_keep_each_calls_clock() -> None:
    from compiler.classad.evaluator import function_context

    clock = compile_expr("time() + 0")
    ticks = iter(range(100, 200))
    assert [clock(now=t) for t in (5, 5, 6, 5.9, 7)] == [5, 5, 6, 5, 7]

    def tick() -> int:
        return next(ticks)

    assert [clock(now=tick) for _ in range(3)] == [100, 101, 102]  # one clock, read each call
    a, b = function_context(11), function_context(12)
    assert [clock(ctx=c) for c in (a, a, b, a)] == [11, 11, 12, 11]


@pytest.mark.parametrize("kind", [dict, ClassAd])
def test_released_pairs_leave_no_cycle_and_are_not_used_again(kind: type) -> None:
    """`release_retired` unlinks the MY and TARGET scopes of the pairs the per-thread
    cache dropped: with the cyclic collector off, evaluating many pairs and releasing
    leaves no more new scopes alive than the cache holds. An expression that kept the
    scopes of a released pair (`CompiledExpr.last`) reads TARGET again through new ones,
    not the unlinked ones (which would give UNDEFINED)."""
    import gc

    from compiler.classad import release_retired
    from compiler.classad import scope as scope_module

    rank = compile_expr("TARGET.Memory - MY.Memory")
    first = (kind({"Memory": 1}), kind({"Memory": 10}))
    assert rank(*first) == 9  # `rank` keeps these scopes
    release_retired()
    gc.collect()
    gc.disable()
    try:
        before = sum(1 for o in gc.get_objects() if type(o) is scope_module.Scope)
        ads = [(kind({"Memory": i}), kind({"Memory": 2 * i})) for i in range(4 * 256)]
        for my, target in ads:
            assert compile_expr("TARGET.Memory - Memory")(my, target) == my["Memory"]
        release_retired()
        del my, target, ads
        alive = sum(1 for o in gc.get_objects() if type(o) is scope_module.Scope) - before
        assert rank(*first) == 9  # its scopes were dropped and released: made again
    finally:
        gc.enable()
    assert alive <= 2 * scope_module._PAIR_CACHE_SIZE + 8


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("10 * 60", 600),
        ('"a" + 1', "ERROR"),
        ("undefined", "UNDEFINED"),
        ("-(2 + 3.5) * 2", -11.0),
        ("true && false", False),
    ],
)
def test_a_constant_is_given_without_making_the_scopes_of_its_ads(
    text: str, expected: object
) -> None:
    """An expression that reads nothing (a literal, operators folded) gives the value the
    interpreter gives, in any pair of ads, and makes no scopes for them: a slot's
    MaxJobRetirementTime of 0 was evaluated against the job in every new slot ad."""
    expr = parse(text)
    compiled = compile_expr(expr)
    pairs = compile_module.pair_entry.__globals__["_pair_cache"].pairs
    ads: list[tuple[Any, Any]] = [
        ({}, None), (ClassAd({"A": 1}), ClassAd({"B": 2})), ({"x": 1}, {})
    ]  # fmt: skip
    for my, target in ads:
        # (in copies: the pair the compiled expression is called with is new to it)
        interpreted = evaluate(expr, my.copy(), None if target is None else target.copy(), now=NOW)
        before = dict(pairs)
        got = compiled(my, target, now=NOW)
        assert _identical(got, interpreted), text
        assert str(got) == str(expected) if isinstance(expected, str) else got == expected
        assert pairs == before, f"{text}: scopes made for a constant"
