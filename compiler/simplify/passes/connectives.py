"""Pass: literals inside `&&` / `||` chains (identity and absorbing elements).

ClassAd evaluates a chain left to right; `&&` stops at the first FALSE or ERROR operand,
`||` at the first TRUE or ERROR (section 6). For a chain `a1 op a2 op ... op an`:
* Absorbing literal (FALSE in `&&`, TRUE in `||`, and ERROR or a string in both): the
  operands after it are never evaluated -> dropped; a string there is written `error`
  (the chain's value once it gets there), and a chain that starts with it is ERROR. If no operand before it can be ERROR,
  the whole chain is that literal (`x && FALSE` is FALSE only when x is never ERROR:
  `error && false` is ERROR).
* Identity literal (TRUE or non-zero in `&&`, FALSE or zero in `||`): dropped, as long as
  a logical operator remains around the rest (`TRUE && x` is x's *truth value*: `TRUE &&
  5` is TRUE, not 5), i.e. when two or more operands remain, or the single one left is
  boolean-valued.
"""

from __future__ import annotations

from compiler.classad import ast as A
from compiler.simplify.abstract import boolean_valued, is_literal, literal_value, may_error
from compiler.simplify.context import Ctx, chain, flatten
from compiler.simplify.threevl import tv_of_value


def chain_literals(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    if not (isinstance(e, A.Binary) and e.op in ("&&", "||")):
        return None
    op = e.op
    items = flatten(e, op)
    absorbing, identity = ("F", "T") if op == "&&" else ("T", "F")
    out: list[A.Expr] = []
    for x in items:
        t = tv_of_value(literal_value(x)) if is_literal(x) else None
        if t == identity:
            continue
        out.append(x)
        if t in (absorbing, "E"):
            break
    if out and is_literal(out[-1]) and tv_of_value(literal_value(out[-1])) == "E":
        # Reaching an ERROR-valued literal ("s", error) makes the chain ERROR.
        if len(out) == 1:
            return A.ErrorLit()
        out[-1] = A.ErrorLit()
    last = out[-1] if out else None
    if last is not None and is_literal(last):
        t = tv_of_value(literal_value(last))
        if t == absorbing and not any(may_error(x, ctx.env) for x in out[:-1]):
            return A.Boolean(t == "T")
    if out == items:
        return None
    if not out:  # every operand was the identity
        return A.Boolean(identity == "T")
    if len(out) == 1 and not boolean_valued(out[0], ctx.env):
        if len(items) == 2:
            return None
        out.append(A.Boolean(identity == "T"))  # keep one identity: stays logical
    return chain(op, out)
