"""Absolute and relative time values against the HTCondor oracle, in several time zones.

What HTCondor does (src/classad/: fnCall.cpp `convTime` `splitTime` `formatTime`
`getField` `convBool`, literals.cpp `MakeAbsTime`/`MakeRelTime`, operators.cpp
`doTimeArithmetic` `compareAbsoluteTimes` `compareRelativeTimes`, value.cpp
`convertValueTo*Value`, util.cpp `absTimeToString`/`relTimeToString`) is computed by the
oracle inside each test (tests/classad/time_oracle.py); the table only picks the calls
worth checking, and the hypothesis tests draw time strings, numbers and expressions
over them. Every case runs in UTC, a zone with daylight saving (America/Chicago) and a
zone with a half-hour offset (Asia/Kolkata).
"""

from __future__ import annotations

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from compiler.classad import (
    AbsTime,
    ClassAdSyntaxError,
    RelTime,
    compile_expr,
    evaluate,
    format_value,
    parse,
)
from tests.budget import examples
from tests.classad.time_oracle import ZONES, check_in_zone, in_zone, oracle_views, view

pytestmark = pytest.mark.oracle

A = "absTime(1000000000)"  # 2001-09-09T01:46:40Z
R = "relTime(-190000.5)"

CASES: list[str] = [
    # absTime of strings: formats, zones, missing and overflowing fields
    *[
        f'absTime("{s}")'
        for s in (
            "2004-01-01",
            "2004",
            "2004-07",
            "2004-07-01T12:00:00+05:30",
            "2004-07-01T12:00:00-0600",
            "2004-07-01 12:00:00 Z",
            "2004-07-01T12:00:00z",
            "2004-07-01T12:00:00",
            "  2004-07-01T12:00  ",
            "20040701120000",
            "2004/07/01 12.00.00 +0000",
            "2004-13-45",
            "2004-02-30T25:61:61",
            "1969-12-31T23:59:59Z",
            "2038-01-19T03:14:08Z",
            "1901-12-13T20:45:52Z",
            "2004-03-28T02:30:00",
            "2004-11-07T01:30:00",
            "x2004",
            "204",
            "2004-07-01T12:00:00+5:30",
            "2004-07-01T12:00:00+05:3x",
            "2004-07-01T12:00:00-00:00 ",
            "",
        )
    ],
    # absTime of numbers, times, offsets and wrong types
    *[
        f"absTime({a})"
        for a in (
            "0",
            "-5",
            "1e10",
            "1e10, 3600",
            "2147483648",
            "0, relTime(60)",
            "relTime(5)",
            "relTime(5.9), -3600",
            "0, -1",
            "1.0, -1",
            "0, 1.9",
            "0, true",
            "0, undefined",
            "undefined, 5",
            "undefined",
            "true",
            "{}",
            "[a=1]",
            "error",
            '"2004", 3600',
            "absTime(5), 100",
            "1, 2, 3",
        )
    ],
    # relTime of strings and values (a string gives a *real*, as in HTCondor)
    *[
        f'relTime("{s}")'
        for s in (
            "2+25:14:16.123",
            "1d 2h 3m 4s",
            "-1:30",
            "- 1 + 2 : 3 : 4 s",
            "1:2:3:4",
            "x",
            "",
            "  5  ",
            ".5",
            "1.",
            "1+",
            "99999999999:00",
            "00:00:00.000001",
            "1 d",
        )
    ],
    *[
        f"relTime({a})"
        for a in (
            "absTime(7)",
            "true",
            "1, 2",
            "",
            "undefined",
            "2147483648",
            "-2.75",
            "1e12",
            'real("nan")',
            "relTime(3)",
        )
    ],
    # conversions
    *[
        f"{fn}({x})"
        for fn in ("int", "real", "string", "bool")
        for x in (A, R, "absTime(0)", "relTime(1.5)", "relTime(-0.5)", "relTime(1e12)")
    ],
    # arithmetic across kinds
    *[
        f"{x} {op} {y}"
        for op in ("+", "-", "*", "/", "%")
        for x, y in (
            (A, "absTime(10)"),
            (A, R),
            (R, A),
            (R, R),
            (R, "2"),
            ("2", R),
            (R, "2.5"),
            ("2.5", R),
            (R, "0"),
            ("relTime(0)", "0"),
            (R, "true"),
            (A, "1"),
            (A, "relTime(1e12)"),
            (R, '"1"'),
            (R, "undefined"),
            ("error", R),
        )
    ],
    *[f"{op}{x}" for op in ("-", "+", "!", "~") for x in (A, R)],
    # comparisons and identity across kinds
    *[
        f"{x} {op} {y}"
        for op in ("<", "<=", "==", "!=", ">=", ">", "=?=", "=!=")
        for x, y in (
            ("absTime(0)", "absTime(1)"),
            ("absTime(0, 3600)", "absTime(0)"),
            ("absTime(7)", "absTime(7)"),
            ("relTime(1)", "relTime(1.0)"),
            ("relTime(1)", "relTime(2)"),
            ("relTime(1)", "1"),
            ("relTime(1)", "1.0"),
            ("absTime(0)", "0"),
            ("absTime(0)", "relTime(0)"),
            ("relTime(1)", '"1"'),
            ("relTime(1)", "true"),
            ("absTime(0)", "undefined"),
            ("relTime(1)", "{1}"),
        )
    ],
    "absTime(0) && true",
    "relTime(1) || false",
    "ifThenElse(relTime(1), 1, 2)",
    "relTime(5) ?: 3",
    # type tests
    *[f"{fn}({x})" for fn in ("isAbsTime", "isRelTime") for x in (A, R, "1", '"x"', "{}")],
    # splitTime and formatTime
    *[
        f"splitTime({x})"
        for x in (
            R,
            "relTime(90061.25)",
            "relTime(-90061)",
            "relTime(-0.5)",
            "relTime(-60)",
            "absTime(0)",
            A,
            'absTime("2004-07-01T12:00:00+05:30")',
            "absTime(1000000000, -7200)",
            "0",
            "1e10",
        )
    ],
    *[
        f'formatTime({x}, "{fmt}")'
        for x in (A, 'absTime("2004-07-01T12:34:56+05:30")', "absTime(0, -37800)")
        for fmt in ("%Y-%m-%d %H:%M:%S", "%a %A %b %B %d %e %j %U %w %y", "%c", "%D %T %p %I")
    ],
    f"formatTime({A})",
    "formatTime(relTime(5))",
    f"formatTime({A}, 5)",
    # getYear & co
    *[
        f"{fn}({x})"
        for fn in (
            *("getYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDayOfWeek"),
            *("getHours", "getMinutes", "getSeconds", "getDays"),
        )
        for x in (A, R, "relTime(3725)", "5")
    ],
    # times inside other builtins
    f"floor({R})",
    f"round({R})",
    f"ceiling({A})",
    f"pow({R}, 2)",
    f"quantize({R}, 2)",
    f"interval({R})",
    f"strcat({R}, {A})",
    f"size({R})",
    f"sum({{{R}, {R}}})",
    f"member({R}, {{{R}}})",
    f"identicalMember({A}, {{{A}}})",
]


