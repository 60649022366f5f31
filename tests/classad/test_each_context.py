"""`evalInEachContext`, `countMatches` and selection from subscripted nested ads,
against HTCondor.

The functions are HTCondor's (src/condor_utils/compat_classad.cpp,
`evalInEachContext_func` and `evaluateInContext`); the first argument, when it is an
attribute reference, is looked up first (src/classad/attrrefs.cpp,
`AttributeReference::Deref`), and that look-up moves the evaluation state the second
argument is then read in. `ad["name"]` hands out a detached copy of a nested ad
(src/classad/operators.cpp, SUBSCRIPT_OP; value.cpp, `Value::SafetyCheck`), from which
selection answers UNDEFINED. Every case is compared with the wheel (interpreter and
compiled closures both); a few facts are also written down as HTCondor gives them.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, reject, settings
from hypothesis import strategies as st

from compiler.classad import ERROR, UNDEFINED, ast, parse, unparse
from compiler.classad.compile import compile_expr
from compiler.classad.evaluator import evaluate
from tests.budget import examples
from tests.classad.oracle_support import NoOracleAnswer, oracle_eval, same
from tests.classad.test_compile import _identical

pytestmark = pytest.mark.oracle

EXAMPLES = examples(100)


def _ad(text: str | None) -> dict[str, ast.Expr] | None:
    if text is None:
        return None
    node = parse(text)
    assert isinstance(node, ast.RecordExpr)
    return dict(node.attrs)


def _check(expr: ast.Expr | str, my: dict | None, target: dict | None) -> None:
    node = parse(expr) if isinstance(expr, str) else expr
    try:
        theirs = oracle_eval(node, my, target)
    except NoOracleAnswer:
        reject()  # HTCondor crashes on this input (see oracle_support)
    ours = evaluate(node, my, target, now=0)
    run = compile_expr(node)
    compiled = run(my, target, now=0) if my is not None else run(now=0)
    text = unparse(node)
    assert same(ours, theirs), f"{text!r}: ours {ours!r}, oracle {theirs!r}"
    assert same(compiled, theirs), f"{text!r}: compiled {compiled!r}, oracle {theirs!r}"


# ---- hand-picked cases: (expression, MY, TARGET) ------------------------------------

GPUS = '[AvailableGPUs = {GPUs_1, GPUs_2}; GPUs_1 = [Capability = 4.0; Name = "GRX"]; '
GPUS += 'GPUs_2 = [Capability = 5.5; Name = "Tesla"]]'
JOB = "[RequireGPUs = Capability > 4; RequestGPUs = 1]"
TIMES = "[access_times = [globus = [start = 1; end = 2]; local = {[start = 3]}]; start = 9]"

CASES: list[tuple[str, str | None, str | None]] = [
    # the GPU matchmaking idiom the functions exist for (compat_classad.cpp comments)
    ("countMatches(RequireGPUs, AvailableGPUs)", JOB, GPUS),
    ("countMatches(RequireGPUs, AvailableGPUs) >= RequestGPUs", JOB, GPUS),
    ("evalInEachContext(Name, AvailableGPUs)", GPUS, None),
    ("evalInEachContext(Capability * 2, AvailableGPUs)", GPUS, None),
    ("max(evalInEachContext(Capability, AvailableGPUs))", GPUS, None),
    ('join(",", evalInEachContext(strcat("GPU-", Name), AvailableGPUs))', GPUS, None),
    ("evalInEachContext(RequireGPUs, TARGET.AvailableGPUs)", JOB, GPUS),
    ("evalInEachContext(TARGET.RequireGPUs, AvailableGPUs)", GPUS, JOB),
    # values, elements that are not ads, UNDEFINED/ERROR, nested lists
    ("evalInEachContext(a, {[a=1],[a=2]})", None, None),
    ('evalInEachContext(a, {[a=1], 2, undefined, error, "s", {[a=3]}, [b=1]})', None, None),
    ('countMatches(x, {[x=1], [x=0], [x=0.5], [x="true"], [x={1}], [x=undefined]})', None, None),
    ('countMatches(x, {[x=error], [x=real("nan")], [x=-1], [x=true], 7})', None, None),
    ("evalInEachContext(a, undefined)", None, None),
    ("countMatches(a, undefined)", None, None),
    ("evalInEachContext(a, error)", None, None),
    ("countMatches(a, [a=1])", None, None),
    ("evalInEachContext(a, {})", None, None),
    ("countMatches(a, {})", None, None),
    ("evalInEachContext(a)", None, None),
    ("countMatches(a, {}, 1)", None, None),
    ("evalInEachContext(a, X)", "[Y = 1]", None),
    ("countMatches(a, X)", "[Y = 1]", None),
    ("evalInEachContext(a, {[a={1,2}], [a=[b=1]]})", None, None),
    ("evalInEachContext(a, {{[a=1]}})", None, None),
    ("evalInEachContext(a, {L, M})", "[L = [a = 4]]", None),
    ("COUNTMATCHES(a, {[a=true]}) + EvalInEachContext(1, {[b=1]})[0]", None, None),
    ("evalInEachContext(evalInEachContext(a, {[a=1],[a=2]}), {[a=1],[a=2]})", None, None),
    # which scope: the found expression in each ad, MY is that ad, its parent and TARGET
    ("evalInEachContext(r, {[a=1],[a=2]})", "[r = a * 10]", None),
    ("evalInEachContext(a, {[a=1]})", "[a = 5]", None),
    ("evalInEachContext(a, {[a=1; b=3]})", "[a = b; b = 9]", None),
    ("evalInEachContext(b + 0, {[a=1]})", "[b = 5]", None),
    ("evalInEachContext(MY, {[a=1]})", "[q = 1]", None),
    ("evalInEachContext(self, {[a=1]})", "[q = 1]", None),
    ("evalInEachContext(parent, {[a=1]})", "[q = 1]", None),
    ("evalInEachContext(MY.a + 0, {[a=1]})", "[a = 5]", "[z = 7]"),
    ("evalInEachContext(MY.q + 0, {[a=1]})", "[q = 5]", "[z = 7]"),
    ("evalInEachContext(.q, {[a=1]})", "[q = 1]", None),
    ("evalInEachContext(.a, {[a=1]})", "[q = 1]", None),
    ("evalInEachContext(t + 0, {[a=1]})", "[q = 1]", "[t = 7]"),
    ("evalInEachContext(a, {[a=t]})", "[q = 1]", "[t = 7]"),
    ("evalInEachContext(TARGET.a, {[c=2]})", "[q = 1]", "[a = c; c = 4]"),
    ("evalInEachContext(TARGET.z + 0, TARGET.L)", "[z = 11]", "[L = {[a=1]}; z = 3]"),
    ("evalInEachContext(k + 0, TARGET.L)", "[k = 11]", "[L = {[a=1], [a=z]}; z = 3]"),
    ("evalInEachContext(x.b, {[c=2]})", "[x = [b = c; c = 1]]", None),
    ("evalInEachContext(x.b, {[b=1]})", "[x = [c = 2]]", None),
    ("evalInEachContext(x.b, L)", "[x = 3; L = {[a=1]}]", None),
    # the look-up of the first argument moves the scope the second is read in
    ("evalInEachContext(x.b, L)", "[x = [b = a; L = {[a=3]}]; L = {[a=1]}]", None),
    ("evalInEachContext(x.c, L)", "[x = [b = a; L = {[a=3]}]; L = {[a=1]}]", None),
    ("evalInEachContext(zz, L)", "[L = {[a=1]}]", None),
    ("evalInEachContext(zz, L)", "[L = {[a=1]}]", "[t = 1]"),
    ("countMatches(zz, L)", "[L = {[a=1]}]", "[t = 1]"),
    ("evalInEachContext(zz, L)", "[L = {[a=1]}]", "[zz = a + 1]"),
    ("evalInEachContext(MY.zz, L)", "[L = {[a=1]}]", "[t = 1]"),
    ("evalInEachContext(TARGET.t, L)", "[L = {[a=1]}]", "[t = 1]"),
    ("evalInEachContext(TARGET.t, MY.L)", "[L = {[a=1]}]", "[t = 1]"),
    ("evalInEachContext(q, L)", "[q = a; L = {[a=1]}]", "[t = 1; L = {[a = 2]}]"),
    ("evalInEachContext(.y, L)", "[L = {[a=1]}]", "[t = 1]"),
    ("x.z", "[L = {[a=1]}; x = [y = 2; L = {[a = 3]}; z = evalInEachContext(y, L)]]", None),
    ("evalInEachContext(r, {[r = 1]})", "[r = evalInEachContext(r, {[a=1]})]", None),
    # `parent` of a top-level ad in a match is HTCondor's context ad; without ads, none
    ("evalInEachContext(self, parent)", "[q = 1]", "[t = 1]"),
    ("parent", "[q = 1]", "[t = 1]"),
    ("size(parent) + size(TARGET.parent)", "[q = 1]", "[t = 1]"),
    ("parent.q", "[q = 1]", "[t = 1]"),
    ("[a = parent].a", None, None),
    ("evalInEachContext(parent, {[a=1]})", None, None),
    ("evalInEachContext(parent, {[a=1]})", "[q = 1]", None),
    ("evalInEachContext(target, {[a=1]})", "[q = 1]", None),
    ("evalInEachContext(MY, L)", "[q = 1; L = {[a=1]}]", None),
    ("x.z", "[q = 1; x = [z = evalInEachContext(MY, {[a=1]})]]", None),
    # a failed look-up of the first argument leaves the state in the match ad (an ad)
    ("evalInEachContext(a, self)", "[q = 1]", "[t = 1]"),
    ("evalInEachContext(a, MY)", "[q = 1]", "[t = 1]"),
    ("evalInEachContext(G.b, {})", "[G = {G.b}]", None),
    # results are copies: selecting from an ad in them is UNDEFINED
    ("evalInEachContext(a, {[a=[b=y]; y = 2]})[0].b", None, None),
    ("size(evalInEachContext(a, {[a=1]}))", None, None),
    # selection from subscripted nested ads (issue 11)
    ('access_times["globus"].start', TIMES, None),
    ('access_times["globus"]["start"]', TIMES, None),
    ('access_times["globus"]', TIMES, None),
    ("access_times.globus.start", TIMES, None),
    ('access_times["local"][0].start', TIMES, None),
    ("access_times.local[0].start", TIMES, None),
    ('(access_times["globus"]).start', TIMES, "[start = 43]"),
    ('{access_times["globus"]}.start', TIMES, None),
    ('ifThenElse(true, access_times["globus"], 0).start', TIMES, None),
    ("[a = [x = 1]].a.x", None, None),
    ('[a = [x = 1]]["a"].x', None, None),
    ('[a = [x = 1]]["a"]["x"]', None, None),
    ('[a = 1]["a"].x', None, None),
    ("{[b=1],[b=2]}[1].b", None, None),
    ("{[b=1],[b=2]}[1].c", "[c = 9]", None),
    ('{[b=1],[b=2]}[1]["b"]', None, None),
    ("{[b=1],[b=2]}.b", None, None),
    ("{[b=1],{[b=2],[b=3]}}.b", None, None),
    ("[a = {[x=1],[x=2]}].a[0].x", None, None),
    ("L[0].x", "[L = {[x = y; y = 9]}; y = 4]", None),
    ("{[x = y]}[0].x", "[y = 4]", None),
    ('x["g"]["s"]', "[x = [g = [s = y]]; y = 5]", None),
    ('x["g"]["s"]', "[x = [g = [s = y; y = 3]; y = 4]; y = 5]", None),
    ('x["l"][0]', "[x = [l = {y}; y = 4]; y = 5]", None),
    ('x["y"]', "[x = [y = TARGET.z]]", "[z = 3]"),
    ('x["y"]', "[x = [y = z]]", "[z = 3]"),
    ('x["y"]', "[x = [y = parent.z]; z = 3]", None),
    # `ad["name"]` evaluates the attribute without marking it in progress
    ('self["x"]', "[x = isUndefined(x)]", None),
    ('MY["x"]', "[x = isUndefined(x)]", None),
    ('[x = isUndefined(y); y = x]["x"]', None, None),
    ('[x = isUndefined(y); y = x]["y"]', None, None),
    ('self["x"]', "[x = countMatches([], x.b)]", None),
    ('evalInEachContext(x["q"].a, {[a=1]})', "[x = [q = [a = 2]]]", None),
    # selection mapped over a list copies the ads it finds, without their parents
    ("G.b.a", "[a = []; b = []; G = {[]}]", None),
    ("{[b = [x = 1]]}.b.x", None, None),
    ("{[b = [x = y]]}.b.x", "[y = 3]", None),
    ("{[b = [x = y; y = 2]]}.b.x", "[y = 3]", None),
    ("{[b = [x = TARGET.y]]}.b.x", "[y = 3]", "[y = 4]"),
    ("evalInEachContext(x, L.b)", "[L = {[b = c]}; c = [x = z]; z = 1]", None),
]


@pytest.mark.parametrize(("text", "my", "target"), CASES)
def test_hand_picked_cases_agree_with_htcondor(
    text: str, my: str | None, target: str | None
) -> None:
    node = parse(text)
    theirs = oracle_eval(node, _ad(my), _ad(target))
    ours = evaluate(node, _ad(my), _ad(target), now=0)
    assert same(ours, theirs), f"{text!r}: ours {ours!r}, oracle {theirs!r}"
    run = compile_expr(node)
    compiled = run(_ad(my), _ad(target), now=0) if my is not None else run(now=0)
    assert same(compiled, theirs), f"{text!r}: compiled {compiled!r}, oracle {theirs!r}"


# Written down as HTCondor 25.14.1 answers them (the wheel, and the countMatches unit
# tests in src/condor_unit_tests/OTEST_Old_Classads.cpp for the GPU idiom).
FACTS: list[tuple[str, str | None, str | None, Any]] = [
    ("countMatches(RequireGPUs, AvailableGPUs)", JOB, GPUS, 1),
    ("evalInEachContext(Capability, AvailableGPUs)", GPUS, None, [4.0, 5.5]),
    ("countMatches(a, undefined)", None, None, 0),
    ("evalInEachContext(a, undefined)", None, None, UNDEFINED),
    ("evalInEachContext(a, {[a=1], 2, undefined})", None, None, [1, ERROR, UNDEFINED]),
    ("evalInEachContext(zz, L)", "[L = {[a=1]}]", "[t = 1]", UNDEFINED),
    ('access_times["globus"].start', TIMES, None, UNDEFINED),
    ('access_times["globus"]["start"]', TIMES, None, 1),
    ("{[b=1],[b=2]}[1].b", None, None, 2),
]


@pytest.mark.parametrize(("text", "my", "target", "expected"), FACTS)
def test_facts(text: str, my: str | None, target: str | None, expected: Any) -> None:
    assert same(evaluate(text, _ad(my), _ad(target)), expected)
    assert same(compile_expr(text)(_ad(my), _ad(target)), expected)


# ---- generated cases ------------------------------------------------------------------

_NAMES = ["a", "b", "q", "L", "G", "x", "zz"]
_leaf_values = st.one_of(
    st.builds(ast.Integer, st.integers(-1, 3)),
    st.builds(ast.Boolean, st.booleans()),
    st.just(ast.UndefinedLit()),
    st.builds(ast.String, st.sampled_from(["", "s"])),
)
_refs = st.one_of(
    st.builds(ast.AttrRef, st.sampled_from(_NAMES)),
    st.builds(ast.AttrRef, st.sampled_from(_NAMES), st.sampled_from(["MY", "TARGET", ast.ROOT])),
    st.builds(ast.AttrRef, st.sampled_from(["self", "parent", "MY"])),
    st.builds(ast.Select, st.builds(ast.AttrRef, st.sampled_from(["x", "G"])), st.just("b")),
)


def _small(children: st.SearchStrategy[ast.Expr]) -> st.SearchStrategy[ast.Expr]:
    return st.one_of(
        st.builds(ast.Binary, st.sampled_from(["+", ">", "&&", "=="]), children, children),
        st.builds(
            ast.RecordExpr,
            st.lists(st.tuples(st.sampled_from(["a", "b", "q", "L"]), children), max_size=3).map(
                tuple
            ),
        ),
        st.builds(ast.ListExpr, st.lists(children, max_size=3).map(tuple)),
        st.builds(ast.Subscript, children, st.builds(ast.Integer, st.integers(0, 1))),
        st.builds(ast.Subscript, children, st.builds(ast.String, st.sampled_from(["a", "b"]))),
        st.builds(ast.Select, children, st.sampled_from(["a", "b"])),
        st.builds(
            ast.Call,
            st.sampled_from(["evalInEachContext", "countMatches"]),
            st.tuples(children, children),
        ),
    )


_exprs = st.recursive(st.one_of(_leaf_values, _refs), _small, max_leaves=8)
_records = st.builds(
    ast.RecordExpr,
    st.lists(st.tuples(st.sampled_from(["a", "b", "q"]), _exprs), max_size=3).map(tuple),
)
_lists = st.builds(ast.ListExpr, st.lists(st.one_of(_records, _exprs), max_size=3).map(tuple))
_ads = st.dictionaries(st.sampled_from(_NAMES), st.one_of(_exprs, _records, _lists), max_size=5)
_second = st.one_of(_lists, _refs, st.just(ast.UndefinedLit()), _records, _exprs)
_calls = st.builds(
    ast.Call,
    st.sampled_from(["evalInEachContext", "countMatches"]),
    st.tuples(st.one_of(_refs, _exprs), _second),
)


@given(_calls, _ads)
@settings(max_examples=EXAMPLES)
@example(parse("evalInEachContext(x.b, L)"), _ad("[x = [b = a; L = {[a=3]}]; L = {[a=1]}]"))
@example(parse("evalInEachContext(G.b, {})"), _ad("[G = {G.b}]"))
def test_generated_calls_against_one_ad(expr: ast.Expr, my: dict) -> None:
    _check(expr, my, None)


@given(_calls, _ads, _ads)
@settings(max_examples=EXAMPLES)
@example(parse("evalInEachContext(zz, L)"), _ad("[L = {[a=1]}]"), _ad("[t = 1]"))
@example(parse("evalInEachContext(a, self)"), {}, {})
@example(parse("evalInEachContext(self, parent)"), {}, {})
def test_generated_calls_against_two_ads(expr: ast.Expr, my: dict, target: dict) -> None:
    _check(expr, my, target)


_chains = st.recursive(
    st.one_of(_refs, _records, _lists),
    lambda inner: st.one_of(
        st.builds(ast.Subscript, inner, st.builds(ast.String, st.sampled_from(["a", "b", "x"]))),
        st.builds(ast.Subscript, inner, st.builds(ast.Integer, st.integers(0, 1))),
        st.builds(ast.Select, inner, st.sampled_from(["a", "b", "q"])),
    ),
    max_leaves=4,
)


@given(_chains, _ads)
@settings(max_examples=EXAMPLES)
@example(parse('access_times["globus"].start'), _ad(TIMES))
@example(parse('self["x"]'), _ad("[a = []; b = []; x = countMatches([], x.b)]"))
@example(parse("G.b.a"), _ad("[a = []; b = []; G = {[]}]"))
def test_generated_selection_and_subscript_chains(expr: ast.Expr, my: dict) -> None:
    _check(expr, my, None)


@given(st.one_of(_calls, _chains), _ads, st.one_of(st.none(), _ads))
@settings(max_examples=EXAMPLES)
def test_compiled_matches_interpreter(expr: ast.Expr, my: dict, target: dict | None) -> None:
    """No oracle needed: the compiled closures (compile.py) and the interpreter agree."""
    expected = evaluate(expr, my, target, now=0)
    got = compile_expr(expr)(my, target, now=0)
    assert _identical(got, expected), f"{unparse(expr)}: compiled {got!r}, interpreted {expected!r}"
