"""ClassAd runtime values as Python objects.

The public representation (DESIGN.md): int, float, bool, str, list, dict (a nested
ClassAd), the two singletons `UNDEFINED` and `ERROR`, and the two time values `AbsTime`
and `RelTime`. Booleans are their own ClassAd type, so code must test
`isinstance(v, bool)` before `isinstance(v, int)`.
"""

from __future__ import annotations

import codecs
from typing import Any, Final, TypeAlias

import msgspec


class _Singleton:
    """A named, falsy-free, pickle-stable singleton value."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name

    def __reduce__(self) -> str:
        return self._name

    def __bool__(self) -> bool:
        # Truthiness of UNDEFINED/ERROR is meaningless in ClassAd logic; refusing it
        # catches evaluator bugs that would silently treat them as Python False.
        raise TypeError(f"{self._name} has no Python truth value; compare with `is`")

    def __copy__(self) -> _Singleton:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _Singleton:
        return self


UNDEFINED: Final = _Singleton("UNDEFINED")
ERROR: Final = _Singleton("ERROR")

#: The Python values an ad may store that are their own value when evaluated (exact
#: types: a bool is not an int here). Tested by `type(v) in PLAIN_TYPES` in hot code.
PLAIN_TYPES: Final = frozenset({bool, int, float, str})


class AbsTime(msgspec.Struct, frozen=True):
    """An absolute time value (`absTime(...)`, `currentTime()`): an instant and the time
    zone it is shown in.

    HTCondor's `abstime_t` (src/classad/classad/util.h): `seconds` since the epoch (UTC)
    and `offset`, seconds east of Greenwich. Only `seconds` takes part in `==`/`<`;
    `=?=` also compares the offset (operators.cpp, `compareAbsoluteTimes`), which is
    what dataclass equality does here.
    """

    seconds: int
    offset: int


class RelTime(msgspec.Struct, frozen=True):
    """A relative time value (`relTime(...)`, `absTime - absTime`): a signed number of
    seconds, possibly fractional (the `double` in HTCondor's `classad::Value`)."""

    seconds: float


INT32_MIN: Final = -(2**31)


def wrap32(n: int) -> int:
    """C++ `long long` -> `int` narrowing (keeps the low 32 bits, signed)."""
    n &= (1 << 32) - 1
    return n - (1 << 32) if n >= (1 << 31) else n


def c_int32(x: float) -> int:
    """C's `(int) x` for a double on x86-64 (`cvttsd2si`): truncation toward zero, and
    INT32_MIN for NaN and anything outside the 32-bit range. HTCondor's time code casts
    seconds this way everywhere (fnCall.cpp `convTime`, operators.cpp
    `doTimeArithmetic`, value.h `IsRelativeTimeValue(time_t&)`)."""
    if x != x or not -2147483649.0 < x < 2147483648.0:
        return INT32_MIN
    return int(x)


#: A ClassAd value: bool | int | float | str | list | dict | AbsTime | RelTime |
#: UNDEFINED | ERROR.
Value: TypeAlias = Any


def _escape_or_pass(err: UnicodeError) -> tuple[bytes, int]:
    """Encoding error handler: a lone surrogate U+DC80..U+DCFF is the byte it stands for
    (`surrogateescape`), any other lone surrogate is written as its 3 UTF-8 bytes
    (`surrogatepass`), so every Python string has a byte view."""
    assert isinstance(err, UnicodeEncodeError)
    out = bytearray()
    for ch in err.object[err.start : err.end]:
        code = ord(ch)
        out += (
            bytes([code - 0xDC00])
            if 0xDC80 <= code <= 0xDCFF
            else ch.encode("utf-8", "surrogatepass")
        )
    return bytes(out), err.end


codecs.register_error("classad-bytes", _escape_or_pass)


def to_bytes(s: str) -> bytes:
    """The byte string HTCondor sees for a Python string.

    HTCondor strings are bytes; the parser keeps bytes that are not UTF-8 as lone
    surrogates (`surrogateescape`), which this turns back into those bytes.
    """
    return s.encode("utf-8", "classad-bytes")


def from_bytes(b: bytes) -> str:
    """Inverse of `to_bytes` (invalid UTF-8 survives as lone surrogates)."""
    return b.decode("utf-8", "surrogateescape")


def is_undefined(v: object) -> bool:
    return v is UNDEFINED


def is_error(v: object) -> bool:
    return v is ERROR


def type_name(v: object) -> str:
    """The ClassAd type name of a value (for messages and JSON tagging)."""
    if v is UNDEFINED:
        return "undefined"
    if v is ERROR:
        return "error"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "real"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list | tuple):
        return "list"
    if isinstance(v, dict):
        return "classad"
    if isinstance(v, AbsTime):
        return "absolute time"
    if isinstance(v, RelTime):
        return "relative time"
    return type(v).__name__
