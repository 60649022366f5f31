"""AST -> ClassAd text with the fewest parentheses that keep the tree (stage: back end).

`parse(unparse(e)) == e` for every tree whose literals are representable (no NaN, no
NUL in strings): precedence and associativity follow grammar.lark, reals are written
with `repr` so they read back bit for bit, and names that are not plain identifiers
(or are keywords) are quoted.

Also the one printer of evaluated values, `format_value`: HTCondor's compact unparse
of a value, which is what both `classad_eval` prints and the `string()` builtin returns
for a list or nested ad (`{ 1,"a" }`, `[ a = 1; b = 2 ]`, reals as
`1.500000000000000E+00`, times `absTime("2004-01-01T00:00:00-06:00")` and
`relTime("3+01:14:16.123")`). Where our text deliberately differs from HTCondor's, the
difference is a named `Style`: ROUND_TRIP (reals that read back bit for bit, non-ASCII
kept readable) against HTCONDOR.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from compiler.classad import ast
from compiler.classad.deep import call_deep
from compiler.classad.parser import KEYWORDS
from compiler.classad.values import ERROR, UNDEFINED, AbsTime, RelTime, c_int32, to_bytes

# Binding strength of each syntactic level (higher binds tighter), as in grammar.lark.
CONDITIONAL, PRIMARY = 1, 14
UNARY, ELVIS = 12, 13
BINARY_PRECEDENCE: dict[str, int] = {
    "||": 2,
    "&&": 3,
    "|": 4,
    "^": 5,
    "&": 6,
    "==": 7, "!=": 7, "=?=": 7, "=!=": 7,
    "<": 8, "<=": 8, ">": 8, ">=": 8,
    "<<": 9, ">>": 9, ">>>": 9,
    "+": 10, "-": 10,
    "*": 11, "/": 11, "%": 11,
}  # fmt: skip

RealFormat = Callable[[float], str]
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: The C escapes HTCondor writes (every other byte below space or from DEL up is octal).
_NAMED_ESCAPES = {
    0x07: "\\a",
    0x08: "\\b",
    0x09: "\\t",
    0x0A: "\\n",
    0x0B: "\\v",
    0x0C: "\\f",
    0x0D: "\\r",
    0x5C: "\\\\",
}


def precedence(node: ast.Expr) -> int:
    """The grammar level a node is produced at."""
    match node:
        case ast.Conditional():
            return CONDITIONAL
        case ast.Binary(op=op):
            return BINARY_PRECEDENCE[op]
        case ast.Unary():
            return UNARY
        case ast.Elvis():
            return ELVIS
        case _:
            return PRIMARY


def quote_string(value: str, quote: str = '"', *, ascii_only: bool = False) -> str:
    """A new-syntax string literal (or quoted name when `quote` is `'`).

    C escapes for the control characters that have one, a backslash before the quote
    character, octal escapes for other control bytes and for bytes that are not valid
    UTF-8 (kept as lone surrogates); with `ascii_only`, as HTCondor writes strings,
    every byte of a non-ASCII character is octal too.
    """
    out = [quote]
    for char in value:
        code = ord(char)
        if code < 0x80:
            if code in _NAMED_ESCAPES:
                out.append(_NAMED_ESCAPES[code])
            elif char == quote:
                out.append("\\" + quote)
            elif code < 0x20 or code == 0x7F:
                out.append(f"\\{code:03o}")
            else:
                out.append(char)
        elif ascii_only or 0xD800 <= code <= 0xDFFF:
            out.extend(f"\\{byte:03o}" for byte in to_bytes(char))
        else:
            out.append(char)
    out.append(quote)
    return "".join(out)


def quote_name(name: str, *, ascii_only: bool = False) -> str:
    """An attribute name, quoted when it is not an identifier or is a keyword."""
    if _IDENTIFIER.match(name) and name.lower() not in KEYWORDS:
        return name
    return quote_string(name, "'", ascii_only=ascii_only)


def real_literal(value: float) -> str:
    """A real literal that reads back as exactly `value`."""
    if math.isnan(value):
        return 'real("NaN")'
    if math.isinf(value):
        return "1e309" if value > 0 else "-1e309"
    return repr(value)


class Style(msgspec.Struct, frozen=True):
    """The few spelling choices that differ between our text and HTCondor's."""

    real: RealFormat
    arg_sep: str = ", "
    unary_lead: str = ""
    number_gap: bool = True  # `- 5` (unary minus) must not read back as the literal -5
    ascii_strings: bool = False
    list_brackets: tuple[str, str, str] = ("{", ", ", "}")
    record_brackets: tuple[str, str, str] = ("[", "; ", "]")
    #: Nested ads in HTCondor's attribute storage order (`attribute_order`), not as written.
    storage_order: bool = False
    op_names: Mapping[str, str] = msgspec.field(default_factory=dict)


def _wrap(node: ast.Expr, minimum: int, style: Style) -> str:
    text = _unparse(node, style)
    return f"({text})" if precedence(node) < minimum else text


