"""Macro expansion (stage: raw configuration value -> expanded text, at lookup time).

HTCondor keeps configuration values unexpanded and expands `$(NAME)` when a value is
looked up, so `C = $(A)` sees the last `A` in the file. This module does that expansion
over any `Resolver` (the reader's table while reading, the finished `Config` later):

* `$(NAME)` and `$(NAME:default)` (default used when NAME is undefined or empty; the
  default may itself contain macros; the name may be built from macros, `$($(1))`);
* `$(DOLLAR)` -> `$`; `$$(...)` is left as it is, for match time;
* `$ENV(VAR)` / `$ENV(VAR:default)` (unset without default -> `UNDEFINED`);
* the config-time functions `$INT`, `$REAL`, `$STRING`, `$EVAL`, `$SUBSTR`, `$CHOICE`,
  `$BASENAME`, `$DIRNAME`, and `$RANDOM_INTEGER` / `$RANDOM_CHOICE` (made deterministic:
  the first choice, so that a compiled policy is reproducible).

Unlike HTCondor, which loops forever on `A = $(B)`, `B = $(A)`, a cycle raises
`MacroCycle` naming the chain. Expansion never evaluates user text with Python `eval`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from compiler.config.arith import ArithmeticError_, evaluate_arithmetic

#: Deepest chain of nested macro references we follow before giving up.
MAX_DEPTH = 400

_NAME_CHARS = re.compile(r"[A-Za-z0-9_./]+\Z")
_FUNCTION = re.compile(r"\$([A-Za-z_]+)\(")


class Resolver(Protocol):
    """Where macro names get their raw (unexpanded) values."""

    def raw(self, name: str) -> str | None:
        """The raw value of NAME after subsystem rules and defaults, or None."""
        ...


class MacroCycle(Exception):
    """A macro refers back to itself through other macros."""

    def __init__(self, chain: tuple[str, ...]) -> None:
        super().__init__(" -> ".join(chain))
        self.chain = chain


class MacroProblem(Exception):
    """A config-time function could not be evaluated (bad argument, too deep ...)."""


@dataclass(frozen=True, slots=True)
class Context:
    """What expansion needs besides the table: the environment for `$ENV`."""

    env: Mapping[str, str]


def find_close(text: str, open_pos: int) -> int:
    """Index of the `)` matching the `(` at open_pos, or -1 (nesting aware)."""
    depth = 0
    for pos in range(open_pos, len(text)):
        char = text[pos]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return pos
    return -1


def split_default(body: str) -> tuple[str, str | None]:
    """`NAME:default` -> (NAME, default); the colon outside nested `$(...)`."""
    depth = 0
    for pos, char in enumerate(body):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == ":" and depth == 0:
            return body[:pos], body[pos + 1 :]
    return body, None


def expand(text: str, resolver: Resolver, context: Context, stack: tuple[str, ...] = ()) -> str:
    """Expand every macro in `text`; `stack` holds the names being expanded."""
    if "$" not in text:
        return text
    out: list[str] = []
    pos = 0
    while True:
        dollar = text.find("$", pos)
        if dollar < 0:
            out.append(text[pos:])
            return "".join(out)
        out.append(text[pos:dollar])
        consumed = _expand_one(text, dollar, resolver, context, stack, out)
        pos = consumed


def _expand_one(
    text: str,
    dollar: int,
    resolver: Resolver,
    context: Context,
    stack: tuple[str, ...],
    out: list[str],
) -> int:
    """Expand the macro starting at `dollar`, append its text, return the next index."""
    nxt = text[dollar + 1 : dollar + 2]
    if nxt == "$" and text[dollar + 2 : dollar + 3] == "(":
        close = find_close(text, dollar + 2)
        if close < 0:
            out.append(text[dollar:])
            return len(text)
        out.append(text[dollar : close + 1])
        return close + 1
    if nxt == "(":
        close = find_close(text, dollar + 1)
        if close < 0:
            out.append(text[dollar:])
            return len(text)
        body = text[dollar + 2 : close]
        replacement = _expand_reference(body, resolver, context, stack)
        if replacement is None:
            out.append(text[dollar : close + 1])
        else:
            out.append(replacement)
        return close + 1
    match = _FUNCTION.match(text, dollar)
    if match:
        close = find_close(text, match.end() - 1)
        if close >= 0:
            body = text[match.end() : close]
            result = _function(match.group(1), body, resolver, context, stack)
            if result is not None:
                out.append(result)
                return close + 1
    out.append("$")
    return dollar + 1


def _expand_reference(
    body: str, resolver: Resolver, context: Context, stack: tuple[str, ...]
) -> str | None:
    """The text for `$(body)`, or None when body is not a macro reference."""
    name, default = split_default(body)
    if "$" in name:
        name = expand(name, resolver, context, stack)
    name = name.strip()
    if not _NAME_CHARS.match(name):
        return None
    if name.upper() == "DOLLAR" and default is None:
        return "$"
    key = name.upper()
    if key in stack:
        start = stack.index(key)
        raise MacroCycle((*stack[start:], key))
    if len(stack) >= MAX_DEPTH:
        raise MacroProblem(f"macro references nested more than {MAX_DEPTH} deep at $({name})")
    raw = resolver.raw(name)
    if not raw:
        if default is None:
            return ""
        return expand(default, resolver, context, stack)
    return expand(raw, resolver, context, (*stack, key))


def _lookup_expanded(
    name: str, resolver: Resolver, context: Context, stack: tuple[str, ...]
) -> str:
    return _expand_reference(name.strip(), resolver, context, stack) or ""


def _function(
    fname: str, body: str, resolver: Resolver, context: Context, stack: tuple[str, ...]
) -> str | None:
    """Config-time functions; None leaves the text as written (unknown function)."""
    match fname:
        case "ENV":
            var, default = split_default(body)
            var = expand(var, resolver, context, stack).strip()
            value = context.env.get(var)
            if value is None:
                return "UNDEFINED" if default is None else expand(default, resolver, context, stack)
            return value
        case "RANDOM_INTEGER":
            args = _args(expand(body, resolver, context, stack))
            try:
                return str(int(args[0]))
            except (ValueError, IndexError) as err:
                raise MacroProblem(f"$RANDOM_INTEGER({body}) needs integer bounds") from err
        case "RANDOM_CHOICE":
            args = _args(expand(body, resolver, context, stack))
            return args[0] if args else ""
        case "INT" | "REAL" | "EVAL" | "STRING":
            return _evaluate(fname, body, resolver, context, stack)
        case "SUBSTR":
            return _substr(body, resolver, context, stack)
        case "CHOICE":
            args = _args(body)
            if not args:
                raise MacroProblem("$CHOICE() needs an index and a list")
            index = _evaluate("INT", args[0], resolver, context, stack)
            choices = args[1:]
            if len(choices) == 1:
                choices = _args(_lookup_expanded(choices[0], resolver, context, stack))
            position = int(index)
            if not 0 <= position < len(choices):
                raise MacroProblem(f"$CHOICE index {position} is out of range")
            return expand(choices[position], resolver, context, stack)
        case "BASENAME":
            return posixpath.basename(_lookup_expanded(body, resolver, context, stack))
        case "DIRNAME":
            return posixpath.dirname(_lookup_expanded(body, resolver, context, stack))
        case _:
            return None


def _args(text: str) -> list[str]:
    return [part.strip() for part in text.split(",")]


def _evaluate(
    fname: str, body: str, resolver: Resolver, context: Context, stack: tuple[str, ...]
) -> str:
    """`$INT(NAME[,fmt])` and friends: NAME's value evaluated as arithmetic."""
    args = _args(body)
    target = args[0]
    if _NAME_CHARS.match(target) and not target.lstrip("-").replace(".", "", 1).isdigit():
        text = _lookup_expanded(target, resolver, context, stack)
    else:
        text = expand(target, resolver, context, stack)
    if fname == "STRING":
        return text
    try:
        value = evaluate_arithmetic(text)
    except ArithmeticError_ as err:
        raise MacroProblem(f"${fname}({body}): cannot evaluate '{text}': {err}") from err
    if fname == "INT":
        return str(int(value))
    if fname == "REAL":
        return repr(float(value))
    return str(value)


