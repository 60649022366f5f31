"""ClassAd text -> AST (stage: front end).

The grammar is data (`grammar.lark`); lark's LALR parser runs the transformer below at
each reduction, so no parse tree is built and no recursion happens while parsing: a
1 MB expression parses in bounded stack. Trees deeper than `deep.MAX_DEPTH` are
rejected with a `ClassAdSyntaxError` so that later tree walks always fit in a stack.

HTCondor-mode lexical rules (shared/reference/classad-semantics.md section 1) live in
the grammar's terminals; what a regular expression cannot say (escape decoding, NUL
bytes, integer overflow, keywords used as names, `MY.`/`TARGET.`/`PARENT.` scopes) is
decided here.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, VisitError

from compiler.classad import ast
from compiler.classad.deep import MAX_DEPTH
from compiler.classad.errors import ClassAdSyntaxError
from compiler.classad.time_text import parse_abs_time, parse_rel_time
from compiler.errors import Span

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
_STRING_PIECE = re.compile(r'"((?:\\(?:.|\n)|[^"\\])*)"', re.DOTALL)
_QNAME_PIECE = re.compile(r"'((?:\\(?:.|\n)|[^'\\])*)'", re.DOTALL)


class _Paren:
    """A parenthesised sub-expression, kept only until its parent is built.

    `(MY).x` selects attribute x of the value of the name MY, while `MY.x` is a scoped
    reference; the wrapper lets `select` tell them apart.
    """

    __slots__ = ("node",)

    def __init__(self, node: ast.Expr) -> None:
        self.node = node


def _node(item: Any) -> ast.Expr:
    return item.node if isinstance(item, _Paren) else item


def _span(first: Any, last: Any) -> Span | None:
    start = first if isinstance(first, Token) else _node(first).span
    end = last if isinstance(last, Token) else _node(last).span
    if start is None or end is None:
        return None
    # Tokens and spans both carry these attribute names.
    return Span(
        start.line or 0,
        start.column or 0,
        end.end_line or 0,
        end.end_column or 0,
        start.start_pos or 0,
        end.end_pos or 0,
    )


def _fail(message: str, token: Token) -> ClassAdSyntaxError:
    return ClassAdSyntaxError(message, line=token.line, column=token.column)


def _check_time_literal(name: Token, text: str) -> None:
    """HTCondor reads `absTime("...")` / `relTime("...")` of one literal string while
    parsing (source.cpp `shouldEvaluateAtParseTime`); a string it cannot read fails the
    parse. The value itself is computed by the builtin (functions_time)."""
    kind = name.lower()
    if kind == "abstime" and parse_abs_time(text) is None:
        raise _fail(f"absTime cannot read {text!r} as a date and time", name)
    if kind == "reltime" and parse_rel_time(text) is None:
        raise _fail(f"relTime cannot read {text!r} as a duration ([-][D+][HH:][MM:]SS)", name)


def decode_escapes(body: str, token: Token) -> str:
    """Decode the backslash escapes of a new-syntax string or quoted name body."""

    def one(match: re.Match[str]) -> str:
        text = match.group(1)
        if text[0] not in "01234567":
            return _SIMPLE_ESCAPES.get(text, text)
        code = int(text, 8)
        if code == 0:
            raise _fail("string contains a NUL character (\\0)", token)
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
        raise _fail("string contains a NUL character", token)
    return decoded


#: Digits of INT64_MAX; a literal with more significant digits is out of range.
_INT64_DIGITS = len(str(INT64_MAX))


def _int_value(text: str) -> int:
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


def decode_old_escapes(body: str, token: Token) -> str:
    """Old ClassAd syntax (long-form ads, config files): only `\\"` is an escape."""
    decoded = body.replace('\\"', '"')
    if "\0" in decoded:
        raise _fail("string contains a NUL character", token)
    return decoded


class _Builder(Transformer[Token, ast.Expr]):
    """One method per grammar alternative; runs inside the LALR parser (no recursion)."""

    def __init__(self, old_strings: bool = False) -> None:
        super().__init__()
        self._decode = decode_old_escapes if old_strings else decode_escapes

    # ---- literals ----
    def integer(self, children: list[Token]) -> ast.Expr:
        tok = children[0]
        return ast.Integer(_int_value(tok), _span(tok, tok))

    def real(self, children: list[Token]) -> ast.Expr:
        tok = children[0]
        return ast.Real(float(tok), _span(tok, tok))

    def string(self, children: list[Token]) -> ast.Expr:
        tok = children[0]
        value = "".join(self._decode(p, tok) for p in _STRING_PIECE.findall(tok))
        return ast.String(value, _span(tok, tok))

    def true(self, children: list[Token]) -> ast.Expr:
        return ast.Boolean(True, _span(children[0], children[0]))

    def false(self, children: list[Token]) -> ast.Expr:
        return ast.Boolean(False, _span(children[0], children[0]))

    def undefined(self, children: list[Token]) -> ast.Expr:
        return ast.UndefinedLit(_span(children[0], children[0]))

    def error(self, children: list[Token]) -> ast.Expr:
        return ast.ErrorLit(_span(children[0], children[0]))

    # ---- names ----
    def name(self, children: list[Token]) -> Token:
        tok = children[0]
        if tok.type == "QNAME":
            name = "".join(decode_escapes(p, tok) for p in _QNAME_PIECE.findall(tok))
            return Token.new_borrow_pos("NAME", name, tok)
        if tok.lower() in KEYWORDS:
            raise _fail(f"keyword {tok.value!r} cannot be used as a name", tok)
        return tok

    def attr(self, children: list[Token]) -> ast.Expr:
        tok = children[0]
        return ast.AttrRef(str(tok), None, _span(tok, tok))

    def absolute(self, children: list[Token]) -> ast.Expr:
        dot, name = children
        return ast.AttrRef(str(name), ast.ROOT, _span(dot, name))

    def select(self, children: list[Any]) -> ast.Expr:
        base, _dot, name = children
        span = _span(base, name)
        if isinstance(base, ast.AttrRef) and base.scope is None:
            scope = base.name.upper()
            if scope in ast.SCOPES:
                return ast.AttrRef(str(name), scope, span)
        return ast.Select(_node(base), str(name), span)

    def subscript(self, children: list[Any]) -> ast.Expr:
        base, _open, index, close = children
        return ast.Subscript(_node(base), _node(index), _span(base, close))

    def call(self, children: list[Any]) -> ast.Expr:
        name, _open, args, close = children
        if name.lower() in KEYWORDS:
            raise _fail(f"keyword {name.value!r} cannot be a function name", name)
        items = tuple(_node(a) for a in args) if args is not None else ()
        if len(items) == 1 and isinstance(items[0], ast.String):
            _check_time_literal(name, items[0].value)
        return ast.Call(str(name), items, _span(name, close))

    def args(self, children: list[Any]) -> list[Any]:
        return [c for c in children if not isinstance(c, Token)]

    # ---- compound ----
    def paren(self, children: list[Any]) -> _Paren:
        return _Paren(_node(children[1]))

    def list_expr(self, children: list[Any]) -> ast.Expr:
        items = tuple(
            _node(c) for c in children[1:-1] if c is not None and not isinstance(c, Token)
        )
        return ast.ListExpr(items, _span(children[0], children[-1]))

    def record_body(self, children: list[Any]) -> list[tuple[str, ast.Expr]]:
        return [c for c in children if isinstance(c, tuple)]

    def attr_def(self, children: list[Any]) -> tuple[str, ast.Expr]:
        name, _eq, value = children
        return (str(name), _node(value))

    def record(self, children: list[Any]) -> ast.Expr:
        body = children[1] or []
        return ast.RecordExpr(tuple(body), _span(children[0], children[-1]))

    # ---- operators ----
    def unary(self, children: list[Any]) -> ast.Expr:
        op, operand = children
        return ast.Unary(str(op), _node(operand), _span(op, operand))

    def binary(self, children: list[Any]) -> ast.Expr:
        left, op, right = children
        match op.type:
            case "IS":
                symbol = "=?="
            case "ISNT":
                symbol = "=!="
            case _:
                symbol = str(op)
        return ast.Binary(symbol, _node(left), _node(right), _span(left, right))

    def elvis(self, children: list[Any]) -> ast.Expr:
        left, _op, right = children
        return ast.Elvis(_node(left), _node(right), _span(left, right))

    def conditional(self, children: list[Any]) -> ast.Expr:
        cond, _q, then, _c, otherwise = children
        return ast.Conditional(_node(cond), _node(then), _node(otherwise), _span(cond, otherwise))


@cache
def _parser(old_strings: bool = False) -> Lark:
    grammar = resources.files("compiler.classad").joinpath("grammar.lark").read_text()
    return Lark(
        grammar,
        parser="lalr",
        lexer="contextual",
        keep_all_tokens=True,
        maybe_placeholders=True,
        transformer=_Builder(old_strings),
        lexer_callbacks={"COMMENT": _check_comment},
    )


def _check_comment(token: Token) -> Token:
    if token.startswith("//") and not token.endswith("\n"):
        raise ClassAdSyntaxError(
            "a // comment must end with a newline", line=token.line, column=token.column
        )
    return token


def _describe(exc: UnexpectedInput, text: str) -> tuple[str, int | None]:
    """The message for a lark error, and a better offset when one is known."""
    message = _message(exc, text)
    if isinstance(message, tuple):
        return message
    return message, None


def _message(exc: UnexpectedInput, text: str) -> str | tuple[str, int]:
    token = getattr(exc, "token", None)
    pos = getattr(token, "start_pos", None) if token is not None else None
    if pos is None:
        pos = getattr(exc, "pos_in_stream", None)
    if pos is not None:
        for at in (pos, pos - 1):
            if text.startswith("/*", at) and "*/" not in text[at:]:
                return "unterminated /* comment", at
            if text.startswith("//", at) and "\n" not in text[at:]:
                return "a // comment must end with a newline", at
    match exc:
        case UnexpectedEOF():
            return "unexpected end of expression"
        case UnexpectedCharacters():
            at = exc.pos_in_stream or 0
            char = text[at] if at < len(text) else ""
            if char in "\"'":
                return "unterminated or invalid quoted text"
            if char.isdigit() or char == ".":
                return "invalid number"
            if "\udc80" <= char <= "\udcff":
                # A file byte kept by compiler.textio; only string literals may hold it.
                return f"byte 0x{ord(char) - 0xDC00:02X} is not UTF-8 text"
            return f"unexpected character {char!r}"
        case _:
            token = getattr(exc, "token", None)
            if token is not None and token.type == "$END":
                return "unexpected end of expression"
            return f"unexpected {str(token)!r}" if token is not None else "syntax error"


def _position(exc: UnexpectedInput, text: str) -> tuple[int, int]:
    line, column = getattr(exc, "line", -1), getattr(exc, "column", -1)
    if line is None or line < 1 or column is None or column < 1:
        lines = text.split("\n")
        return len(lines), len(lines[-1]) + 1
    return line, column


def _source_line(text: str, line: int) -> str:
    lines = text.split("\n")
    return lines[line - 1] if 0 < line <= len(lines) else ""


def _with_source(err: ClassAdSyntaxError, text: str) -> ClassAdSyntaxError:
    if err.line is not None and err.source_line is None:
        err.source_line = _source_line(text, err.line)
    return err


def depth(expr: ast.Expr) -> int:
    """Height of the tree, computed without recursion."""
    deepest = 0
    stack: list[tuple[ast.Expr, int]] = [(expr, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in ast.children(node))
    return deepest


@lru_cache(maxsize=8192)
def parse(text: str, *, old_strings: bool = False) -> ast.Expr:
    """Parse one ClassAd expression (HTCondor mode) into an AST with source spans.

    `old_strings` reads string literals as old ClassAd syntax does (long-form ads and
    configuration values): backslashes are literal except in `\\"`. Results are
    remembered (trees are immutable): policy text is parsed again and again.
    """
    return parse_uncached(text, old_strings=old_strings)


def parse_uncached(text: str, *, old_strings: bool = False) -> ast.Expr:
    """`parse` without the memo (for measuring the parser itself)."""
    try:
        result = _parser(old_strings).parse(text)
    except ClassAdSyntaxError as err:
        raise _with_source(err, text) from None
    except VisitError as err:
        if isinstance(err.orig_exc, ClassAdSyntaxError):
            raise _with_source(err.orig_exc, text) from None
        raise
    except UnexpectedInput as exc:
        message, at = _describe(exc, text)
        if at is not None:
            line = text.count("\n", 0, at) + 1
            column = at - (text.rfind("\n", 0, at) + 1) + 1
        else:
            line, column = _position(exc, text)
        raise ClassAdSyntaxError(
            message, line=line, column=column, source_line=_source_line(text, line)
        ) from None
    node = _node(result)
    if len(text) > MAX_DEPTH and depth(node) > MAX_DEPTH:
        raise ClassAdSyntaxError(
            f"expression nested more than {MAX_DEPTH} levels deep",
            line=1,
            column=1,
            source_line=_source_line(text, 1),
        )
    return node
