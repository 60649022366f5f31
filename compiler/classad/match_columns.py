"""Matchmaking of one ad against many, column-wise (stage: evaluation).

The negotiator asks the same questions of every slot for one job: does each side's
Requirements accept the other (match.py's `symmetric_match`), what is each side's Rank.
Here the slots are `Columns` (columns.py) and the job one ad:

- the slots' own expressions (their Requirements, negotiator expressions with MY = slot)
  are column expressions with the job as TARGET;
- the job's expressions are flipped (flip.py) so that the slot is MY, then evaluated the
  same way. Rows whose slot stores an expression under a name the flipped expression
  reads, rows the arrays cannot compute, and jobs whose expression cannot be flipped are
  evaluated one by one by the scalar evaluator, so every answer is the scalar one.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from compiler.classad import ast
from compiler.classad.columns import (
    EXPR,
    MISSING,
    OTHER,
    Array,
    ColumnExpr,
    Columns,
    ColumnValues,
    compile_columns,
)
from compiler.classad.compile import compile_expr
from compiler.classad.evaluator import Now
from compiler.classad.flip import SPECIAL_NAMES, flip, literal
from compiler.classad.parser import parse


@lru_cache(maxsize=256)
def own_expression(text: str) -> ColumnExpr:
    """A column expression over the rows, MY = each row (negotiator knobs, `MY.Rank`)."""
    return compile_columns(parse(text))


@lru_cache(maxsize=1024)
def _compiled(expr: ast.Expr) -> ColumnExpr:
    return compile_columns(expr)


def _stored_expression_rows(columns: Columns, names: frozenset[str]) -> Array:
    """Rows that store an expression (or a value the arrays do not hold) under one of
    `names`, or hold an attribute named like a scope word: a flipped expression's
    reading of them is not exact there."""
    out = np.zeros(columns.n, dtype=bool)
    for name in names:
        column = columns.column(name)
        if column is not None:
            kind = column.vec.kind
            out |= (kind == EXPR) | (kind == OTHER)
    for name in SPECIAL_NAMES:
        column = columns.column(name)
        if column is not None:
            out |= column.vec.kind != MISSING
    return out


def _attribute(ad: Mapping[str, Any], key: str) -> Any:
    return next((v for k, v in ad.items() if k.lower() == key), None)


def of_other(
    expr: Any,
    ad: Mapping[str, Any],
    columns: Columns,
    *,
    attribute: str | None = None,
    now: Now = None,
) -> ColumnValues:
    """`expr`, in `ad`'s scope (MY = `ad`), evaluated with each row as TARGET, exactly
    as the scalar evaluator gives it. `attribute`: `expr` is `ad`'s stored value of that
    attribute (lower case), evaluated as the attribute (it reads as UNDEFINED inside
    itself; `expr` may then be the stored value, plain or an expression). `expr` None:
    UNDEFINED everywhere."""
    busy = frozenset() if attribute is None else frozenset({attribute})
    if expr is not None and not isinstance(expr, ast.EXPR_TYPES):
        expr = literal(expr)  # a plain stored value; a list, an ad, a time: one by one
        if expr is None:
            assert attribute is not None, "a stored value is an attribute's"
            expr = parse(f"MY.{attribute}")
            busy = frozenset()
    flipped = None if expr is None else flip(expr, ad, busy)
    if flipped is None:
        values = own_expression("undefined")(columns, ad, now=now)
        rows: list[int] = [] if expr is None else list(range(columns.n))
    else:
        values = _compiled(flipped.expr)(columns, ad, now=now)
        rows = np.flatnonzero(_stored_expression_rows(columns, flipped.reads)).tolist()
    if rows:
        assert expr is not None
        scalar = compile_expr(expr if attribute is None else f"MY.{attribute}")
        for row in rows:
            values.scalar[row] = scalar(ad, columns.ads[row], now=now)
    return values


def requirements_accept(ad: Mapping[str, Any], columns: Columns, *, now: Now = None) -> Array:
    """Per row: does `ad`'s Requirements accept the row (MY = `ad`, TARGET = the row)?
    As `requirements_met(ad, row)`: a missing Requirements accepts nothing."""
    expr = _attribute(ad, "requirements")
    if expr is None:
        return np.zeros(columns.n, dtype=bool)
    return of_other(expr, ad, columns, attribute="requirements", now=now).holds()


def rows_accept(columns: Columns, ad: Mapping[str, Any], *, now: Now = None) -> Array:
    """Per row: does the row's Requirements accept `ad` (MY = the row, TARGET = `ad`)?"""
    return own_expression("MY.Requirements")(columns, ad, now=now).holds()


def symmetric_matches(columns: Columns, ad: Mapping[str, Any], *, now: Now = None) -> Array:
    """Per row: `symmetric_match(row, ad)`."""
    return rows_accept(columns, ad, now=now) & requirements_accept(ad, columns, now=now)
