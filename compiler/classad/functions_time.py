"""ClassAd builtins that break a time into fields: `splitTime`, `formatTime`
(evaluation stage).

HTCondor reads an integer or real argument as seconds since the epoch (reals are
truncated to a 32-bit `int` first, so 1e20 becomes INT32_MIN), adds the local time-zone
offset at that instant and splits the result with `gmtime`; a nested ad argument
supplies the fields directly (Year, Month, Day, Hours, Minutes, Seconds).
`formatTime` then runs C `strftime` on those fields (default format `%c`). We use the
same C library through `time.strftime`; field values that C would print but Python
refuses (a Day of 0, an Hours of 30) make us answer ERROR.
"""

from __future__ import annotations

import time
from typing import Final

from compiler.classad.functions_context import FunctionContext, FunctionImpl
from compiler.classad.functions_convert import (
    INT64_MAX,
    INT64_MIN,
    is_exact_int,
    real_to_int64,
    wrap32,
)
from compiler.classad.values import ERROR, UNDEFINED, Value

_FIELDS: Final = ("Year", "Month", "Day", "Hours", "Minutes", "Seconds")


def _epoch_seconds(v: Value) -> int | None:
    """Seconds for an integer or real time argument (reals via a 32-bit cast)."""
    if is_exact_int(v):
        return int(v)
    if isinstance(v, float):
        as64 = real_to_int64(v)
        return wrap32(as64) if -(2**31) <= as64 < 2**31 else -(2**31)
    return None


def _local_fields(seconds: int) -> dict[str, Value] | None:
    """`splitTime` of an epoch time: the local wall-clock fields and the offset."""
    if not INT64_MIN <= seconds <= INT64_MAX:
        return None
    try:
        local = time.localtime(seconds)
    except (OverflowError, OSError, ValueError):
        return None
    return {
        "Type": "AbsoluteTime",
        "Year": local.tm_year,
        "Month": local.tm_mon,
        "Day": local.tm_mday,
        "Hours": local.tm_hour,
        "Minutes": local.tm_min,
        "Seconds": local.tm_sec,
        "Offset": local.tm_gmtoff,
    }


def split_time(args: list[Value], _ctx: FunctionContext) -> Value:
    """`splitTime(t)`: an ad of the time's fields (an ad argument is ERROR here, though
    `formatTime` accepts one)."""
    if len(args) != 1:
        return ERROR
    (v,) = args
    if v is UNDEFINED:
        return UNDEFINED
    seconds = _epoch_seconds(v)
    fields = None if seconds is None else _local_fields(seconds)
    return ERROR if fields is None else fields


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (month may overflow)."""
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _int_field(ad: dict[str, Value], name: str) -> int:
    """An integer attribute of the ad (case-insensitive); anything else counts as 0."""
    for key, value in ad.items():
        if key.lower() == name.lower():
            return int(value) if is_exact_int(value) else 0
    return 0


def _struct_time(fields: dict[str, Value]) -> time.struct_time:
    year, month, day = (_int_field(fields, f) for f in ("Year", "Month", "Day"))
    days = _days_from_civil(year, month, day)
    weekday = (days + 3) % 7  # Python counts Monday as 0; 1970-01-01 was a Thursday
    yearday = days - _days_from_civil(year, 1, 1) + 1
    hms = (_int_field(fields, f) for f in ("Hours", "Minutes", "Seconds"))
    return time.struct_time((year, month, day, *hms, weekday, yearday, 0))


def format_time(args: list[Value], ctx: FunctionContext) -> Value:
    """`formatTime([t [, format]])`: `strftime` of the time's fields (default `%c`,
    default time now); UNDEFINED and non-time arguments are ERROR."""
    if len(args) > 2:
        return ERROR
    when: Value = args[0] if args else ctx.now()
    fmt: Value = args[1] if len(args) == 2 else "%c"
    if isinstance(when, dict):
        fields: dict[str, Value] | None = when
    else:
        seconds = _epoch_seconds(when)
        fields = None if seconds is None else _local_fields(seconds)
    if fields is None or not isinstance(fmt, str):
        return ERROR
    try:
        return time.strftime(fmt, _struct_time(fields))
    except (ValueError, OverflowError):
        return ERROR


BUILTINS: dict[str, FunctionImpl] = {
    "splittime": split_time,
    "formattime": format_time,
}