def _postfix_base(node: ast.Expr, style: Style) -> str:
    # A scope word or a number cannot be written bare before `.name`: `MY.x` would
    # become a scoped reference, and `5.x` is not a valid number.
    if isinstance(node, ast.Integer | ast.Real):
        return f"({_unparse(node, style)})"
    if isinstance(node, ast.AttrRef) and node.scope is None and node.name.upper() in ast.SCOPES:
        return f"({_unparse(node, style)})"
    return _wrap(node, PRIMARY, style)


def _unparse(node: ast.Expr, style: Style) -> str:
    match node:
        case ast.Integer(value=v):
            return str(v)
        case ast.Real(value=v):
            return style.real(v)
        case ast.String(value=v):
            return quote_string(v, ascii_only=style.ascii_strings)
        case ast.Boolean(value=v):
            return "true" if v else "false"
        case ast.UndefinedLit():
            return "undefined"
        case ast.ErrorLit():
            return "error"
        case ast.AttrRef(name=name, scope=None):
            return quote_name(name, ascii_only=style.ascii_strings)
        case ast.AttrRef(name=name, scope=ast.ROOT):
            return f".{quote_name(name, ascii_only=style.ascii_strings)}"
        case ast.AttrRef(name=name, scope=scope):
            return f"{scope}.{quote_name(name, ascii_only=style.ascii_strings)}"
        case ast.Select(base=base, name=name):
            return (
                f"{_postfix_base(base, style)}.{quote_name(name, ascii_only=style.ascii_strings)}"
            )
        case ast.Subscript(base=base, index=index):
            return f"{_postfix_base(base, style)}[{_unparse(index, style)}]"
        case ast.ListExpr(items=items):
            start, sep, end = style.list_brackets
            return start + sep.join(_unparse(i, style) for i in items) + end
        case ast.RecordExpr(attrs=attrs):
            start, sep, end = style.record_brackets
            if style.storage_order:
                attrs = tuple(sorted(attrs, key=lambda kv: attribute_order(kv[0])))
            body = sep.join(
                f"{quote_name(k, ascii_only=style.ascii_strings)} = {_unparse(v, style)}"
                for k, v in attrs
            )
            return start + body + end
        case ast.Call(name=name, args=args):
            return f"{name}(" + style.arg_sep.join(_unparse(a, style) for a in args) + ")"
        case ast.Unary(op=op, operand=operand):
            text = _wrap(operand, UNARY, style)
            # `- 5` is unary minus applied to 5; `-5` would be the literal -5.
            number = op in "+-" and text[:1] in "0123456789.+-"
            gap = " " if number and style.number_gap else ""
            return f"{style.unary_lead}{op}{gap}{text}"
        case ast.Binary(op=op, left=left, right=right):
            level = BINARY_PRECEDENCE[op]
            symbol = style.op_names.get(op, op)
            return f"{_wrap(left, level, style)} {symbol} {_wrap(right, level + 1, style)}"
        case ast.Elvis(left=left, right=right):
            return f"{_wrap(left, ELVIS, style)} ?: {_wrap(right, PRIMARY, style)}"
        case ast.Conditional(cond=cond, then=then, otherwise=otherwise):
            return f"{_wrap(cond, CONDITIONAL + 1, style)} ? {_unparse(then, style)} : {_unparse(otherwise, style)}"
        case _:
            raise TypeError(f"not a ClassAd expression node: {node!r}")


ROUND_TRIP = Style(real_literal)


def unparse(expr: ast.Expr) -> str:
    """ClassAd text for `expr` with minimal parentheses (`parse(unparse(e)) == e`)."""
    return call_deep(_unparse, expr, ROUND_TRIP)


HTCONDOR = Style(
    lambda v: format_real(v),
    arg_sep=",",
    unary_lead=" ",
    number_gap=False,
    ascii_strings=True,
    list_brackets=("{ ", ",", " }"),
    record_brackets=("[ ", "; ", " ]"),
    storage_order=True,
    op_names={"=?=": "is", "=!=": "isnt"},
)


def unparse_classad_style(expr: ast.Expr) -> str:
    """Like `unparse`, but written as HTCondor's unparser writes it: reals as
    `2.500000000000000E+00`, `is`/`isnt`, ` -a`, `f(a,b)` (what `unparse()` returns).
    HTCondor also keeps the source's redundant parentheses and pretty-prints lists and
    nested ads over several lines; neither is reproduced."""
    return call_deep(_unparse, expr, HTCONDOR)


# ---- values, printed the way HTCondor's unparser prints them ----


def format_real(value: float) -> str:
    """A real as ClassAd unparse writes it: `1.000000000000000E+00`, `real("INF")`."""
    if math.isnan(value):
        return 'real("NaN")'
    if math.isinf(value):
        return 'real("INF")' if value > 0 else 'real("-INF")'
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    return f"{value:.15E}"


