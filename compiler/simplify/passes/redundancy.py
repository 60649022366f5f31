"""Pass: redundant and contradicted operands of a chain (duplicates, implied comparisons,
complements, absorption), each instance proved by the region oracle.

Laws, for an operand c that comes *after* an operand p of the same `&&` chain:
* drop c when `p && c` has the same truth value as `p` in every situation. Proof: if p
  is FALSE or ERROR the chain stopped at p; if p is TRUE then c is TRUE (identity); if p
  is UNDEFINED then c is TRUE or UNDEFINED and the chain already holds UNDEFINED.
  Instances: duplicates `a && b && a`; `KeyboardIdle > 900 && KeyboardIdle > 600` (also
  when KeyboardIdle may be UNDEFINED: both atoms are then UNDEFINED, or both ERROR);
  absorption `a && (a || b)` only when that really holds (not when a may be UNDEFINED
  and b ERROR).
* replace c by FALSE when `p && c` has the truth value of `p && FALSE` everywhere (p TRUE
  forces c FALSE, p UNDEFINED forces c FALSE): complements `x && !x` only for x a defined
  boolean or number, empty ranges `x < 60 && x > 300`. The literal is then handled by
  connectives.py.
`||` is the mirror image (drop c when `p || c` = `p`; c -> TRUE when `p || c` = `p || TRUE`).
Only later operands are touched: dropping an earlier one could expose an ERROR that the
chain used to stop before. Each operand is compared with the operands `partners` names
(all of them up to `ALL_PAIRS` operands; context.py says why).
"""

from __future__ import annotations

from compiler.classad import ast as A
from compiler.simplify.context import FALSE, TRUE, Ctx, chain, flatten, partners
from compiler.simplify.regions import equivalent, leaf_keys


def redundant_operands(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    if not (isinstance(e, A.Binary) and e.op in ("&&", "||")):
        return None
    op = e.op
    forced = FALSE if op == "&&" else TRUE
    items = flatten(e, op)
    # A settled left chain of 3+ operands had every pair tried (with 2 the pair law is
    # `_pair`'s stricter one, so its pair is tried again here).
    seen = ctx.new_from(e, items)
    for j in range(seen if seen >= 3 else 1, len(items)):
        c = items[j]
        if c in (TRUE, FALSE):
            continue
        for i in partners(j, len(items)):
            p = items[i]
            # With no leaf in common the oracle would vary them independently: no law.
            if not leaf_keys(p, ctx.env) & leaf_keys(c, ctx.env):
                continue
            both = A.Binary(op, p, c)
            if equivalent(both, p, ctx.env, as_truth=True):
                return (
                    chain(op, items[:j] + items[j + 1 :])
                    if len(items) > 2
                    else _pair(op, p, c, ctx)
                )
            if equivalent(both, A.Binary(op, p, forced), ctx.env, as_truth=True):
                return chain(op, [*items[:j], forced, *items[j + 1 :]])
    return None


def _pair(op: str, p: A.Expr, c: A.Expr, ctx: Ctx) -> A.Expr | None:
    """`p op c` -> `p` needs exact value equality (p alone is not under a logical op)."""
    both = A.Binary(op, p, c)
    return p if equivalent(both, p, ctx.env) else None
