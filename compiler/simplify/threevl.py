"""ClassAd's four truth values and the exact operator tables the simplifier reasons with.

Stage: simplifier support (pure data + tiny functions). It never evaluates expressions
from the AST; it only knows how the logical operators combine the truth values of their
operands, which is what the region oracle (`regions.py`) needs to check a rewrite
exhaustively. How values compare and which truth value a value has come from
`compiler.classad.operators`, the evaluator's own semantics.

Truth values: `T`, `F`, `U` (UNDEFINED), `E` (ERROR). A value's truth value is what
`&&`, `||`, `!` and `?:` see: booleans as is, numbers by zero-ness (NaN is non-zero, hence
TRUE), strings, lists and ads ERROR (classad-semantics.md section 6).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Literal, TypeAlias

from compiler.classad import operators as ops
from compiler.classad.values import ERROR, UNDEFINED, Value

TV: TypeAlias = Literal["T", "F", "U", "E"]
ALL_TV: Final = frozenset({"T", "F", "U", "E"})

# Rows: left operand, columns: right operand (classad-semantics.md section 6).
AND_TABLE: Final[dict[tuple[str, str], TV]] = {
    ("T", "T"): "T", ("T", "F"): "F", ("T", "U"): "U", ("T", "E"): "E",
    ("F", "T"): "F", ("F", "F"): "F", ("F", "U"): "F", ("F", "E"): "F",
    ("U", "T"): "U", ("U", "F"): "F", ("U", "U"): "U", ("U", "E"): "E",
    ("E", "T"): "E", ("E", "F"): "E", ("E", "U"): "E", ("E", "E"): "E",
}  # fmt: skip
OR_TABLE: Final[dict[tuple[str, str], TV]] = {
    ("T", "T"): "T", ("T", "F"): "T", ("T", "U"): "T", ("T", "E"): "T",
    ("F", "T"): "T", ("F", "F"): "F", ("F", "U"): "U", ("F", "E"): "E",
    ("U", "T"): "T", ("U", "F"): "U", ("U", "U"): "U", ("U", "E"): "E",
    ("E", "T"): "E", ("E", "F"): "E", ("E", "U"): "E", ("E", "E"): "E",
}  # fmt: skip
NOT_TABLE: Final[dict[str, TV]] = {"T": "F", "F": "T", "U": "U", "E": "E"}


_TV_OF_TRUTH: Final[dict[object, TV]] = {True: "T", False: "F"}


def tv_of_value(v: Value) -> TV:
    """The truth value `&&`/`||`/`!`/`?:` see for a runtime value (`operators.truth`)."""
    t = ops.truth(v)
    if t is UNDEFINED:
        return "U"
    if t is ERROR:
        return "E"
    return _TV_OF_TRUTH[t]


_VALUE_OF_TV: Final[dict[str, Value]] = {"T": True, "F": False, "U": UNDEFINED, "E": ERROR}


def value_of_tv(t: str) -> Value:
    """The value a logical operator returns for a truth value."""
    return _VALUE_OF_TV[t]


def comparison(op: str) -> Callable[[Value, Value], Value]:
    """The evaluator's own function for comparison `op` (see `compare`), to call often."""
    return ops.BINARY[op]


def compare(op: str, a: Value, b: Value) -> Value:
    """`a op b` for one of `== != < <= > >= =?= =!=` on plain values: the evaluator's own
    operator (`operators.BINARY`), so folding a comparison never disagrees with it."""
    return ops.BINARY[op](a, b)
