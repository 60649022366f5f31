"""Pass: constant folding.

Law: an expression built only from literals (no attribute, no `time()`, `random()`,
`eval()`...) always has the same value, so it may be replaced by that value's literal.
Logical operators and comparisons on literals are folded with the exact tables of
threevl.py; everything else (arithmetic, pure functions) through the project's evaluator,
`compiler.classad.evaluate`, so the simplifier never disagrees with it. Results without
a literal form (lists, ads, NaN, +infinity) are left unfolded.
"""

from __future__ import annotations

from compiler.classad import ast as A
from compiler.classad import evaluate
from compiler.simplify.abstract import CMP_OPS, is_literal, literal_of, literal_value, pure
from compiler.simplify.context import Ctx
from compiler.simplify.threevl import (
    AND_TABLE,
    NOT_TABLE,
    OR_TABLE,
    compare,
    tv_of_value,
    value_of_tv,
)


def fold_constants(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    if is_literal(e) or isinstance(e, A.ListExpr | A.AttrRef) or not pure(e):
        return None
    match e:
        case A.Unary(op="!", operand=x) if is_literal(x):
            return literal_of(value_of_tv(NOT_TABLE[tv_of_value(literal_value(x))]))
        case A.Binary(op="&&" | "||", left=l, right=r) if is_literal(l) and is_literal(r):
            table = AND_TABLE if e.op == "&&" else OR_TABLE
            a, b = tv_of_value(literal_value(l)), tv_of_value(literal_value(r))
            return literal_of(value_of_tv(table[(a, b)]))
        case A.Binary(op=op, left=l, right=r) if op in CMP_OPS and is_literal(l) and is_literal(r):
            return literal_of(compare(op, literal_value(l), literal_value(r)))
    return literal_of(evaluate(e))
