"""ClassAd text -> AST by the grammar (stage: front end, the specification parser).

The grammar is data (`grammar.lark`); lark's LALR parser runs the transformer below at
each reduction, so no parse tree is built and no recursion happens while parsing: a
1 MB expression parses in bounded stack. This parser is the specification the fast
hand-written parser (`fastparse`) is tested against, and the one that explains every
syntax error with its position; `parser.parse` imports it only when the fast path
gives up (a syntax error, or nesting deeper than the fast path's recursion).

HTCondor-mode lexical rules (shared/reference/classad-semantics.md section 1) live in
the grammar's terminals; what a regular expression cannot say (escape decoding, NUL
bytes, integer overflow, keywords used as names, `MY.`/`TARGET.`/`PARENT.` scopes) is
decided here and in `lexical`.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, VisitError

from compiler.classad import ast
from compiler.classad.errors import ClassAdSyntaxError
from compiler.classad.lexical import (
    KEYWORDS,
    OLD_STRING,
    OLD_STRING_PIECE,
    QNAME_PIECE,
    STRING_PIECE,
    check_time_literal,
    decode_escapes,
    decode_old_escapes,
    fail,
    int_value,
)
from compiler.errors import Span


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


class _Builder(Transformer[Token, ast.Expr]):
    """One method per grammar alternative; runs inside the LALR parser (no recursion)."""

    def __init__(self, old_strings: bool = False) -> None:
        super().__init__()
        self._decode = decode_old_escapes if old_strings else decode_escapes
        self._pieces = OLD_STRING_PIECE if old_strings else STRING_PIECE

    # ---- literals ----
    def integer(self, children: list[Token]) -> ast.Expr:
        tok = children[0]
        return ast.Integer(int_value(tok), _span(tok, tok))

    def real(self, children: list[Token]) -> ast.Expr:
        tok = children[0]
        return ast.Real(float(tok), _span(tok, tok))

    def string(self, children: list[Token]) -> ast.Expr:
        tok = children[0]
        value = "".join(self._decode(p, tok) for p in self._pieces.findall(tok))
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
            name = "".join(decode_escapes(p, tok) for p in QNAME_PIECE.findall(tok))
            return Token.new_borrow_pos("NAME", name, tok)
        if tok.lower() in KEYWORDS:
            raise fail(f"keyword {tok.value!r} cannot be used as a name", tok)
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
            raise fail(f"keyword {name.value!r} cannot be a function name", name)
        items = tuple(_node(a) for a in args) if args is not None else ()
        if len(items) == 1 and isinstance(items[0], ast.String):
            check_time_literal(name, items[0].value, name)
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


_STRING_TERMINAL = re.compile(r"^STRING: .*$", re.MULTILINE)


@cache
def _parser(old_strings: bool = False) -> Lark:
    grammar = resources.files("compiler.classad").joinpath("grammar.lark").read_text()
    if old_strings:  # the one terminal old ClassAd syntax reads otherwise (grammar.lark)
        grammar, replaced = _STRING_TERMINAL.subn(
            lambda _: f"STRING: /{OLD_STRING}/", grammar, count=1
        )
        if replaced != 1:
            raise RuntimeError("grammar.lark has no STRING terminal line")
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


def source_line(text: str, line: int) -> str:
    """Line `line` (1-based) of `text`, for the caret under an error."""
    lines = text.split("\n")
    return lines[line - 1] if 0 < line <= len(lines) else ""


def _with_source(err: ClassAdSyntaxError, text: str) -> ClassAdSyntaxError:
    if err.line is not None and err.source_line is None:
        err.source_line = source_line(text, err.line)
    return err


def parse_lark(text: str, *, old_strings: bool = False) -> ast.Expr:
    """Parse by the grammar: the tree, or the positioned ClassAdSyntaxError.

    The depth limit is `parser.parse_uncached`'s, applied to either parser's tree.
    """
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
            message, line=line, column=column, source_line=source_line(text, line)
        ) from None
    return _node(result)
