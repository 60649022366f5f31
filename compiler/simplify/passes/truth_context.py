"""Pass: operands whose value is only used as a truth value.

Law: the operands of a `&&`/`||` chain with two or more operands, the operand of `!`, and
the condition of `?:`/`ifThenElse` are only inspected through their truth value
(section 6-7), so there `!!x`, `TRUE && x`, `x && TRUE`, `FALSE || x` and `x || FALSE`
(which all have x's truth value, whatever x is) may be written `x`, and so may a pair
`x && y` / `x || y` that the region oracle proves has x's truth value (`a && a`). Elsewhere they stay:
`!!5` is TRUE, not 5.
"""

from __future__ import annotations

from msgspec.structs import replace

from compiler.classad import ast as A
from compiler.simplify.context import FALSE, TRUE, Ctx, chain, flatten
from compiler.simplify.domains import Env
from compiler.simplify.regions import equivalent


def _as_truth(x: A.Expr, env: Env) -> A.Expr | None:
    """A simpler expression with x's truth value, or None."""
    if isinstance(x, A.Unary) and x.op == "!":
        inner = x.operand
        if isinstance(inner, A.Unary) and inner.op == "!":
            return inner.operand
        return None
    if isinstance(x, A.Binary) and x.op in ("&&", "||"):
        identity = TRUE if x.op == "&&" else FALSE
        if x.left == identity:
            return x.right
        if x.right == identity:
            return x.left
        if equivalent(x, x.left, env, as_truth=True):  # `a && a`, `a > 9 && a > 5`
            return x.left
    return None


def truth_only_operands(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    match e:
        case A.Binary(op="&&" | "||"):
            items = flatten(e, e.op)
            for i in range(ctx.new_from(e, items), len(items)):
                y = _as_truth(items[i], ctx.env)
                if y is not None:
                    return chain(e.op, [*items[:i], y, *items[i + 1 :]])
            return None
        case A.Unary(op="!", operand=x):
            y = _as_truth(x, ctx.env)
            return None if y is None else replace(e, operand=y)
        case A.Conditional(cond=c):
            y = _as_truth(c, ctx.env)
            return None if y is None else replace(e, cond=y)
        case A.Call(args=(c, t, o)) if e.key == "ifthenelse":
            y = _as_truth(c, ctx.env)
            return None if y is None else replace(e, args=(y, t, o))
        case _:
            return None
