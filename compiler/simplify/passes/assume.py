"""Pass: partial evaluation with assumed attribute values.

Law: an attribute reference whose value the caller fixed (`assume`, e.g. KeyboardIdle =
1e9 on a dedicated node) may be replaced by that value as a literal.
Sound when the reference certainly denotes that ad's attribute: `MY.x`, `TARGET.x` for a
`"TARGET.x"` key, and unscoped `x` only when MY holds `x` (Env.resolve: an assumed
UNDEFINED does not count as present, so unscoped `x` could still fall back to TARGET).
Lists and ads are not substituted (no literal form).
"""

from __future__ import annotations

from compiler.classad import ast as A
from compiler.simplify.abstract import literal_of
from compiler.simplify.context import Ctx


def substitute_assumed(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    if not isinstance(e, A.AttrRef):
        return None
    known, value = ctx.env.assumed(e)
    if not known:
        return None
    lit = literal_of(value)
    if lit is not None:
        ctx.note(f"assumed {e.scope + '.' if e.scope else ''}{e.name} = {value!r}")
    return lit
