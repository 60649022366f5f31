"""ClassAd text -> AST, the fast path: one scan for every token, precedence climbing.

Stage: front end. `parser.parse` reads every text here first; `grammar.lark` (read by
`lark_parser`) stays the specification, and tests/classad/test_fastparse.py demands
that both give the same tree, spans included, and reject the same texts. Whatever this
module does not read (a syntax error of any kind, or brackets nested deeper than its
recursion: it recurses once per bracket level, prefix operators and binary operators do
not recurse) raises `Reject`, and the caller re-parses the text with the lark parser, which gives
the positioned error message (or the tree): messages cannot drift, and lark is only
imported when an error must be explained.

The scan is one `findall` of a regular expression (`_TOKEN`), or for the common
printable text without comments `str.split` after padding brackets (`_split`, checked
to give the same tokens). Node spans hold token indices; the offsets are found again
(with `_TOKEN`) only when a span is read.

The scan finds the grammar's tokens everywhere at once, where lark's contextual lexer
offers only the tokens the parser state accepts. The two differ in one valid case,
handled by the parser: a minus sign glued to a number (`NEG_INT`, `NEG_REAL`) where an
operator is expected is the operator `-` and an unsigned number (`a-5`). Elsewhere a
token the contextual lexer would not have offered is a syntax error either way.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left
from collections.abc import Callable
from functools import cache

from compiler.classad import ast
from compiler.classad.errors import ClassAdSyntaxError
from compiler.classad.lexical import (
    KEYWORDS,
    OLD_STRING,
    OLD_STRING_PIECE,
    QNAME_PIECE,
    STRING_PIECE,
    Positioned,
    check_time_literal,
    decode_escapes,
    decode_old_escapes,
    int_value,
)
from compiler.errors import Span


class Reject(Exception):
    """The fast path does not read this text; the lark parser decides."""


class _Nowhere:
    """The position handed to `lexical`'s checks: their message is never shown (a
    failed check is a `Reject`, and the lark parser reports the error)."""

    line = None
    column = None


_NOWHERE = _Nowhere()

# The grammar's terminals (grammar.lark). Where two can match at one place they are
# tried in the order lark's lexer tries them (REAL before INT and DOT, NEG_REAL before
# NEG_INT before `-`, ELVIS before `?`, longer fixed strings first); the others are in
# the order that makes the scan fastest. Keywords (priority 2) are NAME tokens looked up
# in KEYWORDS, which is the same thing, since each keyword pattern ends with
# `(?![A-Za-z0-9_])`.
_REAL = r"[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+"
_QUOTED = r"{q}(?:\\(?:.|\n)|[^{q}\\])*{q}(?:\s*{q}(?:\\(?:.|\n)|[^{q}\\])*{q})*"
_TERMINALS = [
    r"[A-Za-z_][A-Za-z0-9_]*",  # NAME (and keywords)
    # fixed strings that begin no other terminal
    r"=\?=|=!=|==|!=|>>>|>>|<<|<=|>=|&&|\|\||[<>*%+&|^:,={(\[!})\];~]",
    _REAL,  # REAL (before INT: `1e3`)
    r"(?:0|[1-9][0-9]*)(?![0-9.])",  # INT
    _QUOTED.format(q='"'),  # STRING
    _QUOTED.format(q="'"),  # QNAME
    rf"-(?:{_REAL})",  # NEG_REAL
    r"-(?:0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)(?![0-9.])",  # NEG_INT
    r"-",  # ADD_OP
    r"\.\.?",  # DOT (after REAL: `.5`)
    r"//[^\n]*",  # a // comment without its newline: an error wherever it stands
    r"/",  # MUL_OP
    r"\?[ \t\r\n]*:",  # ELVIS
    r"\?",
    "",  # no terminal here (or the end): an empty token
]
#: One match per token: the blanks and comments before it (ignored, as the grammar's
#: %ignore does; possessive, they are never given back), then the token, the one group,
#: so that `findall` gives the token texts alone. Where no terminal matches, the token
#: is empty; the search then goes on one character later. So the last token is always
#: the empty one at the end, and an empty token before it marks a character that
#: begins no token (the parser stops at any empty token: a `Reject`).
_TOKEN = re.compile(
    r"(?:[ \t\r\n\f\v]+|/\*(?:.|\n)*?\*/|//[^\n]*\n)*+(" + "|".join(_TERMINALS) + ")"
)
#: The same for a text without a `/` (so without comments): blanks alone before each
#: token, a quarter faster to match.
_TOKEN_NO_COMMENT = re.compile(r"[ \t\r\n\f\v]*+(" + "|".join(_TERMINALS) + ")")
#: The two in old ClassAd syntax, where only the STRING terminal differs
#: (`lexical.OLD_STRING`), and only for a text with a backslash: without one, both
#: syntaxes read the same strings.
#: Compiled on first use (`_old_tokenizers`): most processes never read old syntax.
_OLD_TERMINALS = [OLD_STRING if t == _QUOTED.format(q='"') else t for t in _TERMINALS]


@cache
def _old_tokenizers() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(`_TOKEN`, `_TOKEN_NO_COMMENT`) with old syntax's STRING terminal."""
    new, old = "|".join(_TERMINALS), "|".join(_OLD_TERMINALS)
    return (
        re.compile(_TOKEN.pattern.replace(new, old)),
        re.compile(_TOKEN_NO_COMMENT.pattern.replace(new, old)),
    )


