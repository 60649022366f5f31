"""`if` / `elif` conditions of the configuration language (evaluated while reading).

HTCondor accepts only simple conditions, after expanding macros in them: a leading `!`
negates; a number (true when non-zero); `true`/`false`, `yes`/`no`, `t`/`f` (any case);
an expansion to nothing (false); `defined NAME` (true when NAME has a non-empty raw
value, built-in defaults included), `defined <number or bool>`, `defined use CAT[:Name]`;
`version OP x.y[.z]` with OP in `== != < <= > >=` (a missing `.z` takes our own
sub-minor version; a major version below 6 is invalid). Anything else is an error.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import msgspec

_NUMBER = re.compile(r"-?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)\Z")
_IDENT = re.compile(r"[A-Za-z0-9_./]+\Z")
_VERSION = re.compile(r"version\s*(!?)\s*([<>=]?)(=?)\s*(.*)\Z", re.IGNORECASE | re.DOTALL)
_TRUE = ("true", "yes", "t")
_FALSE = ("false", "no", "f")


class ConditionError(ValueError):
    """The condition is not one HTCondor accepts; the message says why."""


class ConditionContext(msgspec.Struct, frozen=True):
    """What a condition may consult: raw look-up, template existence, our version."""

    raw: Callable[[str], str | None]
    has_template: Callable[[str, str | None], bool]
    version: tuple[int, int, int]


def _literal(text: str) -> bool | None:
    if _NUMBER.match(text):
        return float(text) != 0
    lowered = text.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    return None


def evaluate_condition(expanded: str, had_macros: bool, context: ConditionContext) -> bool:
    """Truth of an already macro-expanded condition."""
    text = expanded.strip()
    inverted = False
    if text.startswith("!"):
        inverted = True
        text = text[1:].strip()
    if had_macros and not text:
        return inverted
    result = _evaluate(text, context)
    return not result if inverted else result


def _evaluate(text: str, context: ConditionContext) -> bool:
    literal = _literal(text)
    if literal is not None:
        return literal
    lowered = text.lower()
    if lowered == "defined" or lowered.startswith(("defined ", "defined\t")):
        return _defined(text[len("defined") :].strip(), context)
    if lowered.startswith("version"):
        return _version(text, context)
    if _IDENT.match(text):
        raise ConditionError("expression is not a conditional")
    raise ConditionError("complex conditionals are not supported")


def _defined(argument: str, context: ConditionContext) -> bool:
    if not argument:
        return False
    if _literal(argument) is not None and not _IDENT.match(argument):
        return True
    if argument.lower().startswith("use "):
        rest = argument[4:].strip()
        if any(c.isspace() for c in rest):
            raise ConditionError("defined use meta argument with internal spaces will never match")
        category, _, name = rest.partition(":")
        return context.has_template(category, name or None)
    if _IDENT.match(argument):
        value = context.raw(argument)
        if value is None and _literal(argument) is not None:
            return True
        return bool(value)
    raise ConditionError("defined argument must be param name, boolean, or number")


def _version(text: str, context: ConditionContext) -> bool:
    match = _VERSION.match(text)
    if match is None:
        raise ConditionError("the version literal is invalid")
    negated, op, or_equal, literal = match.groups()
    literal = literal.strip()
    if literal[:1] in ("v", "V"):
        literal = literal[1:]
    numbers = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", literal)
    if numbers is None or int(numbers.group(1)) < 6:
        raise ConditionError("the version literal is invalid")
    theirs = (
        int(numbers.group(1)),
        int(numbers.group(2)),
        int(numbers.group(3)) if numbers.group(3) is not None else context.version[2],
    )
    ours = context.version
    difference = (ours > theirs) - (ours < theirs)
    wanted = {"<": -1, "=": 0, ">": 1, "": 0}[op]
    result = difference == wanted or (bool(or_equal) and difference == 0)
    return not result if negated else result
