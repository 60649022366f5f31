"""Reading HTCondor's time strings and the local time zone (parse and evaluation stage).

`absTime("2004-01-01T09:00:00-06:00")` and `relTime("1+02:03:04.5")` with one literal
string are read when HTCondor *parses* the expression (src/classad/source.cpp
`shouldEvaluateAtParseTime`, literals.cpp `Literal::MakeAbsTime(string)` and
`MakeRelTime(string)`); a string they cannot read is a syntax error. The parser uses
these readers to reject such strings, the builtins in functions_time to compute the
values.

Depends only on values.py and the C library's clock (`time`), so the parser may use it.
"""

from __future__ import annotations

import time
from typing import Final

from compiler.classad.values import AbsTime, wrap32

_C_DIGITS: Final = "0123456789"
#: C `isspace` in the "C" locale.
_C_SPACE: Final = " \t\n\v\f\r"


# --- the local time zone ----------------------------------------------------------------


def local_offset(seconds: int) -> int | None:
    """Seconds east of UTC in the local time zone at that instant (daylight saving
    included): src/classad/util.cpp `timezone_offset(clock, false)`."""
    try:
        return time.localtime(seconds).tm_gmtoff
    except (OverflowError, OSError, ValueError):
        return None


def _standard_offset(seconds: int) -> int | None:
    """`timezone_offset(clock, true)`: the local offset without daylight saving."""
    try:
        local = time.localtime(seconds)
    except (OverflowError, OSError, ValueError):
        return None
    return local.tm_gmtoff - (3600 if local.tm_isdst > 0 else 0)


# --- reading time strings (literals.cpp) ------------------------------------------------


def _atoi(text: str) -> int:
    """C `atoi` of a field that starts with a digit: its leading digits."""
    end = 0
    while end < len(text) and text[end] in _C_DIGITS:
        end += 1
    return int(text[:end]) if end else 0


def _extract_zone(text: str) -> tuple[str, int | None]:
    """`extractTimeZone`: a final `+hhmm`/`-hhmm` removed and read as seconds."""
    zone = text[-5:]
    if zone[:1] in ("+", "-") and len(zone) == 5 and all(c in _C_DIGITS for c in zone[1:]):
        sign = 1 if zone[0] == "+" else -1
        return text[:-5], sign * (int(zone[1:3]) * 3600 + int(zone[3:5]) * 60)
    return text, None


def _split_zone(text: str) -> tuple[str, int | None]:
    """The text without its trailing zone (`Z`, `+hhmm`, `-hh:mm`) and the zone's
    offset in seconds, or None when there is none (`Literal::MakeAbsTime(string)`;
    its length tests count trailing blanks, and a `:` is dropped before the zone is
    read even when the zone then turns out not to be one)."""
    n = len(text)
    last = len(text.rstrip(_C_SPACE)) - 1
    if last > 0 and text[last] in "zZ":
        return text[:last] + text[last + 1 :], 0
    if n > 5 and text[n - 5] in "+-":
        return _extract_zone(text)
    if n > 6 and text[n - 6] in "+-" and text[n - 3] == ":":
        return _extract_zone(text[: n - 3] + text[n - 2 :])
    return text, None


def parse_abs_time(text: str) -> AbsTime | None:
    """`absTime("2004-01-01T09:00:00-06:00")`: a four-digit year, then up to five
    two-digit fields (month, day, hours, minutes, seconds) separated by anything but
    digits, then an optional zone; without a zone, the local zone's offset at that
    time. None where HTCondor's parser fails (no year, extra digits, `mktime` fails).

    As in `Literal::MakeAbsTime(string)`: missing fields are 0 (so a missing day is
    the last day of the month before), the fields go to C `mktime` as local
    *standard* time, and the result is moved by the standard offset and back by the
    zone's offset, which makes the fields the wall clock at that zone.
    """
    body, zone = _split_zone(text)
    n = len(body)
    i = _next_digit(body, 0)
    if i > n - 4:
        return None
    fields = [_atoi(body[i : i + 4]), 0, 0, 0, 0, 0]
    i += 4
    for index in range(1, 6):
        i = _next_digit(body, i)
        if i <= n - 2:
            fields[index] = _atoi(body[i : i + 2]) - (1 if index == 1 else 0)
            i += 2
    if _next_digit(body, i) <= n - 1:
        return None
    year, month0, day, hours, minutes, secs = fields
    try:
        made = int(time.mktime((year, month0 + 1, day, hours, minutes, secs, 0, 0, 0)))
    except (OverflowError, OSError, ValueError):
        return None
    offset = zone if zone is not None else local_offset(made)
    standard = _standard_offset(made)
    if made == -1 or offset is None or standard is None or offset == -1:
        return None
    return AbsTime(made + standard - offset, offset)


def _next_digit(text: str, i: int) -> int:
    while i < len(text) and text[i] not in _C_DIGITS:
        i += 1
    return i


def _digits_before(text: str, i: int) -> tuple[str, int]:
    """The run of digits ending at `i` (read backwards) and the index before it."""
    start = i
    while i >= 0 and text[i] in _C_DIGITS:
        i -= 1
    return text[i + 1 : start + 1], i


def _skip_space_back(text: str, i: int) -> int:
    while i >= 0 and text[i] in _C_SPACE:
        i -= 1
    return i


def _c_from_chars(digits: str) -> int:
    """`std::from_chars` into an `int`: 0 when empty or out of range."""
    if not digits:
        return 0
    value = int(digits)
    return value if value < 2**31 else 0


def parse_rel_time(text: str) -> float | None:
    """`relTime("1+02:03:04.5")`: `[-][days+][hh:][mm:]ss[.fff]`, read from the end;
    the separators may also be the letters `d h m s`, blanks are allowed around them,
    and every field may overflow (`2+25:14:16.123` is 3 days 1 hour...). None for any
    other character. `Literal::MakeRelTime(string)`; the value is a real (see module
    docstring).
    """
    i = _skip_space_back(text, len(text) - 1)
    secs = 0.0
    if i >= 0 and (text[i] in "sS" or text[i] in _C_DIGITS):
        if text[i] in "sS":
            i -= 1
        i = _skip_space_back(text, i)
        number, i = _digits_before(text, i)
        if i >= 0 and text[i] == ".":
            fraction = number
            number, i = _digits_before(text, i - 1)
            number = f"{number}.{fraction}"
        secs = float(number) if number not in ("", ".") else 0.0
    parts = []
    for letters in ("mM:", "hH:", "dD+"):
        i = _skip_space_back(text, i)
        value = 0
        if i >= 0 and text[i] in letters:
            i = _skip_space_back(text, i - 1)
            digits, i = _digits_before(text, i)
            value = _c_from_chars(digits)
        parts.append(value)
    i = _skip_space_back(text, i)
    negative = i >= 0 and text[i] == "-"
    if negative:
        i -= 1
    i = _skip_space_back(text, i)
    if i >= 0:
        return None
    minutes, hours, days = parts
    whole = wrap32(wrap32(wrap32(days * 86400) + wrap32(hours * 3600)) + wrap32(minutes * 60))
    return (-1.0 if negative else 1.0) * (whole + secs)
