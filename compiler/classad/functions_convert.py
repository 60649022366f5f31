"""Value conversions shared by the ClassAd builtin functions (evaluation stage).

HTCondor's libclassad converts between types in a few fixed ways, and every builtin
that "accepts a number" or "accepts anything printable" goes through one of them:

* `to_string`  — `string(x)`: integers in decimal, booleans as `true`/`false`, reals in
  `%.15E` form, lists and nested ads unparsed (`unparse.format_value`), UNDEFINED stays.
* `to_integer` / `to_real` — `int(x)` / `real(x)`: strings are read with C `strtod`
  semantics (leading blanks, `0x` hex floats, `inf`/`nan`, trailing junk ignored), and
  reals become integers with the x86-64 truncating cast (anything out of the 64-bit range,
  and NaN, becomes INT64_MIN).
* Times (value.cpp `convertValueTo*Value`): an absolute time converts to its seconds
  since the epoch; a relative time to its seconds cast to a 32-bit `int` first (so
  `real(relTime(1.5))` is 1.0); `string()` writes them without the `absTime("...")`
  wrapper (`2004-01-01T00:00:00-06:00`, `3+01:14:16`).

ClassAd strings are byte strings in HTCondor (`size("é")` is 2). We keep Python `str`
values and map them to bytes with UTF-8 + `surrogateescape`, so a substring that cuts a
multi-byte character survives the round trip as lone surrogates instead of raising.

This module never evaluates expressions; it only maps already-evaluated values.
"""

from __future__ import annotations

import math
import re
from typing import Final

from compiler.classad.unparse import abs_time_text, format_value, rel_time_text
from compiler.classad.values import ERROR, UNDEFINED, AbsTime, RelTime, Value, c_int32
from compiler.classad.values import wrap32 as wrap32  # re-exported for the builtins

INT64_MIN: Final = -(1 << 63)
INT64_MAX: Final = (1 << 63) - 1
_TWO63: Final = float(1 << 63)

#: C `isspace` in the "C" locale.
C_SPACE: Final = " \t\n\v\f\r"


# --- bytes view of ClassAd strings ----------------------------------------------------


# `to_bytes`/`from_bytes` live in values.py (the representation of strings).


# --- integer arithmetic as the C++ library does it ------------------------------------


# `wrap32` (C++ `long long` -> `int` narrowing) lives in values.py beside `c_int32`.


def c_trunc_div(a: int, b: int) -> int:
    """C integer division (truncates toward zero); `b` must be non-zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def real_to_int64(x: float) -> int:
    """The x86-64 `(long long)` cast: truncation, INT64_MIN when out of range or NaN."""
    if math.isnan(x) or x >= _TWO63 or x < -_TWO63:
        return INT64_MIN
    return int(x)


def _keep_zero_sign(x: float, r: float) -> float:
    """C rounding functions return -0.0 for negative inputs that round to zero."""
    return math.copysign(0.0, x) if r == 0.0 else r


def c_floor(x: float) -> float:
    return x if not math.isfinite(x) else _keep_zero_sign(x, float(math.floor(x)))


def c_ceil(x: float) -> float:
    return x if not math.isfinite(x) else _keep_zero_sign(x, float(math.ceil(x)))


def c_rint(x: float) -> float:
    """C `rint` in the default rounding mode: round half to even."""
    return x if not math.isfinite(x) else _keep_zero_sign(x, float(round(x)))


def _is_odd_integer(y: float) -> bool:
    return math.isfinite(y) and y == math.floor(y) and math.fmod(y, 2.0) != 0.0


def c_pow(x: float, y: float) -> float:
    """C `pow`: returns inf/nan where Python's `math.pow` would raise."""
    try:
        return math.pow(x, y)
    except OverflowError:
        negative = x < 0 and _is_odd_integer(y)
        return -math.inf if negative else math.inf
    except ValueError:
        if x == 0.0 and y < 0:
            negative = math.copysign(1.0, x) < 0 and _is_odd_integer(y)
            return -math.inf if negative else math.inf
        return math.nan


# --- strtod ---------------------------------------------------------------------------

_DEC_RE: Final = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEX_RE: Final = re.compile(
    r"0[xX](?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
)
_INF_RE: Final = re.compile(r"inf(?:inity)?", re.IGNORECASE)
_NAN_RE: Final = re.compile(r"nan(?:\([0-9A-Za-z_]*\))?", re.IGNORECASE)


def strtod_prefix(text: str) -> float | None:
    """Value of the longest prefix C `strtod` accepts, or None when it accepts nothing.

    `"12abc"` -> 12.0, `"  0x1.8p1"` -> 3.0, `"infinit"` -> inf, `"abc"` -> None.
    """
    i = 0
    while i < len(text) and text[i] in C_SPACE:
        i += 1
    sign = 1.0
    if i < len(text) and text[i] in "+-":
        sign = -1.0 if text[i] == "-" else 1.0
        i += 1
    rest = text[i:]
    if m := _HEX_RE.match(rest):
        body = m.group(0)
        if "p" not in body.lower():
            body += "p0"
        try:
            return sign * float.fromhex(body)
        except OverflowError:
            return sign * math.inf
    if m := _DEC_RE.match(rest):
        return sign * float(m.group(0))
    if _INF_RE.match(rest):
        return sign * math.inf
    if _NAN_RE.match(rest):
        return math.nan
    return None


# --- formatting -----------------------------------------------------------------------


# Printing values (reals, strings, lists, ads) is `compiler.classad.unparse`'s job.


# --- the library's convertValueTo* ----------------------------------------------------


def to_string(v: Value) -> Value:
    """`string(v)`: str, or UNDEFINED/ERROR."""
    match v:
        case str():
            return v
        case _ if v is UNDEFINED or v is ERROR:
            return v
        case bool() | int() | float() | list() | tuple() | dict():
            return format_value(v)
        case AbsTime():
            return abs_time_text(v)
        case RelTime(seconds=seconds):
            return rel_time_text(float(c_int32(seconds)))
        case _:
            return ERROR


def to_real(v: Value) -> Value:
    """`real(v)`: float, or UNDEFINED/ERROR."""
    match v:
        case bool():
            return 1.0 if v else 0.0
        case int():
            return float(v)
        case float():
            return v
        case str():
            parsed = strtod_prefix(v)
            return ERROR if parsed is None else parsed
        case AbsTime(seconds=seconds):
            return float(seconds)
        case RelTime(seconds=seconds):
            return float(c_int32(seconds))
        case _ if v is UNDEFINED:
            return UNDEFINED
        case _:
            return ERROR


def to_integer(v: Value) -> Value:
    """`int(v)`: int, or UNDEFINED/ERROR."""
    match v:
        case bool():
            return int(v)
        case int():
            return v
        case float():
            return real_to_int64(v)
        case str():
            parsed = strtod_prefix(v)
            return ERROR if parsed is None else real_to_int64(parsed)
        case AbsTime(seconds=seconds):
            return seconds
        case RelTime(seconds=seconds):
            return c_int32(seconds)
        case _ if v is UNDEFINED:
            return UNDEFINED
        case _:
            return ERROR


def is_exact_int(v: Value) -> bool:
    """The ClassAd INTEGER type (a Python bool is not one)."""
    return isinstance(v, int) and not isinstance(v, bool)