@pytest.mark.parametrize("zone", ZONES)
@pytest.mark.parametrize("text", CASES)
def test_hand_picked_cases(text: str, zone: str) -> None:
    check_in_zone(zone, text)


# --- generated time strings, numbers and expressions ------------------------------------

zones = st.sampled_from(ZONES)
_sep = st.sampled_from(["-", "/", " ", "T", ":", ".", "", "  "])
_zone_suffix = st.sampled_from(
    ["", "Z", "z", " Z", "+05:30", "-0600", "+0000", "-00:00", "+1400", " ", "-03:00  ", "+5"]
)


@st.composite
def abs_strings(draw: st.DrawFn) -> str:
    year = draw(st.one_of(st.integers(1902, 2037), st.sampled_from([1970, 1969, 2038, 1901])))
    fields = draw(st.lists(st.integers(0, 99), max_size=5).map(lambda xs: [f"{x:02d}" for x in xs]))
    text = f"{year:04d}"
    for f in fields:
        text += draw(_sep) + f
    return draw(st.sampled_from(["", " "])) + text + draw(_zone_suffix)


@st.composite
def rel_strings(draw: st.DrawFn) -> str:
    parts = []
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(["-", " -", "- "])))
    if draw(st.booleans()):
        parts.append(f"{draw(st.integers(0, 40))}{draw(st.sampled_from(['+', 'd', 'D ']))}")
    if draw(st.booleans()):
        parts.append(f"{draw(st.integers(0, 99)):02d}{draw(st.sampled_from([':', 'h', 'H']))}")
    if draw(st.booleans()):
        parts.append(f"{draw(st.integers(0, 99)):02d}{draw(st.sampled_from([':', 'm', ' M']))}")
    secs = draw(st.sampled_from(["", "5", "59", "16.123", ".5", "0.25", "61"]))
    parts.append(secs + draw(st.sampled_from(["", "s", "S", " "])))
    return "".join(parts)


