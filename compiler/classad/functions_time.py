"""ClassAd builtins on time values (evaluation stage): `absTime`, `relTime`,
`currentTime`, `timeZoneOffset`, `dayTime`, `splitTime`, `formatTime` and the
`getYear` & co field readers.

Absolute and relative times are `values.AbsTime` / `values.RelTime`. HTCondor builds
them in src/classad/fnCall.cpp (`convTime`, `currentTime`, `getField`, `splitTime`,
`formatTime`) and, for a string argument, in src/classad/literals.cpp
(`Literal::MakeAbsTime` / `MakeRelTime`). Seconds go through C's 32-bit `(int)` cast
in most places (`values.c_int32`), which we reproduce.

A string argument: HTCondor reads `absTime("...")` and `relTime("...")` of one literal
string when it parses the expression (our parser does too and rejects the same strings:
time_text.py); `relTime("...")` is then a *real* number of seconds, not a relative time
(literals.h: `ReltimeLiteral` evaluates to a real), reproduced here. One difference
remains: a string *computed* at run time (`absTime(strcat("2004"))`) gives HTCondor the
string itself (absTime) or a zero relative time (relTime), because `convTime` falls
through to its absolute-time case; evaluated arguments no longer say whether a string
was literal, so every one-argument string is read as the literal form here.

Integer and real arguments of `splitTime`/`formatTime` are seconds since the epoch,
shown in the local time zone (reals truncated to a 32-bit `int` first, so 1e20 becomes
INT32_MIN); a nested ad argument of `formatTime` supplies the fields directly (Year,
Month, Day, Hours, Minutes, Seconds). `formatTime` runs C `strftime` on those fields
(default format `%c`) through `time.strftime`; field values that C would print but
Python refuses (a Day of 0, an Hours of 30) make us answer ERROR.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

from compiler.classad.functions_context import FunctionContext, FunctionImpl
from compiler.classad.functions_convert import (
    INT64_MAX,
    INT64_MIN,
    c_trunc_div,
    is_exact_int,
    wrap32,
)
from compiler.classad.time_text import local_offset, parse_abs_time, parse_rel_time
from compiler.classad.unparse import split_rel_time
from compiler.classad.values import (
    ERROR,
    UNDEFINED,
    AbsTime,
    RelTime,
    Value,
    c_int32,
)

# --- absTime, relTime and the clock -----------------------------------------------------


def _now_abs(ctx: FunctionContext) -> Value:
    now = ctx.now()
    offset = local_offset(now)
    return ERROR if offset is None else AbsTime(now, offset)


def _offset_argument(v: Value) -> int | None:
    """`absTime`'s second argument (the offset): integer, real or relative time."""
    if is_exact_int(v):
        return wrap32(v)
    if isinstance(v, float):
        return c_int32(v)
    if isinstance(v, RelTime):
        return c_int32(v.seconds)
    return None


def abs_time(args: list[Value], ctx: FunctionContext) -> Value:
    """`absTime()`, `absTime(t)`, `absTime(t, offset)` (fnCall.cpp `convTime`): the
    current time; a time string; seconds since the epoch (32-bit `int`), shown at the
    local offset or at the given one; a relative time as seconds since the epoch."""
    if not args:
        return _now_abs(ctx)
    if len(args) > 2:
        return ERROR
    arg = args[0]
    given: int | None = None
    if len(args) == 2:
        given = _offset_argument(args[1])
        if given is None:
            return ERROR
    elif isinstance(arg, str):
        parsed = parse_abs_time(arg)
        return ERROR if parsed is None else parsed
    if arg is UNDEFINED:
        return UNDEFINED
    if isinstance(arg, AbsTime | str):
        return arg  # a computed string falls through `convTime` unchanged
    if isinstance(arg, bool):
        return ERROR
    if is_exact_int(arg):
        secs = wrap32(arg)
    elif isinstance(arg, float):
        secs = c_int32(arg)
    elif isinstance(arg, RelTime):
        secs = c_int32(arg.seconds)
    else:
        return ERROR
    offset = given if given is not None else local_offset(secs)
    if offset is None or (offset == -1 and is_exact_int(arg)):
        return ERROR
    return AbsTime(secs, offset)


def rel_time(args: list[Value], _ctx: FunctionContext) -> Value:
    """`relTime(t)` (fnCall.cpp `convTime`): a duration string (a real, see module
    docstring); integer (32-bit) or real seconds; an absolute time's seconds."""
    if len(args) != 1:
        return ERROR
    (arg,) = args
    if isinstance(arg, str):
        parsed = parse_rel_time(arg)
        return ERROR if parsed is None else parsed
    if arg is UNDEFINED:
        return UNDEFINED
    if isinstance(arg, bool):
        return ERROR
    if is_exact_int(arg):
        return RelTime(float(wrap32(arg)))
    if isinstance(arg, float):
        return RelTime(arg)
    if isinstance(arg, AbsTime):
        return RelTime(float(arg.seconds))
    if isinstance(arg, RelTime):
        return arg
    return ERROR


def current_time(args: list[Value], ctx: FunctionContext) -> Value:
    """`currentTime()`: now, at the local offset."""
    return ERROR if args else _now_abs(ctx)


def time_zone_offset(args: list[Value], ctx: FunctionContext) -> Value:
    """`timeZoneOffset()`: the local offset now, as a relative time."""
    if args:
        return ERROR
    offset = local_offset(ctx.now())
    return ERROR if offset is None else RelTime(float(offset))


