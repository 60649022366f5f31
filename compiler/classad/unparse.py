"""AST -> ClassAd text with the fewest parentheses that keep the tree (stage: back end).

`parse(unparse(e)) == e` for every tree whose literals are representable (no NaN, no
NUL in strings): precedence and associativity follow grammar.lark, reals are written
with `repr` so they read back bit for bit, and names that are not plain identifiers
(or are keywords) are quoted. Also `format_value`, the way HTCondor prints a value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from compiler.classad import ast
from compiler.classad.deep import call_deep
from compiler.classad.parser import KEYWORDS
from compiler.classad.values import ERROR, UNDEFINED

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
_STRING_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\n": "\\n",
    "\t": "\\t",
    "\r": "\\r",
    "\b": "\\b",
    "\f": "\\f",
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


def quote_string(value: str, quote: str = '"') -> str:
    """A new-syntax string literal (or quoted name when `quote` is `'`)."""
    out = []
    for char in value:
        if char == quote or char in _STRING_ESCAPES:
            out.append(_STRING_ESCAPES.get(char, "\\" + char))
        elif ord(char) < 32 or ord(char) == 127:
            out.append(f"\\{ord(char):03o}")
        else:
            out.append(char)
    return quote + "".join(out) + quote


def quote_name(name: str) -> str:
    """An attribute name, quoted when it is not an identifier or is a keyword."""
    if _IDENTIFIER.match(name) and name.lower() not in KEYWORDS:
        return name
    return quote_string(name, "'")


def real_literal(value: float) -> str:
    """A real literal that reads back as exactly `value`."""
    if math.isnan(value):
        return 'real("NaN")'
    if math.isinf(value):
        return "1e309" if value > 0 else "-1e309"
    return repr(value)


def _wrap(node: ast.Expr, minimum: int, real: RealFormat) -> str:
    text = _unparse(node, real)
    return f"({text})" if precedence(node) < minimum else text


def _postfix_base(node: ast.Expr, real: RealFormat) -> str:
    # A scope word or a number cannot be written bare before `.name`: `MY.x` would
    # become a scoped reference, and `5.x` is not a valid number.
    if isinstance(node, ast.Integer | ast.Real):
        return f"({_unparse(node, real)})"
    if isinstance(node, ast.AttrRef) and node.scope is None and node.name.upper() in ast.SCOPES:
        return f"({_unparse(node, real)})"
    return _wrap(node, PRIMARY, real)


def _unparse(node: ast.Expr, real: RealFormat) -> str:
    match node:
        case ast.Integer(value=v):
            return str(v)
        case ast.Real(value=v):
            return real(v)
        case ast.String(value=v):
            return quote_string(v)
        case ast.Boolean(value=v):
            return "true" if v else "false"
        case ast.UndefinedLit():
            return "undefined"
        case ast.ErrorLit():
            return "error"
        case ast.AttrRef(name=name, scope=None):
            return quote_name(name)
        case ast.AttrRef(name=name, scope=ast.ROOT):
            return f".{quote_name(name)}"
        case ast.AttrRef(name=name, scope=scope):
            return f"{scope}.{quote_name(name)}"
        case ast.Select(base=base, name=name):
            return f"{_postfix_base(base, real)}.{quote_name(name)}"
        case ast.Subscript(base=base, index=index):
            return f"{_postfix_base(base, real)}[{_unparse(index, real)}]"
        case ast.ListExpr(items=items):
            return "{" + ", ".join(_unparse(i, real) for i in items) + "}"
        case ast.RecordExpr(attrs=attrs):
            return "[" + "; ".join(f"{quote_name(k)} = {_unparse(v, real)}" for k, v in attrs) + "]"
        case ast.Call(name=name, args=args):
            return f"{name}(" + ", ".join(_unparse(a, real) for a in args) + ")"
        case ast.Unary(op=op, operand=operand):
            text = _wrap(operand, UNARY, real)
            # `- 5` is unary minus applied to 5; `-5` would be the literal -5.
            gap = " " if op in "+-" and text[:1] in "0123456789.+-" else ""
            return f"{op}{gap}{text}"
        case ast.Binary(op=op, left=left, right=right):
            level = BINARY_PRECEDENCE[op]
            return f"{_wrap(left, level, real)} {op} {_wrap(right, level + 1, real)}"
        case ast.Elvis(left=left, right=right):
            return f"{_wrap(left, ELVIS, real)} ?: {_wrap(right, PRIMARY, real)}"
        case ast.Conditional(cond=cond, then=then, otherwise=otherwise):
            return f"{_wrap(cond, CONDITIONAL + 1, real)} ? {_unparse(then, real)} : {_unparse(otherwise, real)}"
        case _:
            raise TypeError(f"not a ClassAd expression node: {node!r}")


def unparse(expr: ast.Expr) -> str:
    """ClassAd text for `expr` with minimal parentheses (`parse(unparse(e)) == e`)."""
    return call_deep(_unparse, expr, real_literal)


def unparse_classad_style(expr: ast.Expr) -> str:
    """Like `unparse`, but reals written as HTCondor does (`2.500000000000000E+00`)."""
    return call_deep(_unparse, expr, format_real)


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


def format_value(value: Any) -> str:
    """A runtime value in ClassAd syntax, as `classad_eval` prints results."""
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
            return format_real(value)
        case str():
            return quote_string(value)
        case list() | tuple():
            return "{ " + ",".join(format_value(v) for v in value) + " }"
        case dict():
            body = "; ".join(f"{quote_name(k)} = {format_value(v)}" for k, v in value.items())
            return "[ " + body + " ]"
        case _:
            raise TypeError(f"not a ClassAd value: {value!r}")
