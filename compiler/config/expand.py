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

The function macros follow config.cpp's `evaluate_macro_func`: `$INT` / `$REAL` /
`$STRING` with a printf format (compiler.config.cformat), `$EVAL` and the number
reading of `$INT` / `$REAL` / `$CHOICE` / `$SUBSTR` through the ClassAd evaluator
(compiler.config.arith), the `$F<letters>` / `$BASENAME` / `$DIRNAME` file-name parts
(compiler.config.filename). What HTCondor reports through `might_EXCEPT` (a non-number,
a rejected format, an index out of range) expands as `condor_config_val` expands it
(to nothing, or to the rejected format); `Context.strict` makes it a `MacroProblem`
instead, as daemons stop on it. Where HTCondor's C code has undefined behaviour (more
`d`s than directories, `%p` of a string) we raise `MacroProblem` rather than guess.

`$RANDOM_INTEGER` / `$RANDOM_CHOICE` pick their first choice (HTCondor picks at random;
a compiled policy must be reproducible). HTCondor loops forever on `A = $(B)`,
`B = $(A)`; we stop after `MAX_STEPS` substitutions and raise `MacroCycle` naming the
chain. Nothing here evaluates user text with Python `eval`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Protocol

import msgspec

from compiler.config.arith import config_eval, config_integer, config_real, config_string
from compiler.config.cformat import (
    FormatUndefined,
    Kind,
    format_int,
    format_real,
    format_string,
    parse_format,
)
from compiler.config.filename import BASENAME, DIRNAME, FilenameUndefined, Letters, file_part

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


class Context(msgspec.Struct, frozen=True):
    """What expansion needs besides the table: the environment for `$ENV`.

    `strict`: refuse what HTCondor's daemons refuse (config.cpp `might_EXCEPT`, armed by
    daemon_core_main.cpp's `CONFIG_OPT_WANT_EXCEPT`): a `$INT` of a non-number, a bad
    format, a `$CHOICE` index out of range. `condor_config_val` and the Python bindings
    expand those to nothing (or to the rejected format), which is the default here.
    """

    env: Mapping[str, str]
    strict: bool = False


class Macro(msgspec.Struct, frozen=True):
    """One macro found in a text: `text[start:end]` is `$KIND(body)`."""

    kind: str
    start: int
    end: int
    body: str
    prefix: str = ""


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
                macro = Macro(
                    kind, dollar, close + 1, text[cursor + 1 : close], text[dollar:cursor]
                )
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
        case "INT" | "REAL":
            return _number(macro, resolver, context)
        case "STRING":
            return _string(macro.body, resolver, context)
        case "EVAL":
            return _eval(macro.body, resolver, context)
        case "SUBSTR":
            return _substr(macro.body, resolver, context)
        case "CHOICE":
            return _choice(macro.body, resolver, context)
        case "BASENAME" | "DIRNAME" | "FILENAME":
            return _file_part(macro, resolver, context)
        case _:  # pragma: no cover - _kind only produces the kinds above
            raise AssertionError(macro.kind)


def _complain(context: Context, message: str) -> str:
    """What HTCondor's `might_EXCEPT` does: a daemon stops (`context.strict`); the tools
    (`condor_config_val`, the Python bindings) say nothing and expand to nothing."""
    if context.strict:
        raise MacroProblem(message)
    return ""


def _lookup_or_text(name: str, resolver: Resolver, context: Context) -> str:
    """NAME's value, or NAME itself when no such macro exists, expanded if it has a `$`.

    No blanks are trimmed: `$INT(X , %d)` looks up `X ` (config.cpp `lookup_macro`).
    """
    value = resolver.raw(name)
    text = name if value is None else value
    return expand(text, resolver, context) if "$" in text else text


def _undefined(macro: str, err: ValueError) -> MacroProblem:
    return MacroProblem(f"{macro}: HTCondor's result is undefined here: {err}")


def _number(macro: Macro, resolver: Resolver, context: Context) -> str:
    """`$INT(NAME[,fmt])`, `$REAL(NAME[,fmt])` (config.cpp `evaluate_macro_func`).

    A format that `validatePrintfFormat` rejects is the expansion; a value that is not a
    number expands to nothing. Integers print with `%lld`, reals with `%.16G`; the C
    buffer keeps 55 bytes, and a formatted real without a `.` gets `.0` appended.
    """
    is_int = macro.kind == "INT"
    shown = f"${macro.kind}({macro.body})"
    name, comma, fmt = macro.body.partition(",")
    try:
        spec = parse_format(fmt, Kind.INT if is_int else Kind.FLOAT) if comma else None
    except FormatUndefined as err:
        raise _undefined(shown, err) from None
    if comma and spec is None:
        _complain(context, f"{shown}: '{fmt}' is not a valid format specifier")
        return fmt
    text = _lookup_or_text(name, resolver, context)
    try:
        if is_int:
            number = config_integer(text)
            if number is None:
                return _complain(context, f"{shown}: '{text}' does not evaluate to an integer")
            out = str(number) if spec is None else format_int(spec, number)
        else:
            real = config_real(text)
            if real is None:
                return _complain(context, f"{shown}: '{text}' does not evaluate to a real")
            out = _c_general(real) if spec is None else format_real(spec, real)
    except FormatUndefined as err:
        raise _undefined(shown, err) from None
    out = _c_bytes(out, 55)
    if not is_int and spec is not None and "." not in out:
        if len(out.encode("utf-8", "surrogateescape")) >= 55:
            raise _undefined(shown, FormatUndefined("'.0' overflows HTCondor's 57-byte buffer"))
        out += ".0"
    return out


def _c_general(value: float) -> str:
    """C's `%.16G` (Python's `%G` spells infinities and NaN as C does)."""
    return f"{value:.16G}"


