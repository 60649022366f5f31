"""Per-call state shared by the rewrite passes, and small AST helpers for `&&`/`||` chains.

Stage: simplifier support. `Ctx` is created by `simplify()` for one call and only collects
notes; passes stay pure functions of (node, ctx.env).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

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


def leaves(e: A.Expr) -> list[A.Expr]:
    """The atoms of a logical skeleton (operands that are not `&&`, `||`, `!`)."""
    if isinstance(e, A.Binary) and e.op in ("&&", "||"):
        return leaves(e.left) + leaves(e.right)
    if isinstance(e, A.Unary) and e.op == "!":
        return leaves(e.operand)
    return [e]
