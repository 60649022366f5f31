"""Pass: conditionals with a known condition, and boolean-returning conditionals.

Laws (classad-semantics.md section 7; `ifThenElse(c, a, b)` behaves exactly like `c ? a : b`):
* `c ? a : b` with c a literal: TRUE or non-zero -> a; FALSE or zero -> b; UNDEFINED ->
  UNDEFINED; ERROR or a string -> ERROR. Always sound (the other branch is never evaluated).
* `c ? TRUE : FALSE` -> `c` when c is boolean-valued (its value is its truth value),
  else `!!c`; `c ? FALSE : TRUE` -> `!c` always (`!` maps values exactly like `?:`).
* `c ? X : X` -> `X` (both branches written the same) when c is two-valued (its truth
  value always TRUE or FALSE); an UNDEFINED or ERROR c would make the conditional
  UNDEFINED or ERROR instead (`same_branches`).
* `a ?: b` -> `a` when a can never be UNDEFINED (literal or by its domain); `undefined ?: b`
  -> `b`.
"""

from __future__ import annotations

from compiler.classad import ast as A
from compiler.simplify.abstract import (
    abstract,
    boolean_valued,
    is_literal,
    literal_value,
    two_valued,
)
from compiler.simplify.context import FALSE, TRUE, Ctx
from compiler.simplify.threevl import tv_of_value


def _parts(e: A.Expr) -> tuple[A.Expr, A.Expr, A.Expr] | None:
    if isinstance(e, A.Conditional):
        return e.cond, e.then, e.otherwise
    if isinstance(e, A.Call) and e.key == "ifthenelse" and len(e.args) == 3:
        return e.args[0], e.args[1], e.args[2]
    return None


def known_condition(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    parts = _parts(e)
    if parts is None:
        return None
    c, then, otherwise = parts
    if is_literal(c):
        t = tv_of_value(literal_value(c))
        return {"T": then, "F": otherwise, "U": A.UndefinedLit(), "E": A.ErrorLit()}[t]
    if then == TRUE and otherwise == FALSE:
        return c if boolean_valued(c, ctx.env) else A.Unary("!", A.Unary("!", c))
    if then == FALSE and otherwise == TRUE:
        return A.Unary("!", c)
    return None


def elvis_defined(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    if not isinstance(e, A.Elvis):
        return None
    if isinstance(e.left, A.UndefinedLit):
        return e.right
    if "U" not in abstract(e.left, ctx.env).tags:
        return e.left
    return None


def same_branches(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    """`c ? X : X` -> X (and `ifThenElse(c, X, X)`) when c is two-valued: whichever branch
    is chosen the value is X's. Not otherwise: an UNDEFINED c makes the conditional
    UNDEFINED and an ERROR (or string) c makes it ERROR, whatever X is."""
    parts = _parts(e)
    if parts is None:
        return None
    c, then, otherwise = parts
    if then != otherwise or not two_valued(c, ctx.env):
        return None
    return then