def abs_time_text(value: AbsTime) -> str:
    """An absolute time as HTCondor writes it, `2004-01-01T00:00:00-06:00`: the wall
    clock at the value's own offset, then the offset (zero is written `-00:00`).
    src/classad/util.cpp `absTimeToString`; the ISO form `absTime("...")` reads back."""
    offset = value.offset
    sign = "+" if offset > 0 else "-"
    offset = abs(offset)
    try:
        clock = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(value.seconds + value.offset))
    except (OverflowError, OSError, ValueError):
        clock = "?"  # gmtime fails: HTCondor prints an uninitialised struct tm
    return f"{clock}{sign}{offset // 3600:02d}:{offset // 60 % 60:02d}"


def _c_g(x: float) -> str:
    """C `%02g` (glibc spells NaN `nan`/`-nan`, infinities `inf`/`-inf`)."""
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    return f"{x:02g}"


def _c_rem(a: int, b: int) -> int:
    r = abs(a) % b
    return -r if a < 0 else r


def _c_div(a: int, b: int) -> int:
    q = abs(a) // b
    return -q if a < 0 else q


def split_rel_time(seconds: float) -> tuple[int, int, int, float, float]:
    """Days, hours, minutes, seconds (with the fraction) and the fraction of a
    non-negative relative time, as HTCondor splits one (util.cpp `relTimeToString`,
    fnCall.cpp `relTimeToClassAd`): C integer arithmetic on the 32-bit `(int)` cast of
    the whole seconds, so beyond about 68 years every field is garbage, as there."""
    fraction = seconds - math.floor(seconds) if math.isfinite(seconds) else math.nan
    whole = c_int32(seconds)
    hours_left = _c_rem(whole, 86400)
    minutes_left = _c_rem(hours_left, 3600)
    secs = _c_rem(minutes_left, 60) + fraction
    days, hours, minutes = _c_div(whole, 86400), _c_div(hours_left, 3600), _c_div(minutes_left, 60)
    return days, hours, minutes, secs, fraction


def rel_time_text(seconds: float) -> str:
    """A relative time as HTCondor writes it: `[-][D+]HH:MM:SS[.fff]`, leading zero
    fields left out (`01:30`, `05`, `3+01:14:16.123`), fractional seconds in `%g`
    (util.cpp `relTimeToString`)."""
    sign = ""
    if seconds < 0:
        sign, seconds = "-", -seconds
    days, hours, minutes, secs, fraction = split_rel_time(seconds)
    tail = f"{int(secs):02d}" if fraction == 0 else _c_g(secs)
    if days:
        return f"{sign}{days}+{hours:02d}:{minutes:02d}:{tail}"
    if hours:
        return f"{sign}{hours:02d}:{minutes:02d}:{tail}"
    if minutes:
        return f"{sign}{minutes:02d}:{tail}"
    return f"{sign}{tail}"


def attribute_order(name: str) -> tuple[int, bytes]:
    """Sort key of HTCondor's attribute storage: shorter names first, then
    case-insensitively (`strcasecmp`). Ads print their attributes in this order:
    `[zeta=1; Alpha=2; a1=3]` prints as `[ a1 = 3; zeta = 1; Alpha = 2 ]`."""
    data = to_bytes(name)
    return len(data), data.lower()


def format_value(value: Any, style: Style | None = None) -> str:
    """An evaluated value in ClassAd syntax.

    By default (the HTCONDOR style) as HTCondor unparses a value: what `classad_eval`
    prints and what `string()` gives for a list or an ad. Lists: `{ 1,"a" }`; ads:
    `[ a = 1; b = 2 ]`, attributes in HTCondor's storage order (see `attribute_order`);
    reals `1.500000000000000E+00`; strings byte-escaped (`"\\303\\251"`). With
    ROUND_TRIP, as `unparse` writes literals (`1.5`, `"é"`, `{1, "a"}`), for messages
    meant for people. Values nest as deeply as the expressions that built them
    (`{{{...}}}`), so the walk runs through `call_deep` like the tree walks.
    """
    return call_deep(_format_value, value, HTCONDOR if style is None else style)


def _format_value(value: Any, style: Style) -> str:
    match value:
        case _ if value is UNDEFINED:
            return "undefined"
        case _ if value is ERROR:
            return "error"
        case bool():
            return "true" if value else "false"
        case int():
            return str(value)
        case float():
            return style.real(value)
        case str():
            return quote_string(value, ascii_only=style.ascii_strings)
        case AbsTime():
            return f'absTime("{abs_time_text(value)}")'
        case RelTime(seconds=seconds):
            return f'relTime("{rel_time_text(seconds)}")'
        case list() | tuple():
            start, sep, end = style.list_brackets
            return start + sep.join(_format_value(v, style) for v in value) + end
        case dict():
            start, sep, end = style.record_brackets
            keys = sorted(value, key=attribute_order) if style.storage_order else list(value)
            return (
                start
                + sep.join(
                    f"{quote_name(k, ascii_only=style.ascii_strings)} = {_format_value(value[k], style)}"
                    for k in keys
                )
                + end
            )
        case _:
            raise TypeError(f"not a ClassAd value: {value!r}")
