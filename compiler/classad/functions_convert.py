"""Value conversions shared by the ClassAd builtin functions (evaluation stage).

HTCondor's libclassad converts between types in a few fixed ways, and every builtin
that "accepts a number" or "accepts anything printable" goes through one of them:

* `to_string`  — `string(x)`: integers in decimal, booleans as `true`/`false`, reals in
  `%.15E` form (see `format_real`), lists and nested ads unparsed, UNDEFINED stays.
* `to_integer` / `to_real` — `int(x)` / `real(x)`: strings are read with C `strtod`
  semantics (leading blanks, `0x` hex floats, `inf`/`nan`, trailing junk ignored), and
  reals become integers with the x86-64 truncating cast (anything out of the 64-bit range,
  and NaN, becomes INT64_MIN).

ClassAd strings are byte strings in HTCondor (`size("é")` is 2). We keep Python `str`
values and map them to bytes with UTF-8 + `surrogateescape`, so a substring that cuts a
multi-byte character survives the round trip as lone surrogates instead of raising.

This module never evaluates expressions; it only maps already-evaluated values.
"""

from __future__ import annotations

import math
import re
from typing import Final

from compiler.classad.values import ERROR, UNDEFINED, Value

INT64_MIN: Final = -(1 << 63)
INT64_MAX: Final = (1 << 63) - 1
_TWO63: Final = float(1 << 63)

#: C `isspace` in the "C" locale.
C_SPACE: Final = " \t\n\v\f\r"


# --- bytes view of ClassAd strings ----------------------------------------------------


def to_bytes(s: str) -> bytes:
    """The byte string HTCondor sees for a Python string."""
    return s.encode("utf-8", "surrogateescape")


def from_bytes(b: bytes) -> str:
    """Inverse of `to_bytes` (invalid UTF-8 survives as lone surrogates)."""
    return b.decode("utf-8", "surrogateescape")


# --- integer arithmetic as the C++ library does it ------------------------------------


def wrap64(n: int) -> int:
    """Two's-complement wrap of a Python int into the signed 64-bit range."""
    n &= (1 << 64) - 1
    return n - (1 << 64) if n >= (1 << 63) else n


def wrap32(n: int) -> int:
    """C++ `long long` -> `int` narrowing (keeps the low 32 bits, signed)."""
    n &= (1 << 32) - 1
    return n - (1 << 32) if n >= (1 << 31) else n


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


def format_real(x: float) -> str:
    """A real as HTCondor prints it (`string()`, `strcat()`, unparse).

    `%.15E` (`1.500000000000000E+00`), except zeros (`0.0`, `-0.0`) and the
    non-finite values, which print as the expression that would rebuild them.
    """
    if math.isnan(x):
        return 'real("NaN")'
    if math.isinf(x):
        return 'real("INF")' if x > 0 else 'real("-INF")'
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    return f"{x:.15E}"


_NAMED_ESCAPES: Final = {
    0x07: "\\a",
    0x08: "\\b",
    0x09: "\\t",
    0x0A: "\\n",
    0x0B: "\\v",
    0x0C: "\\f",
    0x0D: "\\r",
    0x5C: "\\\\",
}


def quote_string(s: str, quote: str = '"') -> str:
    """A literal as HTCondor unparses it: C escapes, octal for other bytes below space
    or above `~`, and a backslash before the quote character (`"` for strings, `'` for
    attribute names)."""
    out = [quote]
    for byte in to_bytes(s):
        if byte in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[byte])
        elif byte == ord(quote):
            out.append("\\" + quote)
        elif byte < 0x20 or byte >= 0x7F:
            out.append(f"\\{byte:03o}")
        else:
            out.append(chr(byte))
    out.append(quote)
    return "".join(out)


_IDENT_RE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KEYWORDS: Final = frozenset({"true", "false", "undefined", "error", "is", "isnt"})


def _attr_name(name: str) -> str:
    if _IDENT_RE.match(name) and name.lower() not in _KEYWORDS:
        return name
    return quote_string(name, "'")


def attribute_order(name: str) -> tuple[int, bytes]:
    """Sort key of HTCondor's attribute storage: shorter names first, then
    case-insensitively (`strcasecmp`). Ads print their attributes in this order:
    `[zeta=1; Alpha=2; a1=3]` prints as `[ a1 = 3; zeta = 1; Alpha = 2 ]`."""
    data = to_bytes(name)
    return len(data), data.lower()


def unparse_value(v: Value) -> str:
    """The ClassAd text of an evaluated value, in HTCondor's compact unparse style.

    Lists: `{ 1,"a" }`; ads: `[ a = 1; b = 2 ]`, attributes in HTCondor's storage
    order (see `attribute_order`).
    """
    match v:
        case _ if v is UNDEFINED:
            return "undefined"
        case _ if v is ERROR:
            return "error"
        case bool():
            return "true" if v else "false"
        case int():
            return str(v)
        case float():
            return format_real(v)
        case str():
            return quote_string(v)
        case list() | tuple():
            return "{ " + ",".join(unparse_value(e) for e in v) + " }"
        case dict():
            body = "; ".join(
                f"{_attr_name(k)} = {unparse_value(v[k])}" for k in sorted(v, key=attribute_order)
            )
            return "[ " + body + " ]"
        case _:
            raise TypeError(f"not a ClassAd value: {v!r}")


# --- the library's convertValueTo* ----------------------------------------------------


def to_string(v: Value) -> Value:
    """`string(v)`: str, or UNDEFINED/ERROR."""
    match v:
        case str():
            return v
        case _ if v is UNDEFINED or v is ERROR:
            return v
        case bool() | int() | float() | list() | tuple() | dict():
            return format_real(v) if isinstance(v, float) else unparse_value(v)
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
        case _ if v is UNDEFINED:
            return UNDEFINED
        case _:
            return ERROR


def is_exact_int(v: Value) -> bool:
    """The ClassAd INTEGER type (a Python bool is not one)."""
    return isinstance(v, int) and not isinstance(v, bool)
