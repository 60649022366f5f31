"""Pass: two neighbouring comparisons of the same subject against constants become one.

Law: for adjacent operands `s OP1 k1 && s OP2 k2` (or `||`), any single comparison of s
(or TRUE/FALSE) that has the same value in every situation may replace the pair.
Candidates are the two operands themselves, `s == k` and `s != k` for each constant, and
the literals; the region oracle checks each one over every cell of s's values cut by the
constants, plus UNDEFINED/ERROR/other types as s's domain allows. Examples:
`x > 600 && x > 900` -> `x > 900`; `x >= 5 && x <= 5` -> `x == 5`; `x > 900 || x > 600`
-> `x > 600`; `x < 60 && x > 300` -> FALSE only when x is a defined number (if x may be
UNDEFINED the pair is UNDEFINED there, so it stays: no single comparison is equal);
integer domains make `x > 900 && x >= 900.5` -> `x > 900`.
Adjacency matters: between two distant operands an intermediate one could be ERROR and
the chain would stop there (redundancy.py handles the later-operand cases).
"""

from __future__ import annotations

from compiler.classad import ast as A
from compiler.simplify.abstract import canon
from compiler.simplify.context import FALSE, TRUE, Ctx, chain, flatten
from compiler.simplify.regions import equivalent, split_comparison


def _candidates(p: A.Expr, c: A.Expr) -> list[A.Expr]:
    sp, sc = split_comparison(p), split_comparison(c)
    assert sp is not None and sc is not None
    subject = sp[0]
    out: list[A.Expr] = [p, c, TRUE, FALSE]
    for k in dict.fromkeys((sp[2], sc[2])):
        out += [A.Binary("==", subject, k), A.Binary("!=", subject, k)]
    return out


def merge_neighbours(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    if not (isinstance(e, A.Binary) and e.op in ("&&", "||")):
        return None
    items = flatten(e, e.op)
    for i in range(max(0, ctx.new_from(e, items) - 1), len(items) - 1):
        p, c = items[i], items[i + 1]
        sp, sc = split_comparison(p), split_comparison(c)
        if sp is None or sc is None or canon(sp[0], ctx.env) != canon(sc[0], ctx.env):
            continue
        pair = A.Binary(e.op, p, c)
        for cand in _candidates(p, c):
            if equivalent(pair, cand, ctx.env):
                return chain(e.op, [*items[:i], cand, *items[i + 2 :]])
    return None
