"""ClassAd's four truth values and the exact operator tables the simplifier reasons with.

Stage: simplifier support (pure data + tiny functions). It never evaluates expressions
from the AST; it only knows how the logical operators combine the truth values of their
operands and how the comparison operators treat *values*, which is what the region
oracle (`regions.py`) needs to check a rewrite exhaustively.

Truth values: `T`, `F`, `U` (UNDEFINED), `E` (ERROR). A value's truth value is what
`&&`, `||`, `!` and `?:` see: booleans as is, numbers by zero-ness (NaN is non-zero, hence
TRUE), strings, lists and ads ERROR (classad-semantics.md section 6).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final, Literal, TypeAlias

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


def tv_of_value(v: Value) -> TV:
    """The truth value `&&`/`||`/`!`/`?:` see for a runtime value."""
    if v is UNDEFINED:
        return "U"
    if v is ERROR:
        return "E"
    if isinstance(v, bool):
        return "T" if v else "F"
    if isinstance(v, int | float):
        return "T" if v != 0 else "F"  # NaN != 0: TRUE, as the oracle says
    return "E"


def value_of_tv(t: str) -> Value:
    """The value a logical operator returns for a truth value."""
    return {"T": True, "F": False, "U": UNDEFINED, "E": ERROR}[t]


def _ascii_lower(s: str) -> str:
    # ClassAd string comparison ignores ASCII letter case only (non-ASCII bytewise).
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


def _is_number(v: Value) -> bool:
    return isinstance(v, bool | int | float) and v is not UNDEFINED and v is not ERROR


_ORDER: Final[dict[str, Callable[[object, object], bool]]] = {
    "<": lambda a, b: a < b,  # type: ignore[operator]
    "<=": lambda a, b: a <= b,  # type: ignore[operator]
    ">": lambda a, b: a > b,  # type: ignore[operator]
    ">=": lambda a, b: a >= b,  # type: ignore[operator]
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


def compare(op: str, a: Value, b: Value) -> Value:
    """`a op b` for one of `== != < <= > >= =?= =!=` on plain values (section 5)."""
    if op in ("=?=", "=!="):
        same = identical(a, b)
        if same is ERROR:
            return ERROR
        return same if op == "=?=" else not same
    if a is ERROR or b is ERROR:
        return ERROR
    if a is UNDEFINED or b is UNDEFINED:
        return UNDEFINED
    if _is_number(a) and _is_number(b):
        if isinstance(a, int) and isinstance(b, int):  # exact, like 64-bit integers
            return _ORDER[op](int(a), int(b))
        return _ORDER[op](float(a), float(b))
    if isinstance(a, str) and isinstance(b, str):
        return _ORDER[op](_ascii_lower(a).encode(), _ascii_lower(b).encode())
    return ERROR


def identical(a: Value, b: Value) -> Value:
    """`a =?= b`: same type and same value. Two lists/ads are ERROR (the oracle), a
    list/ad against anything else is simply not identical."""
    if isinstance(a, list | dict) and isinstance(b, list | dict):
        return ERROR
    if isinstance(a, list | dict) or isinstance(b, list | dict):
        return False
    if a is UNDEFINED or b is UNDEFINED or a is ERROR or b is ERROR:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if isinstance(a, float) and isinstance(b, float):
        return not math.isnan(a) and a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return False
