"""Stage 2 of the configuration reader: a logical line -> one statement.

Mirrors how HTCondor splits a line: the name is the first run of characters up to
whitespace, `=` or `:`; if whitespace came first, further words may precede the operator
(`use POLICY : Desktop`, `include ifexist : f`); the operators are `=`, `:`, `@=` and
`+=` (optionally `+,=`, `+;=`, `+|=`, `+&=`, `+*=`, doubled `+&&=` ...). `use`, `include`,
`error` and `warning` are keywords only before a `:`.

Conditionals (`if`, `elif`, `else`, `endif`) are recognised first, as the real reader
does. Nothing is evaluated here; names still contain `$(...)`.
"""

from __future__ import annotations

import msgspec

#: Characters that may follow `+` in `NAME +<sep>= value`.
PLUS_SEPARATORS = ",;|&*"


class Assign(msgspec.Struct, frozen=True):
    """`NAME = value`, `NAME : value` (colon=True), `NAME += value` (plus=separator)."""

    name: str
    value: str
    colon: bool = False
    plus: str | None = None
    value_column: int = 1


class HereStart(msgspec.Struct, frozen=True):
    """`NAME @=tag`: the following lines up to `@tag` are the value."""

    name: str
    tag: str


class Use(msgspec.Struct, frozen=True):
    """`use CATEGORY : Template[(args)][, Template2 ...]`."""

    category: str
    templates: str


class Include(msgspec.Struct, frozen=True):
    """`include [ifexist] [command] [into FILE] : path-or-command`."""

    target: str
    if_exists: bool
    command: bool
    into: str | None


class Message(msgspec.Struct, frozen=True):
    """`error : text` (fatal) or `warning : text`."""

    fatal: bool
    text: str


class Conditional(msgspec.Struct, frozen=True):
    """`if EXPR`, `elif EXPR`, `else`, `endif`."""

    keyword: str
    condition: str


class Ignored(msgspec.Struct, frozen=True):
    """A `[Section]` line (Windows .ini style), which HTCondor skips."""


class Invalid(msgspec.Struct, frozen=True):
    """A line HTCondor rejects; `reason` says why."""

    reason: str
    column: int = 1


Statement = Assign | HereStart | Use | Include | Message | Conditional | Ignored | Invalid

_CONDITIONAL_KEYWORDS = ("if", "elif", "else", "endif")


def conditional_of(text: str) -> Conditional | None:
    """The conditional statement on this line, if it is one."""
    for keyword in _CONDITIONAL_KEYWORDS:
        n = len(keyword)
        if text[:n].lower() == keyword and (len(text) == n or text[n].isspace()):
            return Conditional(keyword, text[n:].strip())
    return None


def _scan_operator(text: str, start: int) -> tuple[str, int, int] | None:
    """Find the operator after whitespace: returns (op, op_start, value_start).

    op is one of "=", ":", "@=", "+<sep>=" spelled as "+" followed by the separator text.
    """
    pos = start
    while pos < len(text) and text[pos] not in "=:@+":
        pos += 1
    if pos >= len(text):
        return None
    char = text[pos]
    if char in "=:":
        return char, pos, pos + 1
    if char == "@":
        if text[pos + 1 : pos + 2] == "=":
            return "@=", pos, pos + 2
        return None
    after = pos + 1
    separator = ""
    if after < len(text) and text[after] in PLUS_SEPARATORS:
        separator = text[after]
        after += 1
        if after < len(text) and text[after] == separator:
            separator += separator
            after += 1
    if text[after : after + 1] == "=":
        return "+" + separator, pos, after + 1
    return None


def _include_options(words: str) -> tuple[bool, bool, str | None] | str:
    """Parse the words between `include` and `:`; a string result is an error."""
    tokens = words.split()
    if_exists = command = False
    into: str | None = None
    index = 0
    if index < len(tokens) and tokens[index].lower() in ("ifexist", "ifexists"):
        if_exists = True
        index += 1
    if index < len(tokens) and tokens[index].lower() in ("command", "output"):
        command = True
        index += 1
    if index < len(tokens) and tokens[index].lower() == "into":
        if index + 1 >= len(tokens):
            return "expected a file name after keyword 'into'"
        into = tokens[index + 1]
        index += 2
    if index != len(tokens):
        return f"unexpected keyword(s) '{words.strip()}' after include"
    return if_exists, command, into


def parse_statement(text: str) -> Statement:
    """Classify one logical line (already trimmed, not a comment, not blank)."""
    conditional = conditional_of(text)
    if conditional is not None:
        return conditional
    pos = 0
    while pos < len(text) and not text[pos].isspace() and text[pos] not in "=:":
        pos += 1
    if pos >= len(text):
        if text.startswith("["):
            return Ignored()
        return Invalid("missing operator: expected NAME = value", 1)
    name = text[:pos]
    words = ""
    if text[pos] in "=:":
        op, op_start, value_start = text[pos], pos, pos + 1
    else:
        found = _scan_operator(text, pos)
        if found is None:
            return Invalid("missing operator: expected NAME = value", pos + 1)
        op, op_start, value_start = found
        words = text[pos:op_start]
    rest = text[value_start:]
    value = rest.lstrip()
    value_column = value_start + (len(rest) - len(rest.lstrip())) + 1
    keyword = name[1:] if name.startswith("@") else name
    if op == ":":
        match keyword.lower():
            case "use":
                return Use(words.strip(), value)
            case "include":
                options = _include_options(words)
                if isinstance(options, str):
                    return Invalid(options, pos + 1)
                if_exists, command, into = options
                return Include(value, if_exists, command, into)
            case "error" | "warning":
                return Message(keyword.lower() == "error", value)
            case _:
                return Assign(name, value, colon=True, value_column=value_column)
    if op == "@=":
        return HereStart(name, value)
    if op.startswith("+"):
        return Assign(name, value, plus=op[1:] or " ", value_column=value_column)
    return Assign(name, value, value_column=value_column)


def is_valid_name(name: str) -> bool:
    """HTCondor's identifier rule: letters, digits, `_`, `.` and `/`, not empty."""
    return bool(name) and all(c.isascii() and (c.isalnum() or c in "_./") for c in name)
