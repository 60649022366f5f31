"""Pass: a chain operand that negates an earlier two-valued operand (`X && ... && !X`).

Law, for operands p (earlier) and c (later) of one `&&` chain, where c is `!p` (or p is
`!c`, or p and c are `a == b` and `a != b`, or `a =?= b` and `a =!= b`), written alike
up to attribute case and certain scope (`abstract.canon`), and p is two-valued (its truth
value is always TRUE or FALSE: a defined boolean or number, `x =?= y`, `isUndefined(x)`,
a comparison of defined numbers ...): c -> FALSE. Proof: the chain only reaches c when p
was TRUE (a FALSE p ends it with FALSE, and p is never UNDEFINED or ERROR), and there c
is FALSE; an operand of a chain counts only by its truth value (section 6), so `0` and
FALSE are the same there. The operands between p and c are not touched.

The same holds when the negation of p arrives in pieces, as De Morgan (negation.py)
writes it: p = `q1 || ... || qn` with every qi two-valued, and later operands that negate
each qi (`X && !X` for X = `a =?= 1 || b =?= 2` is swept into `X && a =!= 1 && b =!= 2`):
the last of those pieces -> FALSE, since the chain reaches it only when p was TRUE and
every other qi FALSE, so that qi is TRUE. `||` is the mirror image (p = `q1 && ... &&
qn`; the last piece -> TRUE). connectives.py then folds the literal (`X && !X` -> FALSE,
as X is never ERROR).

Why a pass of its own: redundancy.py finds single-operand instances with the region
oracle, but only between the operands it compares (neighbours, past `ALL_PAIRS`
operands), for atoms the oracle can split, and never a negation spread over several
operands; this law needs none of that, so it holds however long the chain (a 300-clause
START) and however opaque X is. Not for X that may be UNDEFINED: `x && !x` is UNDEFINED
for an undefined x. Not for `random()` (two occurrences may differ; `canon` keeps them
apart).
"""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache

from compiler.classad import ast as A
from compiler.simplify.abstract import canon, deterministic, two_valued
from compiler.simplify.context import FALSE, TRUE, Ctx, chain, flatten
from compiler.simplify.domains import Env

#: `!(a OP b)` is `a OP' b` for every value of a and b (negation.py): the equality
#: operators only (`!(NaN < 5)` is TRUE, `NaN >= 5` FALSE).
_EQUALITY_COMPLEMENT = {"==": "!=", "!=": "==", "=?=": "=!=", "=!=": "=?="}
_DUAL = {"&&": "||", "||": "&&"}


def _negations(q: A.Expr, ctx: Ctx) -> set[A.Expr]:
    """Canonical forms of the expressions that are `!q`: `!q`, r when q is `!r`, and
    `a != b` when q is `a == b` (likewise `=?=`/`=!=`), the form negation.py writes
    `!(a == b)` in."""
    out: set[A.Expr] = {A.Unary("!", canon(q, ctx.env))}
    if isinstance(q, A.Unary) and q.op == "!":
        out.add(canon(q.operand, ctx.env))
    if isinstance(q, A.Binary) and q.op in _EQUALITY_COMPLEMENT:
        out.add(canon(A.Binary(_EQUALITY_COMPLEMENT[q.op], q.left, q.right), ctx.env))
    return out


@lru_cache(maxsize=1 << 16)
def _parts(p: A.Expr, env: Env, op: str) -> frozenset[A.Expr] | None:
    """The canonical operands of p as a `_DUAL[op]` chain (p alone when it is not one),
    or None when p is not deterministic or one of them is not two-valued."""
    parts = flatten(p, _DUAL[op])
    if not deterministic(p) or not all(two_valued(q, env) for q in parts):
        return None
    return frozenset(canon(q, env) for q in parts)


def complementary_operands(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    if not (isinstance(e, A.Binary) and e.op in ("&&", "||")):
        return None
    forced = FALSE if e.op == "&&" else TRUE
    items = flatten(e, e.op)
    settled = ctx.new_from(e, items)
    if settled:
        # The settled left chain held no instance, so the last piece of one is a new
        # operand: a quick look (cached per operand) before the full search.
        wanted: set[A.Expr] = set()
        for c in items[settled:]:
            if deterministic(c):
                wanted |= _negations(c, ctx)
        if not any(
            (parts := _parts(p, ctx.env, e.op)) is not None and not wanted.isdisjoint(parts)
            for p in items[:-1]
        ):
            return None
    where: dict[A.Expr, list[int]] = {}  # canonical operand -> its indices, ascending
    for j, item in enumerate(items):
        if item != forced and deterministic(item):
            where.setdefault(canon(item, ctx.env), []).append(j)
    for i, p in enumerate(items[:-1]):
        if _parts(p, ctx.env, e.op) is None:
            continue
        last = i
        for q in flatten(p, _DUAL[e.op]):
            found = [
                spots[k]
                for form in _negations(q, ctx)
                if (spots := where.get(form)) and (k := bisect_right(spots, i)) < len(spots)
            ]
            if not found:
                break
            last = max(last, min(found))
        else:
            return chain(e.op, [*items[:last], forced, *items[last + 1 :]])
    return None
