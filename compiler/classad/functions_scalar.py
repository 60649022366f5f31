"""ClassAd builtins on single values: type tests, conversions, rounding and math,
`time`, `random`, `interval`, `debug`.

Stage: evaluation; arguments are already evaluated. Wrong argument counts give ERROR.
Where HTCondor's C++ behaviour is a machine artefact (the truncating cast of huge reals
to INT64_MIN, `pow` adding 0.5 before truncating, 32-bit narrowing of `random` and
`interval` arguments) we reproduce it, because policies are judged by what the daemons
compute, not by what the manual intends.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from compiler.classad.functions_context import FunctionContext, FunctionImpl
from compiler.classad.functions_convert import (
    c_ceil,
    c_floor,
    c_pow,
    c_rint,
    c_trunc_div,
    is_exact_int,
    real_to_int64,
    to_integer,
    to_real,
    to_string,
    wrap32,
)
from compiler.classad.operators import fold_case, wrap64
from compiler.classad.values import ERROR, UNDEFINED, AbsTime, RelTime, Value, c_int32

# --- type predicates ------------------------------------------------------------------


def _predicate(test: Callable[[Value], bool]) -> FunctionImpl:
    def impl(args: list[Value], _ctx: FunctionContext) -> Value:
        return test(args[0]) if len(args) == 1 else ERROR

    return impl


_TYPE_TESTS: dict[str, Callable[[Value], bool]] = {
    "isundefined": lambda v: v is UNDEFINED,
    "iserror": lambda v: v is ERROR,
    "isstring": lambda v: isinstance(v, str),
    "isinteger": is_exact_int,
    "isreal": lambda v: isinstance(v, float),
    "isboolean": lambda v: isinstance(v, bool),
    "islist": lambda v: isinstance(v, list | tuple),
    "isclassad": lambda v: isinstance(v, dict),
    "isabstime": lambda v: isinstance(v, AbsTime),
    "isreltime": lambda v: isinstance(v, RelTime),
}


# --- conversions ----------------------------------------------------------------------


def _unary(convert: Callable[[Value], Value]) -> FunctionImpl:
    def impl(args: list[Value], _ctx: FunctionContext) -> Value:
        return convert(args[0]) if len(args) == 1 else ERROR

    return impl


def _to_bool(v: Value) -> Value:
    """`bool(x)`: numbers by zero-ness, strings only "true"/"false" in any case
    (anything else UNDEFINED), a relative time by its 32-bit whole seconds; lists, ads,
    absolute times and ERROR -> ERROR (fnCall.cpp `convBool`)."""
    match v:
        case bool():
            return v
        case RelTime(seconds=seconds):
            return c_int32(seconds) != 0
        case int() | float():
            return v != 0
        case str():
            folded = fold_case(v)
            return {b"true": True, b"false": False}.get(folded, UNDEFINED)
        case _ if v is UNDEFINED:
            return UNDEFINED
        case _:
            return ERROR


# --- rounding and math ----------------------------------------------------------------


def _rounding(method: Callable[[float], float]) -> FunctionImpl:
    """floor/ceiling/round: an integer passes through; anything else is converted with
    `real()` (UNDEFINED -> ERROR) and the rounded real is cast to a 64-bit integer."""

    def impl(args: list[Value], _ctx: FunctionContext) -> Value:
        if len(args) != 1:
            return ERROR
        (v,) = args
        if is_exact_int(v):
            return v
        r = to_real(v)
        return real_to_int64(method(r)) if isinstance(r, float) else ERROR

    return impl


def pow_(args: list[Value], _ctx: FunctionContext) -> Value:
    """`pow(b, e)`: integer result for integer b and integer e >= 0 (computed in double,
    plus 0.5, truncated: so `pow(-2, 3)` is -7), otherwise a real; UNDEFINED -> ERROR."""
    if len(args) != 2:
        return ERROR
    base, exponent = args
    if is_exact_int(base) and is_exact_int(exponent) and exponent >= 0:
        return real_to_int64(c_pow(float(base), float(exponent)) + 0.5)
    b, e = to_real(base), to_real(exponent)
    if not (isinstance(b, float) and isinstance(e, float)):
        return ERROR
    return c_pow(b, e)


_QUANTIZE_EPSILON = 1e-8


def _quantize_base(value: float, base_arg: Value) -> tuple[Value, Value] | Value:
    """The base to quantize on: `(base value, early result or None)`.

    A list picks its first element >= value (returned as is, whatever its type); past
    the end the last element is the base; an empty list means "do not quantize".
    """
    if not isinstance(base_arg, list | tuple):
        return (base_arg, None) if isinstance(to_real(base_arg), float) else ERROR
    base: Value = 0.0
    for element in base_arg:
        r = to_real(element)
        if not isinstance(r, float):
            return ERROR
        if r >= value:
            return (element, element)
        base = element
    return (base, None)


def quantize(args: list[Value], _ctx: FunctionContext) -> Value:
    """`quantize(a, b)`: the smallest multiple of b that is >= a (see `_quantize_base`
    for list b). Integer a and b give an integer; a base of 0 (or a real base within
    1e-8 of 0) returns a unchanged."""
    if len(args) != 2:
        return ERROR
    arg, base_arg = args
    value = to_real(arg)
    if not isinstance(value, float):
        return ERROR
    chosen = _quantize_base(value, base_arg)
    if not isinstance(chosen, tuple):
        return chosen
    base, early = chosen
    if early is not None:
        return early
    if is_exact_int(base):
        if base == 0:
            return arg
        if is_exact_int(arg):
            return wrap64(c_trunc_div(wrap64(arg + base - 1), base) * base)
        return c_ceil(value / base) * base
    rbase = to_real(base)
    assert isinstance(rbase, float)
    if -_QUANTIZE_EPSILON <= rbase <= _QUANTIZE_EPSILON:
        return arg
    return c_ceil(value / rbase) * rbase


# --- time, random, interval, debug ----------------------------------------------------


def time_(args: list[Value], ctx: FunctionContext) -> Value:
    return ctx.now() if not args else ERROR


def random_(args: list[Value], ctx: FunctionContext) -> Value:
    """`random()` real in [0,1); `random(n)` integer in [0,n) (n narrowed to 32 bits);
    `random(x)` real in [0,x). Non-positive bounds make HTCondor's evaluation fail; we
    answer ERROR."""
    if len(args) > 1:
        return ERROR
    bound: Value = args[0] if args else 1.0
    if is_exact_int(bound):
        n = wrap32(bound)
        return ctx.rng.randrange(n) if n > 0 else ERROR
    if isinstance(bound, float) and (bound > 0 or math.isnan(bound)):
        return bound * ctx.rng.random()
    return ERROR


def interval(args: list[Value], _ctx: FunctionContext) -> Value:
    """`interval(secs)`: `[days+]hh:mm:ss` with leading zero fields dropped."""
    if len(args) != 1:
        return ERROR
    n = to_integer(args[0])
    if not isinstance(n, int):
        return ERROR
    total = wrap32(n)
    days = c_trunc_div(total, 86400)
    total -= days * 86400
    hours = c_trunc_div(total, 3600)
    total -= hours * 3600
    minutes = c_trunc_div(total, 60)
    seconds = total - minutes * 60
    if days:
        return f"{days}+{abs(hours):02d}:{abs(minutes):02d}:{abs(seconds):02d}"
    if hours:
        return f"{hours}:{abs(minutes):02d}:{abs(seconds):02d}"
    if minutes:
        return f"{minutes}:{abs(seconds):02d}"
    return f"{seconds}"


def debug(args: list[Value], _ctx: FunctionContext) -> Value:
    """`debug(x)` is `x` (HTCondor also logs it)."""
    return args[0] if len(args) == 1 else ERROR


BUILTINS: dict[str, FunctionImpl] = {
    **{name: _predicate(test) for name, test in _TYPE_TESTS.items()},
    "int": _unary(to_integer),
    "real": _unary(to_real),
    "string": _unary(to_string),
    "bool": _unary(_to_bool),
    "floor": _rounding(c_floor),
    "ceiling": _rounding(c_ceil),
    "ceil": _rounding(c_ceil),
    "round": _rounding(c_rint),
    "pow": pow_,
    "quantize": quantize,
    "time": time_,
    "random": random_,
    "interval": interval,
    "debug": debug,
}
