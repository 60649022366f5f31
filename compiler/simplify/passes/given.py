"""Pass: simplify a later operand of a chain under what an earlier operand guarantees.

Law: in an `&&` chain, an operand c after p is evaluated only when p was TRUE or
UNDEFINED. If `p && c` and `p && c'` have the same truth value in every situation, c may
be replaced by c' (p TRUE: c and c' have the same truth value; p UNDEFINED: c is FALSE
exactly when c' is, ERROR exactly when c' is, and TRUE/UNDEFINED make no difference to a
chain that already holds UNDEFINED). Mirror image for `||` (c evaluated only when p was
FALSE or UNDEFINED). The candidates c' replace one atom of c that shares a subject with p
(or a copy of p itself) by TRUE or FALSE; the region oracle decides. Example, with the
startd's domains: `KeyboardIdle > 900 && !(KeyboardIdle < 60 || X)` ->
`KeyboardIdle > 900 && !X`. An operand is simplified given the operands `partners` names
(all of them up to `ALL_PAIRS` operands; context.py says why).
"""

from __future__ import annotations

from compiler.classad import ast as A
from compiler.simplify.abstract import canon
from compiler.simplify.context import FALSE, TRUE, Ctx, chain, flatten, leaves, partners
from compiler.simplify.domains import Env
from compiler.simplify.regions import equivalent, leaf_keys

_MAX_CANDIDATES = 12


def _replace(e: A.Expr, target: A.Expr, by: A.Expr, env: Env) -> A.Expr:
    if canon(e, env) == target:
        return by
    return A.map_children(e, lambda x: _replace(x, target, by, env))


def _targets(p: A.Expr, c: A.Expr, env: Env) -> list[A.Expr]:
    shared = leaf_keys(p, env)
    p_key = canon(p, env)
    out: dict[A.Expr, None] = {}
    for x in A.walk(c, same_scope=True):
        if x is c or isinstance(x, A.Boolean):
            continue
        key = canon(x, env)
        if key == p_key:
            out[key] = None
    for q in leaves(c):
        if q is not c and leaf_keys(q, env) & shared and not isinstance(q, A.Boolean):
            out[canon(q, env)] = None
    return list(out)[:_MAX_CANDIDATES]


def simplify_given_earlier(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    if not (isinstance(e, A.Binary) and e.op in ("&&", "||")):
        return None
    op, env = e.op, ctx.env
    items = flatten(e, op)
    for j in range(max(1, ctx.new_from(e, items)), len(items)):
        c = items[j]
        for i in partners(j, len(items)):
            p = items[i]
            if not leaf_keys(p, env) & leaf_keys(c, env):
                continue
            for target in _targets(p, c, env):
                for value in (TRUE, FALSE):
                    new = _replace(c, target, value, env)
                    if new == c:
                        continue
                    if equivalent(A.Binary(op, p, c), A.Binary(op, p, new), env, as_truth=True):
                        return chain(op, [*items[:j], new, *items[j + 1 :]])
    return None