def _substr(body: str, resolver: Resolver, context: Context, stack: tuple[str, ...]) -> str:
    args = _args(body)
    if len(args) < 2:
        raise MacroProblem("$SUBSTR(name, start[, length]) needs a start")
    text = _lookup_expanded(args[0], resolver, context, stack)
    try:
        start = int(args[1])
        length = int(args[2]) if len(args) > 2 else None
    except ValueError as err:
        raise MacroProblem(f"$SUBSTR({body}): start and length must be integers") from err
    if start < 0:
        start = max(0, len(text) + start)
    piece = text[start:]
    if length is not None:
        piece = piece[:length]
    return piece


def expand_self(value: str, selves: frozenset[str], previous: Callable[[str], str | None]) -> str:
    """Replace references to the name being assigned by its previous raw value.

    This happens at assignment time (`START = ($(START)) || ...` extends the previous
    START, or its built-in default); every other macro is left for lookup time, exactly
    like HTCondor's `expand_self_macro`. `selves` holds the upper-cased names that count
    as "self" (the name, and for `STARTD.X` also `X`); `previous(name)` gives the raw
    value a reference would see now. `$(NAME:default)` uses the default when that is
    empty.
    """
    if "$(" not in value:
        return value
    out: list[str] = []
    pos = 0
    while True:
        dollar = value.find("$(", pos)
        if dollar < 0:
            out.append(value[pos:])
            return "".join(out)
        close = find_close(value, dollar + 1)
        if close < 0:
            out.append(value[pos:])
            return "".join(out)
        if dollar > 0 and value[dollar - 1] == "$":
            out.append(value[pos : close + 1])
            pos = close + 1
            continue
        ref, default = split_default(value[dollar + 2 : close])
        out.append(value[pos:dollar])
        if ref.strip().upper() in selves:
            earlier = previous(ref.strip())
            if earlier:
                out.append(earlier)
            elif default is not None:
                out.append(expand_self(default, selves, previous))
        else:
            out.append(value[dollar : close + 1])
        pos = close + 1
