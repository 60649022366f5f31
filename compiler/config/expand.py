"""Macro expansion (stage: raw configuration value -> expanded text, at look-up time).

HTCondor keeps values unexpanded and expands them when they are looked up, so
`C = $(A)` sees the last `A` in the file. Its algorithm, which this module follows step
for step because the corner cases are visible in real files, is textual:

1. find the leftmost macro: `$(`, `$ENV(`, `$INT(` ... (a `$$(` is never one);
   a plain `$(...)` body must be a name (letters, digits, `_./`), optionally followed by
   `:` and a default made of name characters, `$ ,\\:` and parenthesised groups; anything
   else (a quote, say) means "not a macro" and the text stays as written;
2. replace it by the *raw* value of the name (built-in defaults included), or by the
   default text when that value is missing or empty, or by nothing;
3. start again from the beginning, until no macro is left; then `$(DOLLAR)` becomes `$`.

`$RANDOM_INTEGER` / `$RANDOM_CHOICE` pick their first choice (HTCondor picks at random;
a compiled policy must be reproducible). HTCondor loops forever on `A = $(B)`,
`B = $(A)`; we stop after `MAX_STEPS` substitutions and raise `MacroCycle` naming the
chain. Nothing here evaluates user text with Python `eval`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from compiler.config.arith import ArithmeticError_, evaluate_arithmetic

#: Substitutions one look-up may make before we call it a cycle.
MAX_STEPS = 20000
#: Longest expansion we build before we call it runaway growth.
MAX_LENGTH = 1_000_000

#: Characters allowed after the `:` of `$(NAME:default)` besides name characters.
_DEFAULT_EXTRA = "$ ,\\:"
_SPECIALS = {
    "$ENV": "ENV",
    "$RANDOM_CHOICE": "RANDOM_CHOICE",
    "$RANDOM_INTEGER": "RANDOM_INTEGER",
    "$CHOICE": "CHOICE",
    "$SUBSTR": "SUBSTR",
    "$INT": "INT",
    "$REAL": "REAL",
    "$STRING": "STRING",
    "$EVAL": "EVAL",
    "$BASENAME": "BASENAME",
    "$DIRNAME": "DIRNAME",
}
_REFERENCE = re.compile(r"\$\(([A-Za-z0-9_./]+)[:)]")


class Resolver(Protocol):
    """Where macro names get their raw (unexpanded) values."""

    def raw(self, name: str) -> str | None:
        """The raw value of NAME after subsystem rules and defaults, or None."""
        ...


class MacroCycle(Exception):
    """A macro refers back to itself through other macros."""

    def __init__(self, chain: tuple[str, ...]) -> None:
        shown = chain if len(chain) <= 12 else (*chain[:5], "...", *chain[-5:])
        text = " -> ".join(shown) if chain else "expansion does not terminate"
        if len(chain) > 12:
            text += f" ({len(chain) - 1} macros)"
        super().__init__(text)
        self.chain = chain


class MacroProblem(Exception):
    """A config-time function could not be evaluated (bad argument ...)."""


@dataclass(frozen=True, slots=True)
class Context:
    """What expansion needs besides the table: the environment for `$ENV`."""

    env: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Macro:
    """One macro found in a text: `text[start:end]` is `$KIND(body)`."""

    kind: str
    start: int
    end: int
    body: str


def _is_name_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char in "_./")


def _kind(prefix: str) -> tuple[str, bool] | None:
    """(kind, body restricted to names) for a `$PREFIX(`, or None if not a macro."""
    if prefix == "$":
        return "NORMAL", True
    if prefix.startswith("$$"):
        return None
    if prefix.startswith("$F") and all(c.lower() in "pnxdqabfwu" for c in prefix[2:]):
        return "FILENAME", False
    kind = _SPECIALS.get(prefix)
    if kind is None:
        return None
    return kind, kind == "ENV"


def _scan_body(text: str, start: int, names_only: bool) -> int:
    """Index of the `)` closing a body that starts at `start`, or -1 if invalid."""
    pos = start
    if not names_only:
        close = text.find(")", pos)
        return close
    after_colon = False
    while pos < len(text) and text[pos] != ")":
        char = text[pos]
        pos += 1
        if char == ":" and not after_colon:
            after_colon = True
            continue
        if after_colon:
            if char == "(":
                close = text.find(")", pos)
                if close >= 0:
                    pos = close + 1
                    continue
            elif char in _DEFAULT_EXTRA:
                continue
        if not _is_name_char(char):
            return -1
    return pos if pos < len(text) else -1


def next_macro(
    text: str, start: int = 0, skip: Callable[[Macro], bool] | None = None
) -> Macro | None:
    """The leftmost macro at or after `start` that `skip` does not reject."""
    pos = start
    while True:
        dollar = text.find("$", pos)
        if dollar < 0:
            return None
        cursor = dollar + 1
        if cursor < len(text) and text[cursor] == "$":
            cursor += 1
        while (
            cursor < len(text)
            and text[cursor].isascii()
            and (text[cursor].isalnum() or text[cursor] == "_")
        ):
            cursor += 1
        if cursor < len(text) and text[cursor] == "(":
            found = _kind(text[dollar:cursor])
            if found is not None:
                kind, names_only = found
                close = _scan_body(text, cursor + 1, names_only)
                if close < 0:
                    pos = cursor + 1
                    continue
                macro = Macro(kind, dollar, close + 1, text[cursor + 1 : close])
                if skip is not None and skip(macro):
                    pos = close
                    continue
                return macro
        pos = cursor if cursor > dollar else dollar + 1


def _is_dollar(macro: Macro) -> bool:
    return macro.kind == "NORMAL" and macro.body.upper() == "DOLLAR"


def expand(text: str, resolver: Resolver, context: Context, stack: tuple[str, ...] = ()) -> str:
    """Expand every macro in `text` the way HTCondor's `expand_macro` does.

    `stack` names the macro being looked up (for the cycle message only).
    """
    steps = 0
    while True:
        macro = next_macro(text, 0, _is_dollar)
        if macro is None:
            break
        steps += 1
        if steps > MAX_STEPS or len(text) > MAX_LENGTH:
            raise MacroCycle(find_cycle(stack, text, resolver))
        replacement = evaluate_macro(macro, resolver, context)
        text = text[: macro.start] + replacement + text[macro.end :]
    while True:
        macro = next_macro(text, 0, lambda m: not _is_dollar(m))
        if macro is None:
            return text
        text = text[: macro.start] + "$" + text[macro.end :]


def evaluate_macro(macro: Macro, resolver: Resolver, context: Context) -> str:
    """The text that replaces one macro (for `$(NAME)`: a raw value, not yet expanded)."""
    match macro.kind:
        case "NORMAL":
            name, colon, default = macro.body.partition(":")
            value = resolver.raw(name)
            if colon and not value:
                return default
            return value or ""
        case "ENV":
            name, colon, default = macro.body.partition(":")
            found = context.env.get(name)
            if found is None:
                return default if colon else "UNDEFINED"
            return found
        case "RANDOM_INTEGER":
            first = macro.body.split(",")[0].strip()
            try:
                return str(int(first))
            except ValueError:
                return "0"
        case "RANDOM_CHOICE":
            entries = [e.strip() for e in macro.body.split(",")]
            if len(entries) == 1:
                listed = resolver.raw(entries[0])
                if listed is not None:
                    items = re.split(r"[\s,]+", expand(listed, resolver, context).strip())
                    entries = [i for i in items if i]
            return entries[0] if entries else ""
        case "INT" | "REAL" | "EVAL" | "STRING":
            return _evaluate(macro, resolver, context)
        case "SUBSTR":
            return _substr(macro.body, resolver, context)
        case "CHOICE":
            return _choice(macro.body, resolver, context)
        case "BASENAME" | "DIRNAME" | "FILENAME":
            value = resolver.raw(macro.body.split(",")[0].strip()) or macro.body
            path = expand(value, resolver, context)
            if macro.kind == "DIRNAME":
                return posixpath.dirname(path)
            return posixpath.basename(path) if macro.kind == "BASENAME" else path
        case _:  # pragma: no cover - _kind only produces the kinds above
            raise AssertionError(macro.kind)


def _macro_value(name: str, resolver: Resolver, context: Context) -> str:
    value = resolver.raw(name.strip())
    text = name.strip() if value is None else value
    return expand(text, resolver, context) if "$" in text else text


def _evaluate(macro: Macro, resolver: Resolver, context: Context) -> str:
    """`$INT(NAME[,fmt])` and friends: NAME's value (or the text) evaluated as a number."""
    name = macro.body.split(",")[0]
    text = _macro_value(name, resolver, context)
    if macro.kind == "STRING":
        stripped = text.strip()
        if len(stripped) >= 2 and stripped[0] == stripped[-1] == '"':
            return stripped[1:-1]
        return text
    try:
        value = evaluate_arithmetic(text)
    except ArithmeticError_ as err:
        raise MacroProblem(f"${macro.kind}({macro.body}): '{text}' is not a number: {err}") from err
    if macro.kind == "INT":
        return str(int(value))
    if macro.kind == "REAL":
        return f"{float(value):.16G}"
    return str(value)


