"""ClassAd builtins over lists: membership, comparisons, aggregates, `size`.

Stage: evaluation. Arguments arrive evaluated (list elements too). The behaviour of
every corner (UNDEFINED elements skipped or decisive, booleans counted as numbers or
not, the result type of `min` over mixed ints and reals) was probed against HTCondor
25.14.1; the docstrings name the rule, the tests check it against the oracle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from compiler.classad import operators as ops
from compiler.classad.functions_context import FunctionContext, FunctionImpl
from compiler.classad.values import ERROR, UNDEFINED, Value, to_bytes

Compare = Callable[[Value, Value], Value]

#: The operator spellings `anyCompare`/`allCompare` accept (case-sensitive, exact).
COMPARISONS: Final[dict[str, Compare]] = {
    "<": ops.less,
    "<=": ops.less_equal,
    "!=": ops.not_equal,
    "==": ops.equal,
    ">": ops.greater,
    ">=": ops.greater_equal,
    "is": ops.identical,
    "isnt": ops.not_identical,
}


def _is_list(v: Value) -> bool:
    return isinstance(v, list | tuple)


def _membership(args: list[Value], identical: bool) -> Value:
    """`member(x, L)` (`==`) / `identicalMember(x, L)` (`=?=`).

    UNDEFINED list -> UNDEFINED; for `member` an UNDEFINED needle -> UNDEFINED and an
    ERROR needle -> ERROR; a list/ad needle or a non-list haystack -> ERROR. Elements
    whose comparison is not TRUE (type mismatch, UNDEFINED, ERROR) are simply skipped.
    """
    if len(args) != 2:
        return ERROR
    needle, haystack = args
    if haystack is UNDEFINED or (not identical and needle is UNDEFINED):
        return UNDEFINED
    if not _is_list(haystack) or _is_list(needle) or isinstance(needle, dict):
        return ERROR
    if not identical and needle is ERROR:
        return ERROR
    compare: Compare = ops.identical if identical else ops.equal
    return any(compare(element, needle) is True for element in haystack)


def member(args: list[Value], _ctx: FunctionContext) -> Value:
    return _membership(args, identical=False)


def identical_member(args: list[Value], _ctx: FunctionContext) -> Value:
    return _membership(args, identical=True)


def _list_compare(args: list[Value], need_all: bool) -> Value:
    """`anyCompare(op, L, x)` / `allCompare(op, L, x)`.

    `op` is one of `< <= == != > >= is isnt` (exact spelling). Elements are compared
    in order; the first comparison that is UNDEFINED ends the scan with FALSE (for both
    functions), one that is ERROR (or not boolean) gives ERROR.
    """
    if len(args) != 3:
        return ERROR
    op_name, values, target = args
    if op_name is UNDEFINED:
        return UNDEFINED
    if not isinstance(op_name, str) or op_name not in COMPARISONS:
        return ERROR
    if values is UNDEFINED:
        return UNDEFINED
    if not _is_list(values):
        return ERROR
    compare = COMPARISONS[op_name]
    for element in values:
        result = compare(element, target)
        if result is UNDEFINED:
            return False
        if not isinstance(result, bool):
            return ERROR
        if result != need_all:
            return result
    return need_all


def any_compare(args: list[Value], _ctx: FunctionContext) -> Value:
    return _list_compare(args, need_all=False)


def all_compare(args: list[Value], _ctx: FunctionContext) -> Value:
    return _list_compare(args, need_all=True)


def _numbers(args: list[Value]) -> list[Value] | Value:
    """The defined elements of the single list argument, or the early result.

    UNDEFINED argument -> UNDEFINED; non-list or a non-numeric defined element (string,
    list, ad, ERROR) -> ERROR. Booleans count as numbers.
    """
    if len(args) != 1:
        return ERROR
    (values,) = args
    if values is UNDEFINED:
        return UNDEFINED
    if not _is_list(values):
        return ERROR
    defined = [e for e in values if e is not UNDEFINED]
    if any(not isinstance(e, int | float) for e in defined):
        return ERROR
    return defined


def _sum(defined: list[Value]) -> Value:
    """Left fold with `+`; no elements -> integer 0; one element -> itself (a lone
    boolean stays boolean)."""
    if not defined:
        return 0
    total: Value = defined[0]
    for e in defined[1:]:
        total = ops.add(total, e)
    return total


def sum_(args: list[Value], _ctx: FunctionContext) -> Value:
    defined = _numbers(args)
    return defined if not isinstance(defined, list) else _sum(defined)


def avg(args: list[Value], _ctx: FunctionContext) -> Value:
    """Sum of the defined elements divided by their count, as a real; none -> integer 0."""
    defined = _numbers(args)
    if not isinstance(defined, list):
        return defined
    if not defined:
        return 0
    return ops.divide(_sum(defined), float(len(defined)))  # a real divisor: a real mean


def _bound(args: list[Value], better: Compare) -> Value:
    """`min`/`max`: first strictly better element wins ties; with two or more elements
    the result is real if any element is real, else integer (booleans become 0/1)."""
    defined = _numbers(args)
    if not isinstance(defined, list):
        return defined
    if not defined:
        return UNDEFINED
    if len(defined) == 1:
        return defined[0]
    best = defined[0]
    for e in defined[1:]:
        if better(e, best) is True:
            best = e
    if any(isinstance(e, float) for e in defined):
        return float(best)
    return int(best)


def min_(args: list[Value], _ctx: FunctionContext) -> Value:
    return _bound(args, ops.less)


def max_(args: list[Value], _ctx: FunctionContext) -> Value:
    return _bound(args, ops.greater)


def size(args: list[Value], _ctx: FunctionContext) -> Value:
    """Length of a string (in bytes), a list, or an ad (attribute count)."""
    if len(args) != 1:
        return ERROR
    (v,) = args
    match v:
        case _ if v is UNDEFINED:
            return UNDEFINED
        case str():
            return len(to_bytes(v))
        case list() | tuple() | dict():
            return len(v)
        case _:
            return ERROR


BUILTINS: dict[str, FunctionImpl] = {
    "member": member,
    "identicalmember": identical_member,
    "anycompare": any_compare,
    "allcompare": all_compare,
    "sum": sum_,
    "avg": avg,
    "min": min_,
    "max": max_,
    "size": size,
}
