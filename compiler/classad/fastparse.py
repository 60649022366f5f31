"""ClassAd text -> AST, the fast path: one regular-expression scan, precedence climbing.

Stage: front end. `parser.parse` reads every text here first; `grammar.lark` (read by
`lark_parser`) stays the specification, and tests/classad/test_fastparse.py demands
that both give the same tree, spans included, and reject the same texts. Whatever this
module does not read (a syntax error of any kind, or brackets nested deeper than its
recursion: it recurses once per bracket level, prefix operators and binary operators do
not recurse) raises `Reject`, and the caller re-parses the text with the lark parser, which gives
the positioned error message (or the tree): messages cannot drift, and lark is only
imported when an error must be explained.

The scan finds the grammar's tokens everywhere at once, where lark's contextual lexer
offers only the tokens the parser state accepts. The two differ in one valid case,
handled by the parser: a minus sign glued to a number (`NEG_INT`, `NEG_REAL`) where an
operator is expected is the operator `-` and an unsigned number (`a-5`). Elsewhere a
token the contextual lexer would not have offered is a syntax error either way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import accumulate

from compiler.classad import ast
from compiler.classad.errors import ClassAdSyntaxError
from compiler.classad.lexical import (
    KEYWORDS,
    QNAME_PIECE,
    STRING_PIECE,
    Positioned,
    check_time_literal,
    decode_escapes,
    decode_old_escapes,
    int_value,
)


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
# NEG_INT before `-`, COMMENT before `/`, ELVIS before `?`, longer fixed strings first);
# the others are in the order that makes the scan fastest. Keywords (priority 2) are
# NAME tokens looked up in KEYWORDS, which is the same thing, since each keyword
# pattern ends with `(?![A-Za-z0-9_])`.
_REAL = r"[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+"
_QUOTED = r"{q}(?:\\(?:.|\n)|[^{q}\\])*{q}(?:\s*{q}(?:\\(?:.|\n)|[^{q}\\])*{q})*"
_TERMINALS = [
    r"[A-Za-z_][A-Za-z0-9_]*",  # NAME (and keywords)
    r"[ \t\r\n\f\v]+",  # blanks
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
    r"/\*(?:.|\n)*?\*/|//[^\n]*(?:\n|$)",  # COMMENT
    r"/",  # MUL_OP
    r"\?[ \t\r\n]*:",  # ELVIS
    r"\?",
]
#: No capturing group: `findall` gives the token texts. A character no terminal matches
#: is skipped by `findall`; the lengths then fall short of the text's.
_TOKEN = re.compile("|".join(_TERMINALS))

#: The characters of a blank run; the first characters of a NAME; the digits.
_BLANK = " \t\r\n\f\v"
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_DIGITS = frozenset("0123456789")
#: The end of the tokens: DEL begins no token (it is no character of the grammar), and
#: it sorts after the blanks (the parser's test for a blank token is `tok < "!"`).
_END = "\x7f"
_PREFIX = frozenset({"-", "!", "+", "~"})
_SUFFIX = frozenset({".", "..", "["})

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


def _scan(text: str) -> tuple[list[str], list[int]]:
    """Every token of `text` and the offset of each, blank runs and comments as one
    blank token each; the token list ends with two `_END`s, the offsets with the end of
    the text three times, so token `j` always spans `offsets[j]` to `offsets[j + 1]`."""
    tokens = _TOKEN.findall(text)
    offsets = list(accumulate(map(len, tokens), initial=0))
    if offsets[-1] != len(text):
        raise Reject  # a character that starts no token
    if "/" in text:
        tokens, offsets = _drop_comments(tokens, offsets)
    # Two ends: a primary steps past its token before it looks at it.
    tokens += (_END, _END)
    offsets += (len(text), len(text))
    return tokens, offsets


def _drop_comments(tokens: list[str], offsets: list[int]) -> tuple[list[str], list[int]]:
    """Comments are blanks; a run of blanks is one blank token (the parser steps over
    one blank token after each token)."""
    kept: list[str] = []
    kept_offsets: list[int] = []
    for tok, at in zip(tokens, offsets, strict=False):
        if tok[0] == "/" and len(tok) > 1:
            if tok[1] == "/" and tok[-1] != "\n":
                raise Reject  # a // comment must end with a newline
            tok = " "
        if tok[0] in _BLANK and kept and kept[-1][0] in _BLANK:
            continue
        kept.append(tok)
        kept_offsets.append(at)
    kept_offsets.append(offsets[-1])
    return kept, kept_offsets


def parse_fast(text: str, *, old_strings: bool = False) -> ast.Expr:
    """The tree of `text`, as `lark_parser.parse_lark` builds it, or `Reject`.

    The depth limit is the caller's; recursion deeper than Python allows is a `Reject`
    too (the lark parser does not recurse).
    """
    try:
        toks, offs = _scan(text)
        lines = [m.start() for m in re.finditer("\n", text)] if "\n" in text else None
        decode = decode_old_escapes if old_strings else decode_escapes
        i = 1 if toks[0] < "!" else 0
        node, i, _, _ = _expr(toks, offs, lines, decode, i)
    except (ClassAdSyntaxError, RecursionError):
        raise Reject from None
    if toks[i] != _END:
        raise Reject
    return node


def _expr(
    toks: list[str],
    offs: list[int],
    lines: list[int] | None,
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
    _keywords: frozenset[str] = KEYWORDS,
    name_start: frozenset[str] = _NAME_START,
    digits: frozenset[str] = _DIGITS,
    binary_ops: dict[str, tuple[int, str]] = _BINARY,
) -> tuple[ast.Expr, int, int, int]:
    """One `expr` from token `i` (not blank): the node, the index of the token after it
    (not blank), and the start and end offsets of the node's source span. With
    `postfix_only`, one postfix expression (the right operand of `?:`).

    Precedence climbing with an explicit stack of pending left operands; the operand
    (prefix operators, a primary, its `.name`/`[index]` suffixes, an elvis chain) is read
    inline, and only bracketed expressions recurse: the parser runs once per expression
    text, and a call per grammar level would cost half its time. A token is blank when
    it sorts before "!"; the parser steps over at most one after each token. Spans are
    `ast.RawSpan`s, made into Spans only when read; a parenthesised node's span is its
    content's, as lark_parser builds it.
    """
    #: Pending binary operators: (left operand, its start, binding power, symbol).
    pending: list[tuple[ast.Expr, int, int, str]] = []
    node: ast.Expr
    while True:
        tok = toks[i]
        prefixes: list[tuple[str, int]] | None = None
        if tok in _prefix and not postfix_only:
            prefixes = []
            while tok in _prefix:
                prefixes.append((tok, offs[i]))
                i += 1
                if toks[i] < "!":
                    i += 1
                tok = toks[i]
        # ---- a primary ----
        at = i
        first = tok[0]
        i += 1
        if toks[i] < "!":
            i += 1
        start = offs[at]
        end = offs[at + 1]
        if first in name_start:
            if first in "tfueiTFUEI" and tok.lower() in _keywords:
                low = tok.lower()
                if low == "true" or low == "false":
                    node = _boolean(low == "true", (lines, start, end))
                elif low == "undefined":
                    node = _undefined((lines, start, end))
                elif low == "error":
                    node = _error((lines, start, end))
                else:
                    raise Reject  # is, isnt
            elif toks[i] == "(":
                i += 1
                if toks[i] < "!":
                    i += 1
                args: list[ast.Expr] = []
                if toks[i] != ")":
                    while True:
                        arg, i, _, _ = _expr(toks, offs, lines, decode, i)
                        args.append(arg)
                        sep = toks[i]
                        if sep != "," and sep != ";":
                            break
                        i += 1
                        if toks[i] < "!":
                            i += 1
                if toks[i] != ")":
                    raise Reject
                end = offs[i + 1]
                i += 1
                if toks[i] < "!":
                    i += 1
                if len(args) == 1 and isinstance(args[0], ast.String):
                    check_time_literal(tok, args[0].value, _NOWHERE)
                node = _call(tok, tuple(args), (lines, start, end))
            else:
                node = _attr(tok, None, (lines, start, end))
        elif first == "(":
            node, i, start, end = _expr(toks, offs, lines, decode, i)
            if toks[i] != ")":
                raise Reject
            i += 1
            if toks[i] < "!":
                i += 1
        elif first in digits:
            if tok.isdigit():
                node = _integer(int(tok) if len(tok) < 19 else int_value(tok), (lines, start, end))
            else:
                node = _real(float(tok), (lines, start, end))
        elif first == '"':
            if tok.count('"') == 2:
                text = decode(tok[1:-1], _NOWHERE)
            else:
                text = "".join(decode(p, _NOWHERE) for p in STRING_PIECE.findall(tok))
            node = _string(text, (lines, start, end))
        elif first == "-" and len(tok) > 1:  # NEG_INT, NEG_REAL
            if "x" in tok or "X" in tok or tok[1:].isdigit():
                node = _integer(int_value(tok), (lines, start, end))
            else:
                node = _real(float(tok), (lines, start, end))
        elif first == "'":
            node = _attr(_qname(tok), None, (lines, start, end))
        elif first == ".":
            if tok != "." and tok != "..":  # REAL
                node = _real(float(tok), (lines, start, end))
            else:  # DOT name: an absolute reference
                end = offs[i + 1]
                node = _attr(_name(toks[i]), ast.ROOT, (lines, start, end))
                i += 1
                if toks[i] < "!":
                    i += 1
        elif first == "{":
            items: list[ast.Expr] = []
            if toks[i] != "}":
                while True:
                    item, i, _, _ = _expr(toks, offs, lines, decode, i)
                    items.append(item)
                    if toks[i] != ",":
                        break
                    i += 1
                    if toks[i] < "!":
                        i += 1
            if toks[i] != "}":
                raise Reject
            end = offs[i + 1]
            i += 1
            if toks[i] < "!":
                i += 1
            node = _list(tuple(items), (lines, start, end))
        elif first == "[":
            attrs: list[tuple[str, ast.Expr]] = []
            while True:
                tok = toks[i]
                if tok == ";":
                    i += 1
                    if toks[i] < "!":
                        i += 1
                    continue
                if tok == "]":
                    break
                key = _name(tok)
                i += 1
                if toks[i] < "!":
                    i += 1
                if toks[i] != "=":
                    raise Reject
                i += 1
                if toks[i] < "!":
                    i += 1
                value, i, _, _ = _expr(toks, offs, lines, decode, i)
                attrs.append((key, value))
            end = offs[i + 1]
            i += 1
            if toks[i] < "!":
                i += 1
            node = _record(tuple(attrs), (lines, start, end))
        else:
            raise Reject
        tok = toks[i]
        if tok in _suffix:
            # ---- .name and [index] suffixes ----
            paren = first == "("
            while tok in _suffix:
                i += 1
                if toks[i] < "!":
                    i += 1
                if tok == "[":
                    index, i, _, _ = _expr(toks, offs, lines, decode, i)
                    if toks[i] != "]":
                        raise Reject
                    end = offs[i + 1]
                    node = _subscript(node, index, (lines, start, end))
                else:
                    name = _name(toks[i])
                    end = offs[i + 1]
                    if (
                        not paren
                        and isinstance(node, ast.AttrRef)
                        and node.scope is None
                        and node.name.upper() in ast.SCOPES
                    ):
                        node = _attr(name, node.name.upper(), (lines, start, end))
                    else:
                        node = _select(node, name, (lines, start, end))
                i += 1
                if toks[i] < "!":
                    i += 1
                paren = False
                tok = toks[i]
        if postfix_only:
            return node, i, start, end
        # ---- a binary operator, or the end of the binary operators ----
        found = binary_ops.get(tok)
        if found is None or prefixes is not None:
            # The rare cases: elvis, prefix operators, signed numbers, `is`, the end.
            if tok[0] == "?" and len(tok) > 1:
                # ---- elvis: `operand ?: postfix`, left-associative ----
                while tok[0] == "?" and len(tok) > 1:
                    i += 1
                    if toks[i] < "!":
                        i += 1
                    right, i, _, end = _expr(toks, offs, lines, decode, i, True)
                    node = _elvis(node, right, (lines, start, end))
                    tok = toks[i]
                found = binary_ops.get(tok)
            if prefixes is not None:
                for op, op_start in reversed(prefixes):
                    start = op_start
                    node = _unary(op, node, (lines, start, end))
            if found is None:
                first = tok[0]
                if first == "-" and len(tok) > 1:
                    # A signed number where an operator is expected is `-` and an
                    # unsigned number (lark's contextual lexer does not offer
                    # NEG_INT/NEG_REAL there); `a-07` and `a-0x1` stay errors (`07` is
                    # no token).
                    unsigned = tok[1:]
                    signed_int = "x" in tok or "X" in tok or unsigned.isdigit()
                    if signed_int and unsigned[0] == "0" and unsigned != "0":
                        raise Reject
                    toks[i] = unsigned
                    offs[i] += 1
                    found = _MINUS
                    i -= 1
                elif first in "iI" and tok.lower() in ("is", "isnt"):
                    found = binary_ops[tok.lower()]
                else:
                    while pending:
                        left, start, _, symbol = pending.pop()
                        node = _binary(symbol, left, node, (lines, start, end))
                    break
        power = found[0]
        while pending and pending[-1][2] >= power:
            left, start, _, symbol = pending.pop()
            node = _binary(symbol, left, node, (lines, start, end))
        pending.append((node, start, power, found[1]))
        i += 1
        if toks[i] < "!":
            i += 1
    # ---- the conditional: `or_expr ? expr : expr` ----
    if tok == "?":
        i += 1
        if toks[i] < "!":
            i += 1
        then, i, _, _ = _expr(toks, offs, lines, decode, i)
        if toks[i] != ":":
            raise Reject
        i += 1
        if toks[i] < "!":
            i += 1
        otherwise, i, _, end = _expr(toks, offs, lines, decode, i)
        node = _conditional(node, then, otherwise, (lines, start, end))
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
