"""Pass: negations.

Laws:
* `!!b` -> `b` for b boolean-valued; otherwise `!!x` is x's truth value (`!!5` is TRUE)
  and stays.
* `!(s OP k)` -> `s OP' k` with the complementary operator (`!(KeyboardIdle < 60)` ->
  `KeyboardIdle >= 60`), only when the region oracle proves them equal for every value s
  can take: NaN breaks it for `<`-style operators (`!(NaN < 5)` is TRUE, `NaN >= 5`
  FALSE), so it holds for subjects with a numeric domain or strings, and always for
  `==`/`!=` and `=?=`/`=!=`.
* De Morgan: `!(a && b)` -> `!a || !b` and `!(a || b)` -> `!a && !b`. Sound in ClassAd's
  logic (the `||` table is the `&&` table with T/F swapped and `!` keeps UNDEFINED and
  ERROR; checked exhaustively in the tests), applied only when every negated operand then
  loses its `!`, so the result reads closer to what an administrator writes.
"""

from __future__ import annotations

from compiler.classad import ast as A
from compiler.simplify.abstract import boolean_valued
from compiler.simplify.context import Ctx, chain, flatten
from compiler.simplify.regions import equivalent, split_comparison

COMPLEMENT = {"<": ">=", ">=": "<", ">": "<=", "<=": ">", "==": "!=", "!=": "==",
              "=?=": "=!=", "=!=": "=?="}  # fmt: skip


def negate_comparison(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    """The comparison equal to `!e`, if e is one and the oracle agrees."""
    if not isinstance(e, A.Binary) or split_comparison(e) is None:
        return None
    candidate = A.Binary(COMPLEMENT[e.op], e.left, e.right, e.span)
    return candidate if equivalent(A.Unary("!", e), candidate, ctx.env) else None


def _negated(x: A.Expr, ctx: Ctx) -> A.Expr | None:
    if isinstance(x, A.Unary) and x.op == "!" and boolean_valued(x.operand, ctx.env):
        return x.operand
    if isinstance(x, A.Boolean):
        return A.Boolean(not x.value)
    return negate_comparison(x, ctx)


def double_negation(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    if isinstance(e, A.Unary) and e.op == "!":
        inner = e.operand
        if (
            isinstance(inner, A.Unary)
            and inner.op == "!"
            and boolean_valued(inner.operand, ctx.env)
        ):
            return inner.operand
    return None


def negated_comparison(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    if isinstance(e, A.Unary) and e.op == "!":
        return negate_comparison(e.operand, ctx)
    return None


def de_morgan(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    if not (isinstance(e, A.Unary) and e.op == "!"):
        return None
    inner = e.operand
    if not (isinstance(inner, A.Binary) and inner.op in ("&&", "||")):
        return None
    new_items = []
    for x in flatten(inner, inner.op):
        n = _negated(x, ctx)
        if n is None:
            return None
        new_items.append(n)
    return chain("||" if inner.op == "&&" else "&&", new_items)
