"""The few ClassAd operators the builtin functions apply to list elements.

`member`, `anyCompare`, `sum`, `min` ... compare or add *values* with the exact operator
semantics of the language (strict UNDEFINED/ERROR, case-insensitive string `==`, numbers
and booleans mixed, lists/ads are ERROR). They work on already-evaluated values, so they
live here rather than in the evaluator, which owns the operators on expressions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

from compiler.classad.functions_convert import to_bytes, wrap64
from compiler.classad.values import ERROR, UNDEFINED, Value

Compare = Callable[[Value, Value], Value]


def _numeric(v: Value) -> bool:
    return isinstance(v, int | float)


def _promote(a: int | float, b: int | float) -> tuple[int | float, int | float]:
    """C++ promotes both sides to double when either is real; booleans are 0/1."""
    a, b = int(a) if isinstance(a, bool) else a, int(b) if isinstance(b, bool) else b
    if isinstance(a, float) or isinstance(b, float):
        return float(a), float(b)
    return a, b


def fold_case(s: str) -> bytes:
    """ASCII-only lower-casing, as C `tolower` in the "C" locale."""
    return to_bytes(s).lower()


def strcasecmp(a: str, b: str) -> int:
    """Sign of C `strcasecmp` (-1, 0, 1)."""
    x, y = fold_case(a), fold_case(b)
    return (x > y) - (x < y)


def _relational(test: Callable[[int], bool]) -> Compare:
    """A strict relational operator from a predicate on the three-way comparison."""

    def op(a: Value, b: Value) -> Value:
        if a is ERROR or b is ERROR:
            return ERROR
        if a is UNDEFINED or b is UNDEFINED:
            return UNDEFINED
        if _numeric(a) and _numeric(b):
            x, y = _promote(a, b)
            if isinstance(x, float) and (math.isnan(x) or math.isnan(y)):
                return test(2)  # every ordered comparison with NaN is false, != true
            return test((x > y) - (x < y))
        if isinstance(a, str) and isinstance(b, str):
            return test(strcasecmp(a, b))
        return ERROR

    return op


def meta_equal(a: Value, b: Value) -> Value:
    """`=?=`: same type and same value. Two lists (or two ads) are ERROR; a list or ad
    against anything of another type is simply FALSE."""
    if a is UNDEFINED or a is ERROR or b is UNDEFINED or b is ERROR:
        return a is b
    for container in (list | tuple, dict):
        if isinstance(a, container) and isinstance(b, container):
            return ERROR
    if type(a) is not type(b):
        return False
    return bool(a == b)


def meta_not_equal(a: Value, b: Value) -> Value:
    r = meta_equal(a, b)
    return r if r is ERROR else not r


EQUAL: Final = _relational(lambda c: c == 0)
NOT_EQUAL: Final = _relational(lambda c: c != 0)
LESS: Final = _relational(lambda c: c == -1)
LESS_EQUAL: Final = _relational(lambda c: c in (-1, 0))
GREATER: Final = _relational(lambda c: c == 1)
GREATER_EQUAL: Final = _relational(lambda c: c in (0, 1))

#: The operator spellings `anyCompare`/`allCompare` accept (case-sensitive, exact).
COMPARISONS: Final[dict[str, Compare]] = {
    "<": LESS,
    "<=": LESS_EQUAL,
    "!=": NOT_EQUAL,
    "==": EQUAL,
    ">": GREATER,
    ">=": GREATER_EQUAL,
    "is": meta_equal,
    "isnt": meta_not_equal,
}


def add(a: Value, b: Value) -> Value:
    """Binary `+` on values (strict; a +inf real result is ERROR)."""
    if a is ERROR or b is ERROR:
        return ERROR
    if a is UNDEFINED or b is UNDEFINED:
        return UNDEFINED
    if not (_numeric(a) and _numeric(b)):
        return ERROR
    x, y = _promote(a, b)
    if isinstance(x, float):
        s = x + y
        return ERROR if s == math.inf else s
    return wrap64(int(x) + int(y))


def divide_real(a: Value, n: float) -> Value:
    """`a / n` with a real divisor (used by `avg`)."""
    if a is ERROR or a is UNDEFINED:
        return a
    if not _numeric(a):
        return ERROR
    q = float(a) / n
    return ERROR if q == math.inf else q