#: Whole tokens that a blank or a bracket around them cannot change: the fixed strings
#: of the grammar except `?` (`? :` is one ELVIS token) and `/` (comments).
_WHOLE = frozenset(
    [
        "==",
        "!=",
        "=?=",
        "=!=",
        ">>>",
        ">>",
        "<<",
        "<=",
        ">=",
        "&&",
        "||",
        "<",
        ">",
        "*",
        "%",
        "+",
        "&",
        "|",
        "^",
        ":",
        ",",
        "=",
        "{",
        "(",
        "[",
        "!",
        "}",
        ")",
        "]",
        ";",
        "~",
        "-",
        ".",
        "..",
    ]
)


#: A dot that a REAL or the DOT `..` needs; string literals that join.
#: (A literal dot first: the search then skips to each dot, several times faster.)
_DOT_IN_TOKEN = re.compile(r"\.(?:(?<=[0-9]\.)|(?=[0-9.]))")
_JOINED = re.compile(r'" +"')


def _split(text: str) -> list[str] | None:
    """The tokens `_TOKEN` finds in `text`, found by `str.split` (twice as fast as a
    regular-expression match per token), or None when this short cut cannot tell: the
    text then goes to the regular expression.

    Only for printable ASCII text without `/`: then the blanks are spaces alone (no
    comments, no other separators `str.split` knows), and parentheses, commas and
    (when no REAL or `..` needs one) dots, padded with spaces first, only ever stand
    alone outside string literals. Each piece must then be one whole token as the
    grammar reads it: a fixed string, a NAME, an INT, a simple REAL, a NEG_INT, or a
    string literal without escapes and not joined to the next one.
    """
    padded = text.replace("(", " ( ").replace(")", " ) ").replace(",", " , ")
    if "." in text and not _DOT_IN_TOKEN.search(text):
        padded = padded.replace(".", " . ")
    pieces = padded.split()
    for piece in set(pieces).difference(_WHOLE):
        if piece.isidentifier():
            continue
        first = piece[0]
        if first == '"':
            if piece[-1] != '"' or len(piece) < 2 or piece.count('"') != 2 or "\\" in piece:
                return None
        elif piece.isdigit():
            if first == "0" and piece != "0":
                return None
        elif first == "-":
            if not piece[1:].isdigit() or (piece[1] == "0" and piece != "-0"):
                return None
        else:
            head, dot, tail = piece.partition(".")
            if not (dot and head.isdigit() and tail.isdigit()):
                return None  # not a REAL
    if '"' in text and _JOINED.search(text):
        return None
    pieces.append("")
    if text[-1:] == " ":
        pieces.append("")  # as `_TOKEN` gives one for the blanks at the end
    return pieces