def day_time(args: list[Value], ctx: FunctionContext) -> Value:
    """`dayTime()`: seconds since local midnight, as a relative time."""
    if args:
        return ERROR
    try:
        local = time.localtime(ctx.now())
    except (OverflowError, OSError, ValueError):
        return ERROR
    return RelTime(float(local.tm_hour * 3600 + local.tm_min * 60 + local.tm_sec))


# --- getYear & co -----------------------------------------------------------------------

#: Field readers of an absolute time (local wall clock, fnCall.cpp `getField`).
_ABS_FIELDS: Final[dict[str, Callable[[time.struct_time], int] | None]] = {
    "getyear": lambda t: t.tm_year,
    "getmonth": lambda t: t.tm_mon,
    "getdayofyear": lambda t: t.tm_yday - 1,  # C counts from 0
    "getdayofmonth": lambda t: t.tm_mday,
    "getdayofweek": lambda t: (t.tm_wday + 1) % 7,  # C counts from Sunday
    "gethours": lambda t: t.tm_hour,
    "getminutes": lambda t: t.tm_min,
    "getseconds": lambda t: t.tm_sec,
    "getdays": None,
}


def _c_rem(a: int, b: int) -> int:
    """C `%` (the sign of the dividend)."""
    return a - c_trunc_div(a, b) * b


#: Field readers of a relative time (its whole seconds as a 32-bit `int`).
_REL_FIELDS: Final[dict[str, Callable[[int], int] | None]] = {
    "getdays": lambda s: c_trunc_div(s, 86400),
    "gethours": lambda s: c_trunc_div(_c_rem(s, 86400), 3600),
    "getminutes": lambda s: c_trunc_div(_c_rem(s, 3600), 60),
    "getseconds": lambda s: _c_rem(s, 60),
}


def _get_field(name: str) -> FunctionImpl:
    def impl(args: list[Value], _ctx: FunctionContext) -> Value:
        if len(args) != 1:
            return ERROR
        (v,) = args
        if isinstance(v, AbsTime):
            read = _ABS_FIELDS.get(name)
            if read is None:
                return ERROR
            try:
                return read(time.localtime(v.seconds))
            except (OverflowError, OSError, ValueError):
                return ERROR
        if isinstance(v, RelTime):
            rel = _REL_FIELDS.get(name)
            return ERROR if rel is None else rel(c_int32(v.seconds))
        return ERROR

    return impl


# --- splitTime and formatTime -----------------------------------------------------------


def _epoch_seconds(v: Value) -> int | None:
    """Seconds for an integer or real time argument (reals via a 32-bit cast)."""
    if is_exact_int(v):
        return int(v)
    if isinstance(v, float):
        return c_int32(v)
    return None


def _abs_fields(seconds: int, offset: int) -> dict[str, Value] | None:
    """`absTimeToClassAd`: the wall clock at `offset`, and the offset."""
    if not INT64_MIN <= seconds + offset <= INT64_MAX:
        return None
    try:
        clock = time.gmtime(seconds + offset)
    except (OverflowError, OSError, ValueError):
        return None
    return {
        "Type": "AbsoluteTime",
        "Year": clock.tm_year,
        "Month": clock.tm_mon,
        "Day": clock.tm_mday,
        "Hours": clock.tm_hour,
        "Minutes": clock.tm_min,
        "Seconds": clock.tm_sec,
        "Offset": offset,
    }


def _rel_fields(seconds: float) -> dict[str, Value]:
    """`relTimeToClassAd`: days, hours, minutes of the 32-bit whole seconds and real
    seconds; a negative time has only its leading non-zero field negative."""
    negative = seconds < 0
    days, hours, minutes, secs, _fraction = split_rel_time(-seconds if negative else seconds)
    if negative:
        if days > 0:
            days = -days
        elif hours > 0:
            hours = -hours
        elif minutes > 0:
            minutes = -minutes
        else:
            secs = -secs
    return {
        "Type": "RelativeTime",
        "Days": days,
        "Hours": hours,
        "Minutes": minutes,
        "Seconds": secs,
    }


def _split(v: Value) -> dict[str, Value] | None:
    """`doSplitTime` for a non-ad value: None when it is no time."""
    if isinstance(v, AbsTime):
        return _abs_fields(v.seconds, v.offset)
    if isinstance(v, RelTime):
        return _rel_fields(v.seconds)
    seconds = _epoch_seconds(v)
    if seconds is None or not INT64_MIN <= seconds <= INT64_MAX:
        return None
    offset = local_offset(seconds)
    return None if offset is None else _abs_fields(seconds, offset)


def split_time(args: list[Value], _ctx: FunctionContext) -> Value:
    """`splitTime(t)`: an ad of the time's fields (an ad argument is ERROR here, though
    `formatTime` accepts one)."""
    if len(args) != 1:
        return ERROR
    (v,) = args
    if v is UNDEFINED:
        return UNDEFINED
    fields = _split(v)
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
    default time now); relative times, UNDEFINED and non-time arguments are ERROR."""
    if len(args) > 2:
        return ERROR
    when: Value = args[0] if args else ctx.now()
    fmt: Value = args[1] if len(args) == 2 else "%c"
    fields = when if isinstance(when, dict) else None
    if fields is None and not isinstance(when, RelTime):
        fields = _split(when)
    if fields is None or not isinstance(fmt, str):
        return ERROR
    try:
        return time.strftime(fmt, _struct_time(fields))
    except (ValueError, OverflowError):
        return ERROR


BUILTINS: dict[str, FunctionImpl] = {
    "abstime": abs_time,
    "reltime": rel_time,
    "currenttime": current_time,
    "timezoneoffset": time_zone_offset,
    "daytime": day_time,
    "splittime": split_time,
    "formattime": format_time,
    **{name: _get_field(name) for name in _ABS_FIELDS},
}