def _substr(body: str, resolver: Resolver, context: Context) -> str:
    parts = [p.strip() for p in body.split(",")]
    if len(parts) < 2:
        raise MacroProblem(f"$SUBSTR({body}) needs a start position")
    text = _macro_value(parts[0], resolver, context)
    try:
        start = int(parts[1])
        length = int(parts[2]) if len(parts) > 2 else None
    except ValueError as err:
        raise MacroProblem(f"$SUBSTR({body}): positions must be integers") from err
    if start < 0:
        start = max(0, len(text) + start)
    piece = text[start:]
    if length is not None:
        piece = piece[: max(0, length if length >= 0 else len(piece) + length)]
    return piece


def _choice(body: str, resolver: Resolver, context: Context) -> str:
    parts = [p.strip() for p in body.split(",")]
    try:
        index = int(evaluate_arithmetic(_macro_value(parts[0], resolver, context)))
    except ArithmeticError_ as err:
        raise MacroProblem(f"$CHOICE({body}): the index is not a number") from err
    choices = parts[1:]
    if len(choices) == 1 and resolver.raw(choices[0]) is not None:
        choices = [c.strip() for c in _macro_value(choices[0], resolver, context).split(",")]
    if not 0 <= index < len(choices):
        raise MacroProblem(f"$CHOICE({body}): index {index} is out of range")
    return choices[index]