def _scan(text: str, old: bool = False) -> list[str]:
    """The tokens of `text`, the empty token at the end (see `_TOKEN`); `old`: old
    ClassAd syntax's strings (only for a text with a backslash, see `_old_tokenizers`)."""
    if old:
        return _tokenizer(text, old).findall(text)
    if "/" not in text and text.isascii() and text.isprintable():
        found = _split(text)
        if found is not None:
            return found
        return _TOKEN_NO_COMMENT.findall(text)
    return _tokenizer(text).findall(text)


def _tokenizer(text: str, old: bool = False) -> re.Pattern[str]:
    if old:
        with_comments, without = _old_tokenizers()
        return with_comments if "/" in text else without
    return _TOKEN if "/" in text else _TOKEN_NO_COMMENT


#: The last character of a text that ends with blanks or a comment.
_IGNORED_LAST = frozenset(" \t\r\n\f\v/")
#: The first characters of a NAME; the digits.
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_DIGITS = frozenset("0123456789")
_PREFIX = frozenset({"-", "!", "+", "~"})
#: Every spelling of every keyword (keywords ignore ASCII case): one set look-up.
_KEYWORD_SPELLINGS = frozenset(
    "".join(letters)
    for word in KEYWORDS
    for letters in itertools.product(*({c, c.upper()} for c in word))
)
#: Tokens that end an expression where an operator may stand: closing brackets,
#: separators, the end of the text (`?` and `?:` are not among them).
_CLOSERS = frozenset({")", "]", "}", ",", ";", ":", ""})
_SUFFIX = frozenset({".", "..", "["})


class _Source:
    """The text a parse read, for the spans of its nodes (`ast.RawSpan`s hold this and
    the indices of a node's first and last token): the token offsets are found again
    only when a span is read, which is rare (error messages)."""

    __slots__ = ("_offsets", "bumped", "lines", "old", "text")

    def __init__(self, text: str, old: bool = False) -> None:
        self.text = text
        #: Old ClassAd syntax's strings (`_scan`'s `old`).
        self.old = old
        #: Tokens that begin one character later than scanned (a signed number read as
        #: `-` and an unsigned number).
        self.bumped: set[int] | None = None
        self._offsets: list[tuple[int, int]] | None = None

    def span(self, first: int, last: int) -> Span:
        offsets = self._offsets
        if offsets is None:  # (lines first: a thread that sees the offsets sees them)
            self.lines = [m.start() for m in re.finditer("\n", self.text)] or None
            scan = _tokenizer(self.text, self.old).finditer(self.text)
            offsets = self._offsets = [m.span(1) for m in scan]
        start = offsets[first][0]
        if self.bumped and first in self.bumped:
            start += 1
        end = offsets[last][1]
        return Span(*_line_column(self.lines, start), *_line_column(self.lines, end), start, end)


def _line_column(lines: list[int] | None, offset: int) -> tuple[int, int]:
    """1-based line and column of `offset`, as lark counts them (only \\n ends a line)."""
    if lines is None:
        return 1, offset + 1
    line = bisect_left(lines, offset)
    return line + 1, offset - lines[line - 1] if line else offset + 1


#: Binary operators: token -> (binding power, AST symbol). Lowest first: `||`, `&&`,
#: `|`, `^`, `&`, equality, relational, shifts, `+ -`, `* / %`.
_BINARY: dict[str, tuple[int, str]] = {}
for _power, _ops in enumerate(
    [
        ["||"],
        ["&&"],
        ["|"],
        ["^"],
        ["&"],
        ["==", "!=", "=?=", "=!=", "is", "isnt"],
        ["<", "<=", ">", ">="],
        ["<<", ">>", ">>>"],
        ["+", "-"],
        ["*", "/", "%"],
    ],
    start=1,
):
    for _op in _ops:
        _BINARY[_op] = (_power, {"is": "=?=", "isnt": "=!="}.get(_op, _op))
