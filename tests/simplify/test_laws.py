"""The facts the simplifier's laws rest on, checked exhaustively against the oracle.

* threevl's `&&`/`||`/`!` tables equal HTCondor's on every pair of operand kinds;
* `&&`/`||` are associative, De Morgan holds, double negation gives the truth value (not
  the value), and commutativity fails exactly where ERROR meets the absorbing value;
* threevl.compare equals HTCondor's comparison operators on a grid of values.
"""

from __future__ import annotations

import itertools
import math

import pytest

from compiler.classad import ast as A
from compiler.classad import parse
from compiler.classad.values import ERROR, UNDEFINED
from compiler.simplify.threevl import AND_TABLE, NOT_TABLE, OR_TABLE, compare, tv_of_value
from tests.simplify.helpers import normalise, oracle_eval

# One literal per truth value, plus non-boolean operands that map to them.
OPERANDS = {
    "true": "T", "false": "F", "undefined": "U", "error": "E",
    "5": "T", "0": "F", "2.5": "T", "0.0": "F", '"s"': "E", "{1}": "E",
}  # fmt: skip
TV_LIT = {"T": "true", "F": "false", "U": "undefined", "E": "error"}


def _oracle(text: str) -> object:
    return oracle_eval(parse(text), {}, {})


def _tv_norm(t: str) -> object:
    return normalise({"T": True, "F": False, "U": UNDEFINED, "E": ERROR}[t])


@pytest.mark.parametrize(("a", "b"), list(itertools.product(OPERANDS, OPERANDS)))
def test_and_or_tables_match_the_oracle(a: str, b: str) -> None:
    assert _oracle(f"{a} && {b}") == _tv_norm(AND_TABLE[(OPERANDS[a], OPERANDS[b])])
    assert _oracle(f"{a} || {b}") == _tv_norm(OR_TABLE[(OPERANDS[a], OPERANDS[b])])


@pytest.mark.parametrize("a", OPERANDS)
def test_not_table_matches_the_oracle(a: str) -> None:
    assert _oracle(f"!{a}") == _tv_norm(NOT_TABLE[OPERANDS[a]])


TVS = "TFUE"


@pytest.mark.parametrize(("x", "y", "z"), list(itertools.product(TVS, repeat=3)))
def test_associativity(x: str, y: str, z: str) -> None:
    for table in (AND_TABLE, OR_TABLE):
        assert table[(table[(x, y)], z)] == table[(x, table[(y, z)])]
    a, b, c = TV_LIT[x], TV_LIT[y], TV_LIT[z]
    assert _oracle(f"({a} && {b}) && {c}") == _oracle(f"{a} && ({b} && {c})")


@pytest.mark.parametrize(("x", "y"), list(itertools.product(OPERANDS, OPERANDS)))
def test_de_morgan_and_double_negation(x: str, y: str) -> None:
    assert _oracle(f"!({x} && {y})") == _oracle(f"!{x} || !{y}")
    assert _oracle(f"!({x} || {y})") == _oracle(f"!{x} && !{y}")
    assert _oracle(f"!!{x}") == _tv_norm(OPERANDS[x])


def test_commutativity_fails_only_between_error_and_the_absorbing_value() -> None:
    for x, y in itertools.product(TVS, repeat=2):
        same_and = AND_TABLE[(x, y)] == AND_TABLE[(y, x)]
        same_or = OR_TABLE[(x, y)] == OR_TABLE[(y, x)]
        assert same_and == ({x, y} != {"E", "F"})
        assert same_or == ({x, y} != {"E", "T"})


VALUES = [
    True, False, 0, 1, 5, -3, 0.0, 2.5, 5.0, math.nan, math.inf, -math.inf,
    "abc", "ABC", "abd", "é", "É", UNDEFINED, ERROR, [1], [1, 2],
]  # fmt: skip
OPS = ["==", "!=", "<", "<=", ">", ">=", "=?=", "=!="]


@pytest.mark.parametrize("op", OPS)
def test_compare_matches_the_oracle(op: str) -> None:
    for a, b in itertools.product(VALUES, VALUES):
        want = oracle_eval(A.Binary(op, A.AttrRef("a"), A.AttrRef("b")), {"a": a, "b": b}, {})
        assert normalise(compare(op, a, b)) == want, (a, op, b)


def test_truth_value_of_values_matches_the_oracle() -> None:
    for v in VALUES:
        want = oracle_eval(parse("a ? true : false"), {"a": v}, {})
        assert _tv_norm(tv_of_value(v)) == want, v
