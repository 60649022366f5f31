"""What a ClassAd token means once it is read (stage: front end, shared by both parsers).

The lark grammar (`grammar.lark`, read by `lark_parser`) and the hand-written fast parser
(`fastparse`) find the same tokens; this module gives them one meaning: escape decoding,
NUL bytes, integer literal overflow, keywords that cannot be names, and the `absTime` /
`relTime` literals HTCondor reads while parsing (shared/reference/classad-semantics.md
section 1).
"""

from __future__ import annotations

import re
from typing import Protocol

from compiler.classad.errors import ClassAdSyntaxError
from compiler.classad.time_text import parse_abs_time, parse_rel_time

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

#: Words that can never be attribute or function names without quotes.
KEYWORDS = frozenset({"true", "false", "undefined", "error", "is", "isnt"})

_SIMPLE_ESCAPES = {
    "a": "\a",
    "v": "\v",
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "b": "\b",
    "f": "\f",
    "\\": "\\",
    '"': '"',
    "'": "'",
}
# C-style octal: up to three digits when the first is 0-3, else up to two.
_ESCAPE = re.compile(r"\\([0-3][0-7]{0,2}|[4-7][0-7]?|.|\n)", re.DOTALL)
#: The quoted pieces of a STRING / QNAME token (adjacent literals form one token).
STRING_PIECE = re.compile(r'"((?:\\(?:.|\n)|[^"\\])*)"', re.DOTALL)
#: A string literal's body in old ClassAd syntax (long-form ads, configuration; HTCondor's
#: lexer.cpp `tokenizeStringOld`): a backslash is an ordinary character except right
#: before a quote that is followed by more of the line: that quote is then part of the
#: string (`"x\\"y"` is `x\"y`), while a quote at the end of the text or of its line
#: ends it, backslash kept (`"C:\dir\"` is `C:\dir\`). Possessive: HTCondor scans
#: once, so a string that fails to close is an error, never read again another way.
#: (The backslash is written `[\\]`: lark reads a backslash-quote in a grammar regexp
#: as a plain quote, and this text is also the grammar's STRING in old syntax.)
OLD_STRING_BODY = r'(?:[\\]"(?=[^\n])|[^"])*+'
#: The STRING terminal in old syntax (adjacent literals still join, as in `STRING`).
OLD_STRING = rf'"{OLD_STRING_BODY}"(?:\s*"{OLD_STRING_BODY}")*'
OLD_STRING_PIECE = re.compile(rf'"({OLD_STRING_BODY})"')
QNAME_PIECE = re.compile(r"'((?:\\(?:.|\n)|[^'\\])*)'", re.DOTALL)


class Positioned(Protocol):
    """Where a token starts (a lark Token, or the fast parser's stand-in)."""

    @property
    def line(self) -> int | None: ...

    @property
    def column(self) -> int | None: ...


def fail(message: str, where: Positioned) -> ClassAdSyntaxError:
    return ClassAdSyntaxError(message, line=where.line, column=where.column)


def check_time_literal(name: str, text: str, where: Positioned) -> None:
    """HTCondor reads `absTime("...")` / `relTime("...")` of one literal string while
    parsing (source.cpp `shouldEvaluateAtParseTime`); a string it cannot read fails the
    parse. The value itself is computed by the builtin (functions_time)."""
    kind = name.lower()
    if kind == "abstime" and parse_abs_time(text) is None:
        raise fail(f"absTime cannot read {text!r} as a date and time", where)
    if kind == "reltime" and parse_rel_time(text) is None:
        raise fail(f"relTime cannot read {text!r} as a duration ([-][D+][HH:][MM:]SS)", where)


def decode_escapes(body: str, where: Positioned) -> str:
    """Decode the backslash escapes of a new-syntax string or quoted name body."""

    def one(match: re.Match[str]) -> str:
        text = match.group(1)
        if text[0] not in "01234567":
            return _SIMPLE_ESCAPES.get(text, text)
        code = int(text, 8)
        if code == 0:
            raise fail("string contains a NUL character (\\0)", where)
        # An octal escape is one byte; bytes above 0x7F are kept in surrogateescape
        # form until the whole string is read back as UTF-8 (`"\\303\\251"` is é).
        return chr(code) if code < 0x80 else chr(0xDC00 + code)

    if "\\" not in body:
        decoded = body
    else:
        decoded = _ESCAPE.sub(one, body)
        if any(0xDC80 <= ord(c) <= 0xDCFF for c in decoded):
            decoded = decoded.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
    if "\0" in decoded:
        raise fail("string contains a NUL character", where)
    return decoded


def decode_old_escapes(body: str, where: Positioned) -> str:
    """Old ClassAd syntax (long-form ads, config files): only `\\"` is an escape (the
    body is an `OLD_STRING_PIECE`: every `\\"` in it stands for a quote)."""
    decoded = body.replace('\\"', '"')
    if "\0" in decoded:
        raise fail("string contains a NUL character", where)
    return decoded


#: Digits of INT64_MAX; a literal with more significant digits is out of range.
_INT64_DIGITS = len(str(INT64_MAX))


def int_value(text: str) -> int:
    """An integer literal's value: out-of-range literals of any length are 0 in HTCondor
    (its lexer's strtoll overflow check), so a 5,000-digit literal never reaches Python's
    `int()` limit for string conversion."""
    if text[:3] in ("-0x", "-0X"):
        return 0  # HTCondor reads the hex digits of a signed literal as base 10: none
    digits = text.lstrip("-").lstrip("0") or "0"
    if len(digits) > _INT64_DIGITS:
        return 0
    value = -int(digits) if text.startswith("-") else int(digits)
    # HTCondor's lexer turns out-of-range integer literals into 0.
    return value if INT64_MIN <= value <= INT64_MAX else 0
