"""One ad's expression seen from the other side of a match (stage: evaluation).

The negotiator evaluates a job's Requirements and Rank once per slot: MY is the job,
TARGET each slot. Column-wise evaluation (columns.py) makes MY the rows and TARGET one
ad, so a job expression is rewritten here into one that gives the same value with the
roles swapped: MY the slot, TARGET the job. The rewrite follows scope.py's look-up rules
for a top-level ad of a match:

- a name the job holds (unscoped, or `MY.name`) is the job's value: a literal is
  inlined, a stored expression is flipped in its turn and inlined, and a name whose
  evaluation is already in progress is UNDEFINED (the cycle rule);
- `MY.name` the job lacks is UNDEFINED; an unscoped name the job lacks, and
  `TARGET.name`, is the slot's: `MY.name` after the flip.

Whatever the rules cannot say as an expression of the slot alone returns None and the
caller evaluates the original, one slot at a time: the names that resolve specially
(`CurrentTime`, `self`, `parent`, `target`, `ad` ...), `PARENT` and `.name`, nested ads
and lists and selections from them (a list's elements see the scope that selects
them), and the calls that read
the scope or the source text (`eval`, `unparse`, `evalInEachContext`, `countMatches`).

The flipped expression reads the slot only through `MY.name`; `reads` lists those
names. The slot's value of each is what the original reads only when the slot stores a
plain value there: a stored expression would be evaluated with the job as TARGET but
without the job's attributes in progress marked, so the caller keeps such rows on the
scalar path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from compiler.classad import ast
from compiler.classad.values import ERROR, UNDEFINED

#: Names that, not held by an ad, resolve before the other ad (scope.match_context and
#: scope.special): a flip cannot say them. An ad that holds one of them changes what the
#: scope words mean in it (`MY.x` selects from its attribute `MY`): not flipped either,
#: and the caller keeps such rows of the other side on the scalar path.
SPECIAL_NAMES: Final = frozenset({"my", "self", "parent", "target", "other", "ad", "currenttime"})
#: Calls that read the scope or the unevaluated source (ast.SCOPE_CHANGING_CALLS, eval).
_SCOPE_CALLS: Final = ast.SCOPE_CHANGING_CALLS | {"eval"}


class _Unflippable(Exception):
    """The expression does something the rewrite cannot keep."""


def literal(value: Any) -> ast.Expr | None:
    """The literal node of a plain stored value, None for anything else."""
    t = type(value)
    if t is bool:
        return ast.Boolean(value)
    if t is int:
        return ast.Integer(value) if -(2**63) <= value < 2**63 else None
    if t is float:
        return ast.Real(value)
    if t is str:
        return ast.String(value)
    if value is UNDEFINED:
        return ast.UndefinedLit()
    if value is ERROR:
        return ast.ErrorLit()
    return None


class Flipped:
    """A flipped expression and the slot attributes it reads (lower case)."""

    __slots__ = ("expr", "reads")

    def __init__(self, expr: ast.Expr, reads: frozenset[str]) -> None:
        self.expr = expr
        self.reads = reads


def flip(
    expr: ast.Expr, ad: Mapping[str, Any], busy: frozenset[str] = frozenset()
) -> Flipped | None:
    """`expr`, written in `ad`'s scope with the other ad as TARGET, rewritten to give
    the same value with the other ad as MY and `ad` as TARGET; None when it cannot be.
    `busy`: `ad`'s attributes (lower case) being evaluated (the attribute `expr` is the
    value of, for a stored Requirements)."""
    lowered = {k.lower(): v for k, v in ad.items()}
    if not SPECIAL_NAMES.isdisjoint(lowered):
        return None
    reads: set[str] = set()
    try:
        out = _flip(expr, lowered, busy, reads)
    except (_Unflippable, RecursionError):
        return None
    return Flipped(out, frozenset(reads))


def _own(key: str, ad: Mapping[str, Any], busy: frozenset[str], reads: set[str]) -> ast.Expr:
    """The job's attribute `key` (which it holds), inlined."""
    if key in busy:
        return ast.UndefinedLit()
    raw = ad[key]
    if isinstance(raw, ast.ListExpr | ast.RecordExpr):
        raise _Unflippable(key)
    if isinstance(raw, ast.EXPR_TYPES):
        return _flip(raw, ad, busy | {key}, reads)
    found = literal(raw)
    if found is None:
        raise _Unflippable(key)
    return found


def _flip(node: ast.Expr, ad: Mapping[str, Any], busy: frozenset[str], reads: set[str]) -> ast.Expr:
    match node:
        case ast.AttrRef(scope=None):
            key = node.key
            if key in ad:
                return _own(key, ad, busy, reads)
            if key in SPECIAL_NAMES:
                raise _Unflippable(key)
            reads.add(key)
            return ast.AttrRef(node.name, "MY")
        case ast.AttrRef(scope="MY"):
            key = node.key
            if key in ad:
                return _own(key, ad, busy, reads)
            if key in SPECIAL_NAMES:
                raise _Unflippable(key)
            return ast.UndefinedLit()
        case ast.AttrRef(scope="TARGET"):
            if node.key in SPECIAL_NAMES:
                raise _Unflippable(node.key)
            reads.add(node.key)
            return ast.AttrRef(node.name, "MY")
        case ast.AttrRef():
            raise _Unflippable(node.name)  # PARENT.name, .name
        case ast.ListExpr() | ast.RecordExpr() | ast.Select() | ast.Subscript():
            # a list's elements are evaluated in the scope that selects from it
            raise _Unflippable("list, nested ad or selection")
        case ast.Call() if node.key in _SCOPE_CALLS:
            raise _Unflippable(node.name)
        case _:
            return ast.map_children(node, lambda child: _flip(child, ad, busy, reads))
