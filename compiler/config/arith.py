"""A tiny arithmetic evaluator for the config-time functions `$INT`, `$REAL`, `$EVAL`.

Policy templates compute small numbers at configuration time (`$INT(WorkdayEndMinute)`
where the macro holds `(17)*60 + 0.5`). HTCondor evaluates those as ClassAd expressions;
numbers, `+ - * / %`, unary minus and parentheses are all the templates need, so this
recursive-descent parser handles exactly that and refuses anything else. It never calls
Python's `eval`.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(
    r"\s*(?:(\d+\.\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|\d+(?:[eE][-+]?\d+)?)|(.))"
)


class ArithmeticError_(ValueError):
    """The text is not a plain arithmetic expression."""


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    for number, other in _TOKEN.findall(text):
        if number:
            out.append(number)
        elif other.strip():
            out.append(other)
    return out


def evaluate_arithmetic(text: str) -> int | float:
    """Value of an arithmetic expression over integer and real literals."""
    tokens = _tokens(text)
    if not tokens:
        raise ArithmeticError_("empty expression")
    value, pos = _sum(tokens, 0)
    if pos != len(tokens):
        raise ArithmeticError_(f"unexpected '{tokens[pos]}'")
    return value


def _sum(tokens: list[str], pos: int) -> tuple[int | float, int]:
    value, pos = _product(tokens, pos)
    while pos < len(tokens) and tokens[pos] in "+-":
        op = tokens[pos]
        right, pos = _product(tokens, pos + 1)
        value = value + right if op == "+" else value - right
    return value, pos


def _product(tokens: list[str], pos: int) -> tuple[int | float, int]:
    value, pos = _unary(tokens, pos)
    while pos < len(tokens) and tokens[pos] in "*/%":
        op = tokens[pos]
        right, pos = _unary(tokens, pos + 1)
        if op == "*":
            value = value * right
        elif right == 0:
            raise ArithmeticError_("division by zero")
        elif op == "/":
            both_int = isinstance(value, int) and isinstance(right, int)
            value = int(value / right) if both_int else value / right
        else:
            value = value % right
    return value, pos


def _unary(tokens: list[str], pos: int) -> tuple[int | float, int]:
    if pos >= len(tokens):
        raise ArithmeticError_("expression ends early")
    token = tokens[pos]
    if token == "-":
        value, pos = _unary(tokens, pos + 1)
        return -value, pos
    if token == "+":
        return _unary(tokens, pos + 1)
    if token == "(":
        value, pos = _sum(tokens, pos + 1)
        if pos >= len(tokens) or tokens[pos] != ")":
            raise ArithmeticError_("missing ')'")
        return value, pos + 1
    if token[0].isdigit() or token[0] == ".":
        number: int | float = float(token) if any(c in token for c in ".eE") else int(token)
        return number, pos + 1
    raise ArithmeticError_(f"unexpected '{token}'")
