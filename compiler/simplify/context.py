"""Per-call state shared by the rewrite passes, and small AST helpers for `&&`/`||` chains.

Stage: simplifier support. `Ctx` is created by `simplify()` for one call and only collects
notes; passes stay pure functions of (node, ctx.env).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from compiler.classad import ast as A
from compiler.simplify.domains import Env


@dataclass(slots=True)
class Ctx:
    env: Env
    max_vars: int = 8
    notes: list[str] = field(default_factory=list)
    minimised: bool = True

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


#: Functions whose arguments are not values in this scope: `unparse(x)` reads x's source
#: text, `evalInEachContext`/`countMatches` evaluate their first argument in other ads.
#: Rewriting inside them (with this ad's domains or assumptions) would change the result.
SCOPE_CHANGING_CALLS = frozenset({"unparse", "evalineachcontext", "countmatches"})

#: A node-local rewrite: a new node, or None when its law does not apply here.
Rule = Callable[[A.Expr, Ctx], A.Expr | None]

TRUE = A.Boolean(True)
FALSE = A.Boolean(False)


def is_logic(e: A.Expr) -> bool:
    return (isinstance(e, A.Binary) and e.op in ("&&", "||")) or (
        isinstance(e, A.Unary) and e.op == "!"
    )


def flatten(e: A.Expr, op: str) -> list[A.Expr]:
    """The operands of a left-to-right `op` chain (`&&` and `||` are associative in
    ClassAd's four-valued logic, checked exhaustively in tests/simplify/test_laws.py)."""
    if isinstance(e, A.Binary) and e.op == op:
        return flatten(e.left, op) + flatten(e.right, op)
    return [e]


def chain(op: str, items: list[A.Expr]) -> A.Expr:
    """Rebuild a chain left-associatively (the parser's shape)."""
    out = items[0]
    for x in items[1:]:
        out = A.Binary(op, out, x)
    return out


def map_children(e: A.Expr, f: Callable[[A.Expr], A.Expr]) -> A.Expr:
    """`e` with `f` applied to each direct child (same node when nothing changed)."""
    match e:
        case A.Unary(operand=x):
            y = f(x)
            return e if y is x else replace(e, operand=y)
        case A.Binary(left=l, right=r):
            l2, r2 = f(l), f(r)
            return e if (l2 is l and r2 is r) else replace(e, left=l2, right=r2)
        case A.Conditional(cond=c, then=t, otherwise=o):
            c2, t2, o2 = f(c), f(t), f(o)
            if c2 is c and t2 is t and o2 is o:
                return e
            return replace(e, cond=c2, then=t2, otherwise=o2)
        case A.Elvis(left=l, right=r):
            l2, r2 = f(l), f(r)
            return e if (l2 is l and r2 is r) else replace(e, left=l2, right=r2)
        case A.Call(name=name) if name.lower() in SCOPE_CHANGING_CALLS:
            return e
        case A.Call(args=args):
            new = tuple(f(a) for a in args)
            return (
                e if all(a is b for a, b in zip(new, args, strict=True)) else replace(e, args=new)
            )
        case A.ListExpr(items=items):
            new = tuple(f(a) for a in items)
            return (
                e if all(a is b for a, b in zip(new, items, strict=True)) else replace(e, items=new)
            )
        case A.Select(base=b):
            b2 = f(b)
            return e if b2 is b else replace(e, base=b2)
        case A.Subscript(base=b, index=i):
            b2, i2 = f(b), f(i)
            return e if (b2 is b and i2 is i) else replace(e, base=b2, index=i2)
        case _:
            # Literals, attribute references; nested ads keep their own scope: untouched.
            return e


def leaves(e: A.Expr) -> list[A.Expr]:
    """The atoms of a logical skeleton (operands that are not `&&`, `||`, `!`)."""
    if isinstance(e, A.Binary) and e.op in ("&&", "||"):
        return leaves(e.left) + leaves(e.right)
    if isinstance(e, A.Unary) and e.op == "!":
        return leaves(e.operand)
    return [e]
