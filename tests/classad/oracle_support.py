"""Running expressions through the HTCondor oracle and comparing its answers with ours.

The oracle (classad2 in HTCondor mode) returns UNDEFINED/ERROR as an enum and leaves
the non-literal elements of lists and nested ads unevaluated (ExprTree objects); those
elements are compared as "anything" (`ANY`), everything else must match exactly in type
and value (reals within 1e-9 relative, NaN equal to NaN).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from compiler.classad import ERROR, UNDEFINED, ast, unparse
from compiler.classad.values import type_name
from tests.oracle import classad2

ANY: Any = type("Anything", (), {"__repr__": lambda self: "ANY"})()


def oracle_ad(ad: Mapping[str, ast.Expr | Any] | None) -> Any:
    """An oracle ClassAd holding the same attributes (written in new ClassAd syntax)."""
    if ad is None:
        return None
    body = "; ".join(f"{_name(k)} = {_text(v)}" for k, v in ad.items())
    return classad2.ClassAd(f"[{body}]")


def _name(name: str) -> str:
    return unparse(ast.AttrRef(name))


def _text(value: Any) -> str:
    if isinstance(value, ast.EXPR_TYPES):
        return unparse(value)
    from compiler.classad import format_value

    return format_value(value)


def normalize(value: Any) -> Any:
    """An oracle result in our representation (unevaluated parts become ANY)."""
    if isinstance(value, classad2.Value):
        return ERROR if value == classad2.Value.Error else UNDEFINED
    if isinstance(value, classad2.ExprTree):
        return ANY
    if isinstance(value, classad2.ClassAd):
        return {k.lower(): normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return value


def oracle_eval(
    expr: ast.Expr | str,
    my: Mapping[str, Any] | None = None,
    target: Mapping[str, Any] | None = None,
) -> Any:
    text = expr if isinstance(expr, str) else unparse(expr)
    tree = classad2.ExprTree(text)
    mine = oracle_ad(my) if my is not None else classad2.ClassAd()
    if target is None:
        return normalize(tree.eval(mine))
    return normalize(tree.eval(mine, oracle_ad(target)))


def same(ours: Any, theirs: Any) -> bool:
    """Identical type and value (reals approximately; dict keys case-insensitively)."""
    if theirs is ANY:
        return True
    if isinstance(theirs, dict):
        if not isinstance(ours, dict):
            return False
        mine = {k.lower(): v for k, v in ours.items()}
        return mine.keys() == theirs.keys() and all(same(mine[k], theirs[k]) for k in theirs)
    if isinstance(theirs, list):
        return (
            isinstance(ours, list)
            and len(ours) == len(theirs)
            and all(same(a, b) for a, b in zip(ours, theirs, strict=True))
        )
    if type_name(ours) != type_name(theirs):
        return False
    if isinstance(theirs, float):
        if math.isnan(theirs) or math.isnan(ours):
            return math.isnan(theirs) and math.isnan(ours)
        if math.isinf(theirs) or math.isinf(ours):
            return ours == theirs
        return math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-300)
    return bool(ours == theirs) if ours is not UNDEFINED and ours is not ERROR else ours is theirs