_ints = st.one_of(
    st.integers(-(2**31), 2**31 - 1), st.sampled_from([0, -1, 2**31, -(2**31) - 1, 2**40])
)
_reals = st.one_of(
    st.floats(-1e10, 1e10, allow_nan=False).map(lambda x: round(x, 3)),
    st.sampled_from([0.5, -0.5, 1e12, -1e12, 2147483647.5]),
)


def _num(x: float) -> str:
    return repr(x) if isinstance(x, float) else str(x)


times = st.one_of(
    abs_strings().map(lambda s: f'absTime("{s}")'),
    _ints.map(lambda n: f"absTime({n})"),
    st.tuples(_ints, st.integers(-50400, 50400)).map(lambda p: f"absTime({p[0]}, {p[1]})"),
    _reals.map(lambda x: f"relTime({_num(x)})"),
    _ints.map(lambda n: f"relTime({n})"),
)
operands = st.one_of(
    times,
    _ints.map(str),
    _reals.map(_num),
    st.sampled_from(["true", "undefined", '"x"', "error"]),
)
_functions = st.sampled_from(
    [
        *("int", "real", "string", "bool", "splitTime", "isAbsTime", "isRelTime"),
        *("getYear", "getDayOfWeek", "getHours", "getDays", "getSeconds", "relTime", "absTime"),
    ]
)
_formats = st.sampled_from(["%Y-%m-%d %H:%M:%S", "%a %j %U %w", "%c", "%e %b %y %I %p"])
expressions = st.one_of(
    times,
    st.tuples(operands, st.sampled_from(["+", "-", "*", "/", "<", "==", "=?=", ">="]), operands)
    .filter(lambda t: "Time" in t[0] + t[2])
    .map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
    st.tuples(_functions, times).map(lambda t: f"{t[0]}({t[1]})"),
    st.tuples(times, _formats).map(lambda t: f'formatTime({t[0]}, "{t[1]}")'),
    st.tuples(st.sampled_from(["-", "+"]), times).map(lambda t: f"{t[0]}{t[1]}"),
)


@settings(max_examples=examples(60), deadline=None)
@given(text=abs_strings(), zone=zones)
@example(text="2004-03-28T02:30:00", zone="America/Chicago")
def test_abs_time_strings(text: str, zone: str) -> None:
    check_in_zone(zone, f'absTime("{text}")')
    check_in_zone(zone, f'splitTime(absTime("{text}"))')


@settings(max_examples=examples(60), deadline=None)
@given(text=rel_strings())
def test_rel_time_strings(text: str) -> None:
    check_in_zone("UTC", f'relTime("{text}")')


