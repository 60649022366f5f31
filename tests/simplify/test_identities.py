"""The identities `X && ... && !X` (two-valued X) and `c ? X : X` (two-valued c):
simplified, and exactly as the HTCondor oracle evaluates the original.

Two-valued expressions are built from atoms whose truth value is always TRUE or FALSE
whatever the ads hold (`=?=`, `=!=`, `isUndefined`, `isError`), joined with `&&`, `||`,
`!`; the other operands are any guards (tests/simplify/helpers.py). Each case is
evaluated with random machine and job ads (UNDEFINED, ERROR, strings, lists ...).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.classad import ast as A
from compiler.classad import unparse
from compiler.simplify import simplify
from compiler.simplify.context import flatten
from tests.budget import examples
from tests.simplify.helpers import CONSTS, ads, guards, logic_over, oracle_eval, refs

EXAMPLES = examples(60)
CASES = 8


def _two_valued() -> st.SearchStrategy[A.Expr]:
    atom = st.one_of(
        st.builds(
            lambda op, r, k: A.Binary(op, r, k),
            st.sampled_from(["=?=", "=!="]),
            refs(),
            st.sampled_from(CONSTS),
        ),
        st.builds(lambda r: A.Call("isUndefined", (r,)), refs()),
        st.builds(lambda r: A.Call("isError", (r,)), refs()),
    )
    return logic_over(atom, max_leaves=4)


def _same_value(e: A.Expr, out: A.Expr, ads_: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    for my, target in ads_:
        assert oracle_eval(out, my, target) == oracle_eval(e, my, target), (
            unparse(e),
            unparse(out),
            my,
            target,
        )


def _pairs() -> st.SearchStrategy[list[tuple[dict[str, Any], dict[str, Any]]]]:
    return st.lists(st.tuples(ads(), ads()), min_size=CASES, max_size=CASES)


@settings(max_examples=EXAMPLES)
@given(
    _two_valued(),
    st.lists(guards(), max_size=3),
    st.sampled_from(["&&", "||"]),
    st.booleans(),
    _pairs(),
)
def test_complement_of_a_two_valued_operand(
    x: A.Expr, between: list[A.Expr], op: str, negated_first: bool, cases: Any
) -> None:
    first, later = (A.Unary("!", x), x) if negated_first else (x, A.Unary("!", x))
    items = [first, *between, later]
    e = items[0]
    for item in items[1:]:
        e = A.Binary(op, e, item)
    out = simplify(e).expr
    _same_value(e, out, cases)
    # The (last piece of the) negation became the chain's literal, or the whole chain one.
    forced = A.Boolean(op == "||")
    assert isinstance(out, A.Boolean) or forced in flatten(out, op), (unparse(e), unparse(out))


@settings(max_examples=EXAMPLES)
@given(_two_valued(), guards(), st.booleans(), _pairs())
def test_conditional_with_equal_branches(c: A.Expr, x: A.Expr, as_call: bool, cases: Any) -> None:
    e: A.Expr = A.Call("ifThenElse", (c, x, x)) if as_call else A.Conditional(c, x, x)
    out = simplify(e).expr
    _same_value(e, out, cases)
    assert out == simplify(x).expr, (unparse(e), unparse(out))


@settings(max_examples=EXAMPLES)
@given(guards(), guards(), st.booleans(), _pairs())
def test_conditional_with_equal_branches_any_condition_is_sound(
    c: A.Expr, x: A.Expr, as_call: bool, cases: Any
) -> None:
    """Whatever c is (UNDEFINED, ERROR, a string ...), what comes out is still equal."""
    e: A.Expr = A.Call("ifThenElse", (c, x, x)) if as_call else A.Conditional(c, x, x)
    _same_value(e, simplify(e).expr, cases)