_MINUS = _BINARY["-"]


# Node constructors taking every field positionally (see ast.fast_constructor).
_integer = ast.fast_constructor(ast.Integer)
_real = ast.fast_constructor(ast.Real)
_string = ast.fast_constructor(ast.String)
_boolean = ast.fast_constructor(ast.Boolean)
_undefined = ast.fast_constructor(ast.UndefinedLit)
_error = ast.fast_constructor(ast.ErrorLit)
_attr = ast.fast_constructor(ast.AttrRef)
_select = ast.fast_constructor(ast.Select)
_subscript = ast.fast_constructor(ast.Subscript)
_list = ast.fast_constructor(ast.ListExpr)
_record = ast.fast_constructor(ast.RecordExpr)
_call = ast.fast_constructor(ast.Call)
_unary = ast.fast_constructor(ast.Unary)
_binary = ast.fast_constructor(ast.Binary)
_conditional = ast.fast_constructor(ast.Conditional)
_elvis = ast.fast_constructor(ast.Elvis)


def parse_fast(text: str, *, old_strings: bool = False) -> ast.Expr:
    """The tree of `text`, as `lark_parser.parse_lark` builds it, or `Reject`.

    The depth limit is the caller's; recursion deeper than Python allows is a `Reject`
    too (the lark parser does not recurse).
    """
    old = old_strings and "\\" in text
    toks = _scan(text, old)
    try:
        decode = decode_old_escapes if old_strings else decode_escapes
        node, i, _, _ = _expr(toks, _Source(text, old), decode, 0)
    except (ClassAdSyntaxError, RecursionError, IndexError):
        # IndexError: an empty token (the end, or no token) read where one is needed
        raise Reject from None
    # The parser stops at the first token that cannot follow: it must be the empty token
    # at the end. Blanks or a comment at the end of the text make one more empty token
    # before it (the match of those blanks); a character that begins no token makes
    # another empty token of its own, so it is never mistaken for them.
    last = len(toks) - 1
    if i != last and (i != last - 1 or toks[i] or text[-1] not in _IGNORED_LAST):
        raise Reject
    return node


