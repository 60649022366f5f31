"""Numbers and values at configuration time: what `$INT`, `$REAL`, `$EVAL`, `$STRING`,
`$CHOICE` and `$SUBSTR` make of a text.

HTCondor reads a number the cheap way first (`strtoll` / `strtod` with trailing blanks
allowed) and otherwise parses the text as a ClassAd expression and evaluates it in an
empty ad (src/condor_utils/condor_config.cpp, `string_is_long_param` and
`string_is_double_param`; config.cpp, `evaluate_macro_func` for `$EVAL` / `$STRING`),
in old ClassAd syntax (compat_classad_util.cpp, `ParseClassAdRvalExpr`: a backslash in
a string is literal except before `"`).
So `$INT(X)` of `(17)*60 + 0.5` is 1020, of `true` is 1, of `0x10` is nothing (ClassAd
has no hex literals) while `$REAL(X)` of `0x10` is 16 (strtod reads hex). The ClassAd
side goes through the project's evaluator; nothing here calls Python's `eval`.
"""

from __future__ import annotations

import math
import re

from compiler.classad import ClassAdSyntaxError, evaluate, format_value, parse

#: Appended before parsing: HTCondor ends a `//` comment at the end of the text too
#: (`$EVAL(a//)` is `undefined`), our parser only at a newline.
_END = "\n"
_LLONG_MIN, _LLONG_MAX = -(2**63), 2**63 - 1
#: C's isspace in the "C" locale.
_BLANKS = " \t\n\v\f\r"
_DECIMAL_INT = re.compile(rf"[{_BLANKS}]*([-+]?[0-9]+)[{_BLANKS}]*\Z")
_DECIMAL_REAL = re.compile(
    rf"[{_BLANKS}]*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)[{_BLANKS}]*\Z"
)
_HEX_REAL = re.compile(
    rf"[{_BLANKS}]*([-+]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][-+]?[0-9]+)?)"
    rf"[{_BLANKS}]*\Z"
)
_SPECIAL_REAL = re.compile(
    rf"[{_BLANKS}]*([-+]?(?:inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?))[{_BLANKS}]*\Z",
    re.IGNORECASE,
)


def _evaluated(text: str) -> object:
    """The value of `text` as a ClassAd expression in an empty ad; None if it does not parse."""
    try:
        expr = parse(text + _END, old_strings=True)
    except ClassAdSyntaxError:
        return None
    return evaluate(expr)


def _to_long(value: float) -> int:
    """C's `(long long)` of a double, with x86's answer for what C leaves undefined."""
    if math.isnan(value) or not _LLONG_MIN <= value < 2.0**63:
        return _LLONG_MIN
    return int(value)


def config_integer(text: str) -> int | None:
    """`string_is_long_param`: the integer `text` means, or None if it means none."""
    found = _DECIMAL_INT.match(text)
    if found:
        return max(_LLONG_MIN, min(_LLONG_MAX, int(found.group(1))))
    value = _evaluated(text)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return _to_long(value)
    return None


def config_real(text: str) -> float | None:
    """`string_is_double_param`: the real `text` means, or None if it means none."""
    if found := _DECIMAL_REAL.match(text):
        return float(found.group(1))
    if found := _HEX_REAL.match(text):
        number = found.group(1)
        if "p" not in number.lower():
            number += "p0"
        return float.fromhex(number)
    if found := _SPECIAL_REAL.match(text):
        word = found.group(1).lower()
        sign = -1.0 if word.startswith("-") else 1.0
        return sign * (math.inf if "inf" in word else math.nan)
    value = _evaluated(text)
    if isinstance(value, bool | int | float):
        return float(value)
    return None


def config_string(text: str) -> str | None:
    """The string `text` evaluates to as a ClassAd expression (`$STRING`), else None."""
    value = _evaluated(text)
    return value if isinstance(value, str) else None


def config_eval(text: str) -> str | None:
    """`$EVAL`: the value of `text` as HTCondor unparses it (strings bare); None if no parse."""
    try:
        expr = parse(text + _END, old_strings=True)
    except ClassAdSyntaxError:
        return None
    value = evaluate(expr)
    return value if isinstance(value, str) else format_value(value)
