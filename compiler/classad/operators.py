"""ClassAd value semantics, the one source: truth, comparison (strings case-folded as
bytes), identity (`=?=`), arithmetic and the 64-bit wrap, on evaluated values.

Stage: evaluation. Used by the interpreter, the compiled closures, the builtin
functions over list elements (`member`, `anyCompare`, `sum`, `min`...) and the
simplifier's constant folding and three-valued tables, so none of them can disagree.

Pure functions from values to a value; they never raise for bad input, they return
ERROR, exactly as HTCondor 25.14.1 does (shared/reference/classad-semantics.md sections
3-7), times included (`values.AbsTime`/`RelTime`, operators.cpp `doTimeArithmetic`,
`compareAbsoluteTimes`, `compareRelativeTimes`). The lazy operators (`&&`, `||`, `?:`, elvis) only need `truth` from here: their
laziness lives in the evaluators.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

from compiler.classad.scope import LazyList
from compiler.classad.values import ERROR, UNDEFINED, AbsTime, RelTime, c_int32, to_bytes

Value = Any
BinaryFn = Callable[[Value, Value], Value]

INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1
_MASK64: Final = 2**64 - 1
_INF: Final = math.inf

# ASCII-only case folding: HTCondor compares strings with strcasecmp (tolower in the
# C locale), so `"é" == "É"` is FALSE while `"a" == "A"` is TRUE.
_ASCII_LOWER: Final = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(text: str) -> str:
    return text.translate(_ASCII_LOWER)


def fold_case(text: str) -> bytes:
    """The bytes HTCondor's `strcasecmp` compares: `tolower` in the C locale (ASCII
    letters only) of the string's bytes (classad::Value string comparison)."""
    return to_bytes(text).lower()


def strcasecmp(a: str, b: str) -> int:
    """Sign of C `strcasecmp` (-1, 0, 1)."""
    x, y = fold_case(a), fold_case(b)
    return (x > y) - (x < y)


def wrap64(value: int) -> int:
    """Two's-complement wrap into a signed 64-bit integer."""
    value &= _MASK64
    return value - 2**64 if value > INT64_MAX else value


def truth(v: Value) -> Value:
    """A value as an operand of `&&`, `||`, `!`, `?:`: True, False, UNDEFINED or ERROR.

    HTCondor's `Value::IsBooleanValueEquiv` (src/classad/value.cpp): a boolean is itself,
    a number is TRUE when non-zero (NaN is non-zero, so TRUE), anything else has no truth
    value. The startd's boolean test (`compiler.table.holds`) is this being True.
    """
    t = type(v)
    if t is bool:
        return v
    if t is int or t is float:
        return v != 0
    if v is UNDEFINED:
        return UNDEFINED
    return ERROR


def _strict(a: Value, b: Value) -> Value | None:
    """ERROR if either operand is ERROR, else UNDEFINED if either is, else None."""
    if a is ERROR or b is ERROR:
        return ERROR
    if a is UNDEFINED or b is UNDEFINED:
        return UNDEFINED
    return None


def _real_result(x: float) -> Value:
    # +inf from an operation is an error in HTCondor; -inf and NaN are values.
    return ERROR if x == _INF else x


def _numbers(a: Value, b: Value) -> tuple[Any, Any] | None:
    """Both operands as numbers (booleans become 0/1), or None if either is not one."""
    ta, tb = type(a), type(b)
    if ta is bool:
        a = int(a)
    elif ta is not int and ta is not float:
        return None
    if tb is bool:
        b = int(b)
    elif tb is not int and tb is not float:
        return None
    return a, b


def _real_div(x: float, y: float) -> float:
    if y == 0.0:
        if x == 0.0 or math.isnan(x):
            return math.nan
        return math.copysign(_INF, x) * math.copysign(1.0, y)
    return x / y


_TIMES: Final = (AbsTime, RelTime)


