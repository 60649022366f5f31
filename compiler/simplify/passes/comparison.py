"""Pass: comparisons in a readable normal form, and comparisons decided by the domain.

Laws:
* `k OP s` -> `s OP' k` with the operator turned round (`900 < KeyboardIdle` ->
  `KeyboardIdle > 900`). Always sound: comparison operators are strict and symmetric in
  how UNDEFINED/ERROR propagate (section 3), and `<`/`>` etc. are mirror images also for
  strings and NaN.
* `b == TRUE` -> `b`, `b != FALSE` -> `b`, `b == FALSE` -> `!b`, `b != TRUE` -> `!b`, for
  b boolean-valued (value always true/false/UNDEFINED/ERROR): a boolean compares as 0/1,
  UNDEFINED/ERROR propagate like `!`. Not for numbers (`5 == TRUE` is FALSE).
* A comparison that has one value in every situation its domain allows is that value
  (`ClockMin < 2000` -> TRUE when ClockMin is a defined integer 0..1439), checked by the
  region oracle.
"""

from __future__ import annotations

from compiler.classad import ast as A
from compiler.simplify.abstract import CMP_OPS, boolean_valued, is_literal
from compiler.simplify.context import FALSE, TRUE, Ctx
from compiler.simplify.regions import SWAP, possible_truths


def constant_right(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    if isinstance(e, A.Binary) and e.op in CMP_OPS and is_literal(e.left):
        return None if is_literal(e.right) else A.Binary(SWAP[e.op], e.right, e.left, e.span)
    return None


def compare_with_boolean(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    if not (isinstance(e, A.Binary) and e.op in ("==", "!=") and isinstance(e.right, A.Boolean)):
        return None
    if not boolean_valued(e.left, ctx.env):
        return None
    keep = (e.op == "==") == e.right.value
    return e.left if keep else A.Unary("!", e.left)


def decided_by_domain(e: A.Expr, ctx: Ctx) -> A.Expr | None:
    if not (isinstance(e, A.Binary) and e.op in CMP_OPS) or is_literal(e.left):
        return None
    if not is_literal(e.right):
        return None
    # A comparison's value is always TRUE, FALSE, UNDEFINED or ERROR, one per truth
    # value: one enumeration of its truth values decides it (four `equivalent` proofs
    # against each literal did the same work four times).
    found = possible_truths(e, ctx.env)
    if found is None or len(found) != 1:
        return None
    return _LITERAL_OF_TRUTH[next(iter(found))]


_LITERAL_OF_TRUTH: dict[str, A.Expr] = {
    "T": TRUE,
    "F": FALSE,
    "U": A.UndefinedLit(),
    "E": A.ErrorLit(),
}
