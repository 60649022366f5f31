"""ClassAd text -> AST (stage: front end): the one entry point, `parse`.

Two parsers read the same language. `fastparse` (a regular-expression scan and a
precedence-climbing parser) reads every text first; the lark grammar (`grammar.lark`,
`lark_parser`) is the specification it is tested against, and it explains every syntax
error: when the fast path gives up, the text is parsed again by lark, which raises the
positioned `ClassAdSyntaxError` (or, for nesting deeper than the fast path's recursion,
builds the tree without recursing). lark is imported only then.

Trees deeper than `deep.MAX_DEPTH` are rejected with a `ClassAdSyntaxError` so that
later tree walks always fit in a stack.
"""

from __future__ import annotations

from functools import lru_cache

from compiler.classad import ast
from compiler.classad.deep import MAX_DEPTH
from compiler.classad.errors import ClassAdSyntaxError
from compiler.classad.fastparse import Reject, parse_fast
from compiler.classad.lexical import INT64_MAX, INT64_MIN, KEYWORDS

__all__ = ["INT64_MAX", "INT64_MIN", "KEYWORDS", "depth", "parse", "parse_uncached"]


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
    configuration values): backslashes are literal except in a `\\"` that more of the
    line follows (`lexical.OLD_STRING`, HTCondor's tokenizeStringOld). Results are
    remembered (trees are immutable): policy text is parsed again and again, and a
    pool's slot ads repeat the same expressions.
    """
    return parse_uncached(text, old_strings=old_strings)


def parse_uncached(text: str, *, old_strings: bool = False) -> ast.Expr:
    """`parse` without the memo (for measuring the parser itself)."""
    try:
        node = parse_fast(text, old_strings=old_strings)
    except Reject:
        from compiler.classad.lark_parser import parse_lark  # only to explain an error

        node = parse_lark(text, old_strings=old_strings)
    if len(text) > MAX_DEPTH and depth(node) > MAX_DEPTH:
        raise ClassAdSyntaxError(
            f"expression nested more than {MAX_DEPTH} levels deep",
            line=1,
            column=1,
            source_line=text.split("\n", 1)[0],
        )
    return node