@settings(max_examples=examples(80), deadline=None)
@given(
    fn=st.sampled_from(["absTime", "relTime"]),
    text=st.text(st.sampled_from("0123456789 -+:.TZzdDhHmMsS\tx"), max_size=14),
)
def test_any_time_string_is_read_or_rejected_like_htcondor(fn: str, text: str) -> None:
    """Which strings HTCondor's parser accepts (a syntax error otherwise), and their
    values."""
    check_in_zone("UTC", f'{fn}("{text}")')


@settings(max_examples=examples(100), deadline=None)
@given(text=expressions, zone=zones)
def test_time_expressions(text: str, zone: str) -> None:
    check_in_zone(zone, text)


@settings(max_examples=examples(60), deadline=None)
@given(text=expressions, zone=zones)
@example(text='absTime("1902+5")', zone="UTC")
def test_compiled_closures_agree_with_the_interpreter(text: str, zone: str) -> None:
    """`compile_expr` (closures, constant folding) gives the interpreter's time values."""
    with in_zone(zone):
        try:
            expr = parse(text)
        except ClassAdSyntaxError:
            return  # an unreadable time string (test_any_time_string_...)
        compiled = compile_expr(expr)({}, {})
        interpreted = evaluate(expr)
    assert view(compiled) == view(interpreted)  # reals by repr: NaN equals NaN


# --- printing: format_value writes what HTCondor writes and reads back -------------------


@settings(max_examples=examples(40), deadline=None)
@example(seconds=-1, offset=0, zone="UTC")
@given(
    seconds=_ints,
    offset=st.one_of(st.integers(-56, 56).map(lambda q: q * 900), st.integers(-50400, 50400)),
    zone=zones,
)
def test_abs_time_prints_like_htcondor(seconds: int, offset: int, zone: str) -> None:
    """`format_value(AbsTime)` is `absTime("<string()>")` of the same time in HTCondor,
    and the oracle reads that text back as the same instant and offset (when the offset
    is whole minutes: the text has no seconds of offset). An offset of -1 fails the
    evaluation in HTCondor (`convTime`), so it has no text to compare."""
    assume(offset != -1)
    text = f"absTime({seconds}, {offset})"
    with in_zone(zone):
        printed = format_value(AbsTime(((seconds + 2**31) % 2**32) - 2**31, offset))
    value, _is_abs, _is_rel, string = oracle_views(zone, text)
    assert printed == f'absTime("{string[1]}")'
    if offset % 60:
        return
    again = oracle_views(zone, printed)
    if again == ["syntax"]:  # `mktime` answers -1 for 1969-12-31T23:59:59 UTC: a failure
        with in_zone(zone), pytest.raises(ClassAdSyntaxError):
            parse(printed)
        return
    assert again[3] == string
    if value != ["fail"]:
        assert again[0] == value


@settings(max_examples=examples(40), deadline=None)
@given(seconds=st.one_of(_ints, _reals))
@example(seconds=-190000.5)
@example(seconds=263656.123)
def test_rel_time_prints_like_htcondor(seconds: float) -> None:
    """Whole seconds print as `string()` does; the oracle reads the text back (as a real,
    see functions_time) to the same seconds, up to `%g`'s six digits of the seconds."""
    value = RelTime(float(seconds))
    printed = format_value(value)
    assert printed.startswith('relTime("') and printed.endswith('")')
    if float(seconds).is_integer() and -(2**31) <= seconds < 2**31:
        string = oracle_views("UTC", f"relTime({_num(seconds)})")[3]
        assert printed == f'relTime("{string[1]}")'
    if abs(seconds) < 2**31:
        back = oracle_views("UTC", printed)[0]
        assert back[0] == "real"
        assert abs(float(back[1]) - float(seconds)) <= 1e-3 * max(1.0, abs(seconds) % 60)
