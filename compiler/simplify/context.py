"""Per-call state shared by the rewrite passes, and small AST helpers for `&&`/`||` chains.

Stage: simplifier support. `Ctx` is created by `simplify()` for one call and only collects
notes; passes stay pure functions of (node, ctx.env).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Final

import msgspec

from compiler.classad import ast as A
from compiler.simplify.domains import Env


class Memo(msgspec.Struct):
    """The pipeline's memo for one Env: `swept` and `local` hold the results of its
    bottom-up sweep and per-node rule fixpoint (pure functions of node and Env), and
    `settled` the nodes where no rule fires."""

    swept: dict[A.Expr, A.Expr] = msgspec.field(default_factory=dict)
    local: dict[A.Expr, A.Expr] = msgspec.field(default_factory=dict)
    settled: set[A.Expr] = msgspec.field(default_factory=set)


class Ctx(msgspec.Struct):
    """One `simplify()` call's state. A subtree that names none of the attributes with an
    assumed value is rewritten exactly as under the same domains without assumptions (the
    Env answers the same for every attribute it names, and `assume` writes no note), so
    its results go to `shared`, the memo of that assumption-free Env kept across calls
    (START appears in many rows, each with its own assumed State and Activity); the
    others go to `own`. A chain pass may look only at the operands that a settled left
    operand chain does not already hold (`new_from`), which keeps the passes over a long
    `a || b || ...` chain (one node per prefix) from trying the same pairs again at every
    prefix, with exactly the same results."""

    env: Env
    max_vars: int = 8
    notes: list[str] = msgspec.field(default_factory=list)
    minimised: bool = True
    own: Memo = msgspec.field(default_factory=Memo)
    shared: Memo | None = None
    assumed: frozenset[str] = frozenset()

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def memo(self, e: A.Expr) -> Memo:
        """Where the pipeline keeps what it found about `e`."""
        if self.shared is not None and not (attribute_names(e) & self.assumed):
            return self.shared
        return self.own

    def new_from(self, e: A.Binary, items: list[A.Expr]) -> int:
        """How many leading operands of `items` (= `flatten(e, e.op)`) a chain pass has
        already examined: when `e`'s left operand is itself a settled chain of the same
        operator, every rule found nothing among its operands, so a pass that looks at
        each operand (or pair of operands) only needs the ones from this index on (with
        their earlier partners). 0 when nothing is known."""
        left = e.left
        if isinstance(left, A.Binary) and left.op == e.op and left in self.memo(left).settled:
            return len(items) - len(flatten(e.right, e.op))
        return 0


@lru_cache(maxsize=1 << 16)
def attribute_names(e: A.Expr) -> frozenset[str]:
    """The lower-cased names of every attribute reference in `e` (any scope)."""
    if isinstance(e, A.AttrRef):
        return frozenset((e.name.lower(),))
    out: frozenset[str] = frozenset()
    for x in A.children(e, same_scope=False):
        out |= attribute_names(x)
    return out


#: Chains of up to this many operands have every pair of operands compared by the pairwise
#: passes (redundancy.py, given.py); in a longer chain an operand is compared with the
#: `WINDOW` operands before it. Why: every pair shares its subjects in a real allow-list
#: or OR of clauses (`Owner == "u1" && KeyboardIdle > 1 || Owner == "u2" && ...`), so
#: trying them all made `compile` quadratic in the chain's length (80 clauses: minutes),
#: and no law holds between their far-apart operands. The longest chain in the guards of
#: the shipped policies and the 44 real-world configurations has 13 operands, so their
#: results are exactly what comparing every pair gives; a longer chain keeps every law
#: between neighbours (duplicates next to each other, `x > 5 || x > 3`), each rewrite
#: still proved by the region oracle, so the result stays equal to the input.
ALL_PAIRS: Final = 16
WINDOW: Final = 4


def partners(j: int, n: int) -> range:
    """The indices of the earlier operands a pairwise pass compares operand j of an
    n-operand chain with."""
    return range(j) if n <= ALL_PAIRS else range(max(0, j - WINDOW), j)


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
    ClassAd's four-valued logic, checked exhaustively in tests/simplify/test_laws.py).
    Iterative and linear: a chain of n operands is n - 1 nested nodes."""
    out: list[A.Expr] = []
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, A.Binary) and x.op == op:
            stack.append(x.right)
            stack.append(x.left)
        else:
            out.append(x)
    return out


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