def _expr(
    toks: list[str],
    src: _Source,
    decode: Callable[[str, Positioned], str],
    i: int,
    postfix_only: bool = False,
    # Bound as defaults: local look-ups (the parser's hot loop), not global ones.
    _attr: Callable[..., ast.AttrRef] = _attr,
    _binary: Callable[..., ast.Binary] = _binary,
    _integer: Callable[..., ast.Integer] = _integer,
    _real: Callable[..., ast.Real] = _real,
    _string: Callable[..., ast.String] = _string,
    _prefix: frozenset[str] = _PREFIX,
    _suffix: frozenset[str] = _SUFFIX,
    _keywords: frozenset[str] = _KEYWORD_SPELLINGS,
    closers: frozenset[str] = _CLOSERS,
    name_start: frozenset[str] = _NAME_START,
    digits: frozenset[str] = _DIGITS,
    binary_ops: dict[str, tuple[int, str]] = _BINARY,
    scopes: frozenset[str] = ast.SCOPES,
) -> tuple[ast.Expr, int, int, int]:
    """One `expr` from token `i`: the node, the index of the token after it, and the
    indices of the first and last token of the node's source span. With
    `postfix_only`, one postfix expression (the right operand of `?:`).

    Precedence climbing with an explicit stack of pending left operands; the operand
    (prefix operators, a primary, its `.name`/`[index]` suffixes, an elvis chain) is read
    inline, and only bracketed expressions recurse: the parser runs once per expression
    text, and a call per grammar level would cost half its time. The tokens hold no
    blanks. Spans are `ast.RawSpan`s (the `_Source` and two token indices), made into
    Spans only when read; a parenthesised node's span is its content's, as lark_parser
    builds it.
    """
    #: Pending binary operators: (left operand, its start, binding power, symbol).
    pending: list[tuple[ast.Expr, int, int, str]] = []
    node: ast.Expr
    #: The prefix operators before the operand being read (None again once applied).
    prefixes: list[tuple[str, int]] | None = None
    while True:
        tok = toks[i]
        # ---- a primary (prefix operators: at the end of the chain, being rarer) ----
        start = end = i
        first = tok[0]
        i += 1
        if first in name_start:
            if tok in _keywords:
                low = tok.lower()
                if low == "true" or low == "false":
                    node = _boolean(low == "true", (src, start, end))
                elif low == "undefined":
                    node = _undefined((src, start, end))
                elif low == "error":
                    node = _error((src, start, end))
                else:
                    raise Reject  # is, isnt
            elif toks[i] == "(":
                i += 1
                args: list[ast.Expr] = []
                if toks[i] != ")":
                    while True:
                        arg, i, _, _ = _expr(toks, src, decode, i)
                        args.append(arg)
                        sep = toks[i]
                        if sep != "," and sep != ";":
                            break
                        i += 1
                if toks[i] != ")":
                    raise Reject
                end = i
                i += 1
                if len(args) == 1 and isinstance(args[0], ast.String):
                    check_time_literal(tok, args[0].value, _NOWHERE)
                node = _call(tok, tuple(args), (src, start, end))
            elif toks[i] == "." and tok.upper() in scopes:
                # MY.name, TARGET.name, PARENT.name: the scoped reference at once
                end = i + 1
                node = _attr(_name(toks[end]), tok.upper(), (src, start, end))
                i += 2
            else:
                node = _attr(tok, None, (src, start, end))
        elif first == "(":
            node, i, start, end = _expr(toks, src, decode, i)
            if toks[i] != ")":
                raise Reject
            i += 1
        elif first in digits:
            if tok.isdigit():
                node = _integer(int(tok) if len(tok) < 19 else int_value(tok), (src, start, end))
            else:
                node = _real(float(tok), (src, start, end))
        elif first == '"':
            if "\\" not in tok and tok.count('"') == 2:
                if "\0" in tok:
                    raise Reject
                text = tok[1:-1]  # nothing to decode, in either string mode
            else:
                pieces = OLD_STRING_PIECE if src.old else STRING_PIECE
                text = "".join(decode(p, _NOWHERE) for p in pieces.findall(tok))
            node = _string(text, (src, start, end))
        elif first == "-" and len(tok) > 1:  # NEG_INT, NEG_REAL
            if "x" in tok or "X" in tok or tok[1:].isdigit():
                node = _integer(int_value(tok), (src, start, end))
            else:
                node = _real(float(tok), (src, start, end))
        elif first == "'":
            node = _attr(_qname(tok), None, (src, start, end))
        elif first == ".":
            if tok != "." and tok != "..":  # REAL
                node = _real(float(tok), (src, start, end))
            else:  # DOT name: an absolute reference
                end = i
                node = _attr(_name(toks[i]), ast.ROOT, (src, start, end))
                i += 1
        elif first == "{":
            items: list[ast.Expr] = []
            if toks[i] != "}":
                while True:
                    item, i, _, _ = _expr(toks, src, decode, i)
                    items.append(item)
                    if toks[i] != ",":
                        break
                    i += 1
            if toks[i] != "}":
                raise Reject
            end = i
            i += 1
            node = _list(tuple(items), (src, start, end))
        elif first == "[":
            attrs: list[tuple[str, ast.Expr]] = []
            while True:
                tok = toks[i]
                if tok == ";":
                    i += 1
                    continue
                if tok == "]":
                    break
                key = _name(tok)
                i += 1
                if toks[i] != "=":
                    raise Reject
                i += 1
                value, i, _, _ = _expr(toks, src, decode, i)
                attrs.append((key, value))
            end = i
            i += 1
            node = _record(tuple(attrs), (src, start, end))
        elif tok in _prefix and not postfix_only:
            if prefixes is None:
                prefixes = []
            prefixes.append((tok, start))
            continue  # the operand after it
        else:
            raise Reject
        tok = toks[i]
        if tok in _suffix:
            # ---- .name and [index] suffixes ----
            paren = first == "("
            while tok in _suffix:
                i += 1
                if tok == "[":
                    index, i, _, _ = _expr(toks, src, decode, i)
                    if toks[i] != "]":
                        raise Reject
                    end = i
                    node = _subscript(node, index, (src, start, end))
                else:
                    name = _name(toks[i])
                    end = i
                    if (
                        not paren
                        and isinstance(node, ast.AttrRef)
                        and node.scope is None
                        and node.name.upper() in ast.SCOPES
                    ):
                        node = _attr(name, node.name.upper(), (src, start, end))
                    else:
                        node = _select(node, name, (src, start, end))
                i += 1
                paren = False
                tok = toks[i]
        # ---- a binary operator, or the end of the binary operators ----
        found = binary_ops.get(tok)
        if found is None and prefixes is None and tok in closers:
            # The common end: a closing bracket, a separator, the end of the text.
            while pending:
                left, start, _, symbol = pending.pop()
                node = _binary(symbol, left, node, (src, start, end))
            return node, i, start, end
        if postfix_only:  # (never pending operators, never prefixes)
            return node, i, start, end
        if found is None or prefixes is not None:
            # The rare cases: elvis, prefix operators, signed numbers, `is`, the end.
            if len(tok) > 1 and tok[0] == "?":
                # ---- elvis: `operand ?: postfix`, left-associative ----
                while len(tok) > 1 and tok[0] == "?":
                    i += 1
                    right, i, _, end = _expr(toks, src, decode, i, True)
                    node = _elvis(node, right, (src, start, end))
                    tok = toks[i]
                found = binary_ops.get(tok)
            if prefixes is not None:
                for op, op_start in reversed(prefixes):
                    start = op_start
                    node = _unary(op, node, (src, start, end))
                prefixes = None
            if found is None:
                if len(tok) > 1 and tok[0] == "-":
                    # A signed number where an operator is expected is `-` and an
                    # unsigned number (lark's contextual lexer does not offer
                    # NEG_INT/NEG_REAL there); `a-07` and `a-0x1` stay errors (`07` is
                    # no token).
                    unsigned = tok[1:]
                    signed_int = "x" in tok or "X" in tok or unsigned.isdigit()
                    if signed_int and unsigned[0] == "0" and unsigned != "0":
                        raise Reject
                    toks[i] = unsigned
                    if src.bumped is None:
                        src.bumped = set()
                    src.bumped.add(i)
                    found = _MINUS
                    i -= 1
                elif tok[:1] in ("i", "I") and tok.lower() in ("is", "isnt"):
                    found = binary_ops[tok.lower()]
                else:
                    while pending:
                        left, start, _, symbol = pending.pop()
                        node = _binary(symbol, left, node, (src, start, end))
                    break
        power = found[0]
        while pending and pending[-1][2] >= power:
            left, start, _, symbol = pending.pop()
            node = _binary(symbol, left, node, (src, start, end))
        pending.append((node, start, power, found[1]))
        i += 1
    # ---- the conditional: `or_expr ? expr : expr` ----
    if tok == "?":
        i += 1
        then, i, _, _ = _expr(toks, src, decode, i)
        if toks[i] != ":":
            raise Reject
        i += 1
        otherwise, i, _, end = _expr(toks, src, decode, i)
        node = _conditional(node, then, otherwise, (src, start, end))
    return node, i, start, end


def _name(tok: str) -> str:
    """A NAME or QNAME token's name (keywords are not names)."""
    first = tok[0]
    if first in _NAME_START:
        if tok.lower() in KEYWORDS:
            raise Reject
        return tok
    if first == "'":
        return _qname(tok)
    raise Reject


def _qname(tok: str) -> str:
    return "".join(decode_escapes(p, _NOWHERE) for p in QNAME_PIECE.findall(tok))