def _time_arithmetic(op: str, a: Value, b: Value) -> Value:
    """`+ - * /` with a time operand (operators.cpp `doTimeArithmetic`): absolute +/-
    relative (the relative seconds cast to a 32-bit `int`), absolute - absolute,
    relative +/- relative, relative * or / a number, a number * relative. Anything else,
    booleans included, is ERROR. A relative time divided by zero is not an error (the
    division is done in `double`)."""
    ta, tb = type(a), type(b)
    if op == "+":
        if ta is AbsTime and tb is RelTime:
            return AbsTime(wrap64(a.seconds + c_int32(b.seconds)), a.offset)
        if ta is RelTime and tb is AbsTime:
            return AbsTime(wrap64(b.seconds + c_int32(a.seconds)), b.offset)
        if ta is RelTime and tb is RelTime:
            return RelTime(a.seconds + b.seconds)
    elif op == "-":
        if ta is AbsTime and tb is AbsTime:
            return RelTime(float(wrap64(a.seconds - b.seconds)))
        if ta is AbsTime and tb is RelTime:
            return AbsTime(wrap64(a.seconds - c_int32(b.seconds)), a.offset)
        if ta is RelTime and tb is RelTime:
            return RelTime(a.seconds - b.seconds)
    elif op in ("*", "/"):
        if ta is RelTime and (tb is int or tb is float):
            if op == "*":
                return RelTime(a.seconds * b)
            return RelTime(_real_div(a.seconds, float(b)))
        if (ta is int or ta is float) and tb is RelTime and op == "*":
            return RelTime(a * b.seconds)
    return ERROR


def _is_time(a: Value, b: Value) -> bool:
    return type(a) in _TIMES or type(b) in _TIMES


def add(a: Value, b: Value) -> Value:
    if (bad := _strict(a, b)) is not None:
        return bad
    if (nums := _numbers(a, b)) is None:
        return _time_arithmetic("+", a, b) if _is_time(a, b) else ERROR
    x, y = nums
    if type(x) is int and type(y) is int:
        return wrap64(x + y)
    return _real_result(float(x) + float(y))


def subtract(a: Value, b: Value) -> Value:
    if (bad := _strict(a, b)) is not None:
        return bad
    if (nums := _numbers(a, b)) is None:
        return _time_arithmetic("-", a, b) if _is_time(a, b) else ERROR
    x, y = nums
    if type(x) is int and type(y) is int:
        return wrap64(x - y)
    return _real_result(float(x) - float(y))


def multiply(a: Value, b: Value) -> Value:
    if (bad := _strict(a, b)) is not None:
        return bad
    if (nums := _numbers(a, b)) is None:
        return _time_arithmetic("*", a, b) if _is_time(a, b) else ERROR
    x, y = nums
    if type(x) is int and type(y) is int:
        return wrap64(x * y)
    return _real_result(float(x) * float(y))


def divide(a: Value, b: Value) -> Value:
    if (bad := _strict(a, b)) is not None:
        return bad
    if (nums := _numbers(a, b)) is None:
        return _time_arithmetic("/", a, b) if _is_time(a, b) else ERROR
    x, y = nums
    if type(x) is int and type(y) is int:
        if y == 0:
            return ERROR
        if x == INT64_MIN and y == -1:
            return INT64_MAX
        q = abs(x) // abs(y)
        return q if (x < 0) == (y < 0) else -q
    return _real_result(_real_div(float(x), float(y)))


def modulo(a: Value, b: Value) -> Value:
    if (bad := _strict(a, b)) is not None:
        return bad
    if (nums := _numbers(a, b)) is None:
        return ERROR
    x, y = nums
    if type(x) is not int or type(y) is not int or y == 0:
        return ERROR
    if y == -1:
        return 0
    r = abs(x) % abs(y)
    return -r if x < 0 else r


def _integers(a: Value, b: Value) -> Value:
    if (bad := _strict(a, b)) is not None:
        return bad
    if type(a) is not int or type(b) is not int:
        return ERROR
    return None


def bit_and(a: Value, b: Value) -> Value:
    return bad if (bad := _integers(a, b)) is not None else a & b


def bit_or(a: Value, b: Value) -> Value:
    return bad if (bad := _integers(a, b)) is not None else a | b


def bit_xor(a: Value, b: Value) -> Value:
    return bad if (bad := _integers(a, b)) is not None else a ^ b


# Shifts reproduce what HTCondor's compiled code does with counts outside 0..63
# (undefined behaviour in C; all 336 combinations of edge values checked against the
# oracle): `<<` and `>>>` use the count modulo 64 (`1 << 64` is 1, `1 << -1` is
# INT64_MIN) except that `>>>` of a negative number by a multiple of 64 gives 0; `>>`
# of a negative number shifts by nothing for counts <= 0 and gives -1 from 63 on.
def shift_left(a: Value, b: Value) -> Value:
    return bad if (bad := _integers(a, b)) is not None else wrap64(a << (b & 63))


def shift_right(a: Value, b: Value) -> Value:
    if (bad := _integers(a, b)) is not None:
        return bad
    if a >= 0:
        return a >> (b & 63)
    if b <= 0:
        return a
    return -1 if b >= 63 else a >> b