def _c_bytes(text: str, limit: int) -> str:
    """`text` cut to `limit` bytes, as `snprintf` into a fixed buffer cuts it."""
    data = text.encode("utf-8", "surrogateescape")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", "surrogateescape")


def _string(body: str, resolver: Resolver, context: Context) -> str:
    """`$STRING(NAME[,fmt])`: NAME's value, unquoted when it evaluates to a ClassAd string."""
    name, comma, fmt = body.partition(",")
    try:
        spec = parse_format(fmt, Kind.STRING) if comma else None
    except FormatUndefined as err:
        raise _undefined(f"$STRING({body})", err) from None
    if comma and spec is None:
        _complain(context, f"$STRING({body}): '{fmt}' is not a valid format specifier")
        return fmt
    text = _lookup_or_text(name, resolver, context)
    value = config_string(text)
    if value is not None:
        text = value
    if spec is None:
        return text
    try:
        return format_string(spec, text)
    except FormatUndefined as err:
        raise _undefined(f"$STRING({body})", err) from None


def _eval(body: str, resolver: Resolver, context: Context) -> str:
    """`$EVAL(X)`: X's value (or X) evaluated as a ClassAd expression and unparsed.

    The whole body is the name (commas included). Text that does not parse expands to
    its macro-expanded self if it had a `$`, else to nothing.
    """
    value = resolver.raw(body)
    text = body if value is None else value
    expanded = expand(text, resolver, context) if "$" in text else None
    result = config_eval(text if expanded is None else expanded)
    if result is not None:
        return result
    return expanded or ""


def _int_argument(text: str, resolver: Resolver, context: Context) -> int | None:
    """A `$SUBSTR` / `$CHOICE` position: a macro name or a number, as an integer."""
    return config_integer(_lookup_or_text(text, resolver, context))


def _substr(body: str, resolver: Resolver, context: Context) -> str:
    """`$SUBSTR(NAME, start[, length])` over the bytes of NAME's expanded value.

    Negative start and length count from the end; NAME must be a macro (no literal
    fallback). Arguments are not trimmed before the macro look-up.
    """
    name, comma, rest = body.partition(",")
    if not comma:
        return _complain(context, f"$SUBSTR({body}): no length specified")
    start_arg, comma, length_arg = rest.partition(",")
    start = _int_argument(start_arg, resolver, context)
    if start is None or not -(2**31) <= start < 2**31 - 1:
        return _complain(context, f"$SUBSTR({body}): '{start_arg}' is an invalid start index")
    length = 2**30 - 1
    if comma:
        found = _int_argument(length_arg, resolver, context)
        if found is None or not -(2**31) <= found <= 2**31 - 1:
            return _complain(context, f"$SUBSTR({body}): '{length_arg}' is an invalid length")
        length = found
    value = resolver.raw(name)
    if value is None:
        return ""
    data = (expand(value, resolver, context) if "$" in value else value).encode(
        "utf-8", "surrogateescape"
    )
    size = len(data)
    start = min(max(start + size if start < 0 else start, 0), size)
    size -= start
    length = min(max(length + size if length < 0 else length, 0), size)
    try:
        return data[start : start + length].decode("utf-8")
    except UnicodeDecodeError:
        cut = ValueError("the cut splits a UTF-8 character")
        raise _undefined(f"$SUBSTR({body})", cut) from None


def _list_item(text: str, index: int) -> str | None:
    """`nth_list_item` (trimmed): the index-th comma-separated item, or None."""
    items = text.split(",")
    return items[index].strip(_C_BLANKS) if 0 <= index < len(items) else None


_C_BLANKS = " \t\n\v\f\r"


def _choice(body: str, resolver: Resolver, context: Context) -> str:
    """`$CHOICE(index, item0, item1, ...)` or `$CHOICE(index, LIST_NAME)`.

    The index is a macro name or a number (a bad index complains and counts as 0);
    a single list argument must name a macro whose expanded value is the list.
    """
    first = _list_item(body, 0) or ""
    index = _int_argument(first, resolver, context)
    if index is None or not 0 <= index < 2**31 - 1:
        _complain(context, f"$CHOICE({body}): '{first}' is an invalid index")
        index = 0
    rest = body.split(",", 1)[1] if "," in body else None
    if rest is None:
        return _complain(context, f"$CHOICE({body}): no list")
    items = rest.lstrip(_C_BLANKS)
    if "," not in items:
        listed = resolver.raw(items.rstrip(_C_BLANKS))
        if listed is None:
            return _complain(context, f"$CHOICE({body}): no list named '{items.strip()}'")
        items = expand(listed, resolver, context)
    item = _list_item(items, index)
    if item is None:
        return _complain(context, f"$CHOICE({body}): index {index} is out of range")
    return item


def _file_part(macro: Macro, resolver: Resolver, context: Context) -> str:
    """`$F<letters>(X)`, `$BASENAME(X[, suffix])`, `$DIRNAME(X)`: see compiler.config.filename.

    X is a macro name or a literal path; `$BASENAME` splits its suffix at the last comma.
    """
    name, suffix = macro.body, None
    if macro.kind == "BASENAME" and "," in name:
        name, _, suffix = name.rpartition(",")
        suffix = suffix.lstrip(_C_BLANKS)
    value = resolver.raw(name)
    text = name if value is None else value
    if "$" in text:
        text = expand(text, resolver, context)
    letters = {"BASENAME": BASENAME, "DIRNAME": DIRNAME}.get(macro.kind)
    try:
        return file_part(letters or Letters.of(macro.prefix[2:]), text, suffix)
    except FilenameUndefined as err:
        raise _undefined(f"{macro.prefix}({macro.body})", err) from None


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