def references(raw: str) -> list[str]:
    """Upper-cased names a raw value refers to with `$(NAME)` or `$(NAME:...)`."""
    return [m.group(1).upper() for m in _REFERENCE.finditer(raw)]


def find_cycle(stack: tuple[str, ...], text: str, resolver: Resolver) -> tuple[str, ...]:
    """A chain of names that refer to each other, reachable from the looked-up name.

    Iterative depth-first search, so that a chain of thousands of macros cannot exhaust
    Python's recursion limit.
    """
    done: set[str] = set()
    for root in (*stack, *references(text)):
        if root in done:
            continue
        path = [root]
        pending = [iter(references(resolver.raw(root) or ""))]
        while pending:
            ref = next(pending[-1], None)
            if ref is None:
                done.add(path.pop())
                pending.pop()
            elif ref in path:
                return (*path[path.index(ref) :], ref)
            elif ref not in done:
                path.append(ref)
                pending.append(iter(references(resolver.raw(ref) or "")))
    return tuple(stack)


def expand_self(value: str, selves: frozenset[str], previous: Callable[[str], str | None]) -> str:
    """Replace references to the name being assigned by its previous raw value.

    Done at assignment time, like HTCondor's `expand_self_macro`: `START = ($(START)) ||
    ...` extends the earlier START (or the built-in default); every other macro waits
    for look-up time. `selves` holds the upper-cased names that count as self (for
    `STARTD.X` also `X`); `previous(name)` is the raw value such a reference sees now.
    """

    def not_self(macro: Macro) -> bool:
        if macro.kind not in ("NORMAL", "FILENAME"):
            return True
        return macro.body.partition(":")[0].upper() not in selves

    steps = 0
    while True:
        macro = next_macro(value, 0, not_self)
        if macro is None:
            return value
        steps += 1
        if steps > MAX_STEPS:
            return value
        name, colon, default = macro.body.partition(":")
        earlier = previous(name)
        replacement = default if colon and not earlier else (earlier or "")
        value = value[: macro.start] + replacement + value[macro.end :]


def empty_self_references(
    value: str, selves: frozenset[str], previous: Callable[[str], str | None]
) -> tuple[str, ...]:
    """The references `expand_self` will replace by nothing (no earlier value, no default).

    Kept so that an error message can say a name was defined too late.
    """
    found: list[str] = []
    position = 0
    while (macro := next_macro(value, position)) is not None:
        position = macro.end
        if macro.kind not in ("NORMAL", "FILENAME"):
            continue
        name, colon, default = macro.body.partition(":")
        if name.upper() in selves and not previous(name) and not (colon and default):
            found.append(name)
    return tuple(found)
