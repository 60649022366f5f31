"""Pass (global): two-valued minimisation of the boolean skeleton with sympy.

Law: where every atom of a `&&`/`||`/`!` subtree is *two-valued* (its truth value is
always TRUE or FALSE: a comparison of defined numbers, a defined boolean), ClassAd's
logic on that subtree is ordinary Boolean algebra: no UNDEFINED or ERROR can arise, so
evaluation order and short-circuiting cannot change the result, and the subtree's value
is a boolean. Any formula that is Boolean-equivalent over those atoms is then equal in
ClassAd too, provided its root is still a logical operator or a boolean-valued atom.
Atoms that are complementary comparisons (`x < 60`, `x >= 60`, proved by the oracle) are
mapped to one symbol and its negation.

Subtrees with an atom that may be UNDEFINED or ERROR are left to the four-valued local
laws (redundancy.py etc.). Read-once subtrees (no atom occurs twice) are skipped: they are
already minimal. sympy stops minimising silently above 8 variables unless `force=True`;
we pass `force=True` up to `max_vars` atoms and above that skip the subtree and report
`minimised=False` with a note. A result is kept only if it has fewer atom occurrences;
operands are ordered by where their atoms first appear in the original.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from compiler.classad import ast as A
from compiler.simplify.abstract import boolean_valued, canon, two_valued
from compiler.simplify.context import Ctx, chain, is_logic, leaves
from compiler.simplify.domains import Env
from compiler.simplify.passes.negation import COMPLEMENT, negate_comparison
from compiler.simplify.regions import split_comparison


def minimise_skeletons(e: A.Expr, ctx: Ctx) -> A.Expr:
    """Top-down: minimise each maximal two-valued logical subtree once."""
    if is_logic(e) and _two_valued_skeleton(e, ctx.env):
        return _minimise(e, leaves(e), ctx)
    return A.map_children(e, lambda x: minimise_skeletons(x, ctx))


@lru_cache(maxsize=1 << 16)
def _two_valued_skeleton(e: A.Expr, env: Env) -> bool:
    """Every atom of `e`'s logical skeleton (`leaves`) is two-valued; memoised per node,
    so descending a long chain that is not (one node per prefix) stays linear."""
    if not is_logic(e):
        return two_valued(e, env)
    for x in A.children(e):  # noqa: SIM110 (a loop: one frame per level of a chain)
        if not _two_valued_skeleton(x, env):
            return False
    return True


def _atom_table(
    atoms: list[A.Expr], ctx: Ctx
) -> tuple[dict[A.Expr, tuple[int, bool]], list[A.Expr]]:
    """canon(atom) -> (symbol index, negated); representative atom per symbol."""
    env = ctx.env
    table: dict[A.Expr, tuple[int, bool]] = {}
    reps: list[A.Expr] = []
    for a in atoms:
        key = canon(a, env)
        if key in table:
            continue
        parts = split_comparison(a)
        if parts is not None and isinstance(a, A.Binary):
            mirror = canon(A.Binary(COMPLEMENT[a.op], a.left, a.right), env)
            if mirror in table and negate_comparison(a, ctx) is not None:
                idx, neg = table[mirror]
                table[key] = (idx, not neg)
                continue
        table[key] = (len(reps), False)
        reps.append(a)
    return table, reps


def _minimise(e: A.Expr, atoms: list[A.Expr], ctx: Ctx) -> A.Expr:
    table, reps = _atom_table(atoms, ctx)
    if len(reps) == len(atoms):
        return e  # read-once: already minimal
    if len(reps) > ctx.max_vars:
        ctx.minimised = False
        ctx.note(
            f"boolean minimisation skipped for a subexpression with {len(reps)} atoms "
            f"(more than max_vars={ctx.max_vars}); only local laws were applied"
        )
        return e
    skeleton = _encode(e, table, ctx.env)
    result = _sympy_minimise(skeleton, len(reps))
    new = _decode(result, reps, ctx)
    if new is None or len(leaves(new)) >= len(atoms):
        return e
    if not is_logic(new) and not isinstance(new, A.Boolean) and not boolean_valued(new, ctx.env):
        return e  # a bare non-boolean atom would change the value (5 instead of TRUE)
    return new


def _encode(e: A.Expr, table: dict[A.Expr, tuple[int, bool]], env: Env) -> tuple[Any, ...]:
    match e:
        case A.Binary(op="&&" | "||", left=l, right=r):
            return (e.op, _encode(l, table, env), _encode(r, table, env))
        case A.Unary(op="!", operand=x):
            return ("!", _encode(x, table, env))
        case _:
            idx, neg = table[canon(e, env)]
            return ("!", ("v", idx)) if neg else ("v", idx)


@lru_cache(maxsize=1024)
def _sympy_minimise(skeleton: tuple[Any, ...], n: int) -> tuple[Any, ...]:
    import sympy
    from sympy.logic.boolalg import simplify_logic

    syms = sympy.symbols(f"a0:{n}")

    def build(s: tuple[Any, ...]) -> Any:
        match s:
            case ("v", i):
                return syms[i]
            case ("!", x):
                return sympy.Not(build(x))
            case ("&&", l, r):
                return sympy.And(build(l), build(r))
            case ("||", l, r):
                return sympy.Or(build(l), build(r))
        raise ValueError(s)

    out = simplify_logic(build(skeleton), force=True)

    def back(x: Any) -> tuple[Any, ...]:
        if x is sympy.true:
            return ("c", True)
        if x is sympy.false:
            return ("c", False)
        if isinstance(x, sympy.Symbol):
            return ("v", syms.index(x))
        if isinstance(x, sympy.Not):
            return ("!", back(x.args[0]))
        if isinstance(x, sympy.And | sympy.Or):
            return ("&&" if isinstance(x, sympy.And) else "||", *(back(a) for a in x.args))
        raise ValueError(x)

    return back(out)


def _first(s: tuple[Any, ...]) -> int:
    match s:
        case ("v", i):
            return int(i)
        case ("c", _):
            return -1
        case ("!", x):
            return _first(x)
        case (_, *args):
            return min(_first(a) for a in args)
    raise ValueError(s)


def _decode(s: tuple[Any, ...], reps: list[A.Expr], ctx: Ctx) -> A.Expr | None:
    match s:
        case ("c", value):
            return A.Boolean(bool(value))
        case ("v", i):
            return reps[i]
        case ("!", x):
            inner = _decode(x, reps, ctx)
            if inner is None:
                return None
            return negate_comparison(inner, ctx) or A.Unary("!", inner)
        case (op, *args):
            parts = [_decode(a, reps, ctx) for a in sorted(args, key=_first)]
            if any(p is None for p in parts):
                return None
            return chain(op, [p for p in parts if p is not None])
    return None