def shift_right_logical(a: Value, b: Value) -> Value:
    if (bad := _integers(a, b)) is not None:
        return bad
    count = b & 63
    if a < 0 and count == 0:
        return 0
    return wrap64((a & _MASK64) >> count)


def _ordered(a: Value, b: Value) -> tuple[Any, Any] | Value:
    """Operands made comparable (numbers as C compares them, strings case-folded)."""
    ta, tb = type(a), type(b)
    if ta is str and tb is str:
        if a.isascii() and b.isascii():  # then code point order is byte order
            return ascii_lower(a), ascii_lower(b)
        return fold_case(a), fold_case(b)  # strings are bytes (see values.to_bytes)
    if (nums := _numbers(a, b)) is None:
        if ta is tb and ta in _TIMES:  # two absolute or two relative times
            return a.seconds, b.seconds
        return ERROR
    x, y = nums
    if type(x) is not type(y):  # int against real: the int is converted first
        return float(x), float(y)
    return x, y


def _comparison(test: Callable[[Any, Any], bool]) -> BinaryFn:
    def compare(a: Value, b: Value) -> Value:
        ta = type(a)
        if ta is type(b) and (ta is int or ta is float):  # what `_ordered` gives them
            return test(a, b)
        if (bad := _strict(a, b)) is not None:
            return bad
        pair = _ordered(a, b)
        if pair is ERROR:
            return ERROR
        return test(*pair)

    return compare


less = _comparison(lambda x, y: x < y)
less_equal = _comparison(lambda x, y: x <= y)
greater = _comparison(lambda x, y: x > y)
greater_equal = _comparison(lambda x, y: x >= y)
equal = _comparison(lambda x, y: x == y)
not_equal = _comparison(lambda x, y: x != y)

_SCALAR_TYPES: Final = (bool, int, float, str, AbsTime, RelTime)


def _kind(v: Value) -> type:
    t = type(v)
    if t in _SCALAR_TYPES:
        return t
    return list if isinstance(v, list | tuple | LazyList) else dict


def identical(a: Value, b: Value) -> Value:
    """`=?=` / `is`: same type and same value, never UNDEFINED.

    Values of different types are simply not identical; two lists or two ads cannot
    be compared at all (ERROR), as in HTCondor. Absolute times must agree in seconds
    and offset, relative times in seconds (`compareAbsoluteTimes`, dataclass equality).
    """
    if a is UNDEFINED or a is ERROR or b is UNDEFINED or b is ERROR:
        return a is b
    kind = _kind(a)
    if kind is not _kind(b):
        return False
    if kind is list or kind is dict:
        return ERROR
    return a == b


def not_identical(a: Value, b: Value) -> Value:
    same = identical(a, b)
    return same if same is ERROR else not same


#: The strict binary operators, by the symbol `unparse` writes.
BINARY: Final[dict[str, BinaryFn]] = {
    "+": add,
    "-": subtract,
    "*": multiply,
    "/": divide,
    "%": modulo,
    "&": bit_and,
    "|": bit_or,
    "^": bit_xor,
    "<<": shift_left,
    ">>": shift_right,
    ">>>": shift_right_logical,
    "<": less,
    "<=": less_equal,
    ">": greater,
    ">=": greater_equal,
    "==": equal,
    "!=": not_equal,
    "=?=": identical,
    "=!=": not_identical,
}


def negate(v: Value) -> Value:
    t = type(v)
    if t is int:
        return wrap64(-v)
    if t is float:
        return -v
    if t is RelTime:
        return RelTime(-v.seconds)
    return v if v is UNDEFINED or v is ERROR else ERROR


def plus(v: Value) -> Value:
    """Unary `+`: numbers and relative times are themselves (operators.cpp
    `_doOperation` refuses only booleans, strings, lists, ads and absolute times)."""
    t = type(v)
    if t is int or t is float or t is RelTime:
        return v
    return v if v is UNDEFINED or v is ERROR else ERROR


def logical_not(v: Value) -> Value:
    t = truth(v)
    return t if t is UNDEFINED or t is ERROR else not t


def bit_not(v: Value) -> Value:
    if type(v) is int:
        return ~v
    return v if v is UNDEFINED or v is ERROR else ERROR


UNARY: Final[dict[str, Callable[[Value], Value]]] = {
    "-": negate,
    "+": plus,
    "!": logical_not,
    "~": bit_not,
}
