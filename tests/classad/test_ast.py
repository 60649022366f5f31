"""The AST's traversal API (children, walk, find_all, map_children) and its cached hash.

The reference for "the sub-expressions of a node" here is derived independently of
`children`: every field of the node's record (`msgspec.Struct`) but `span` that holds an expression (directly, in a
tuple, or as the value of a nested ad's `(name, expr)` pair).
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from msgspec.structs import fields, replace

from compiler.classad import ast as A
from compiler.classad import parse
from compiler.errors import Span
from tests.classad.strategies import asts


def _field_children(e: A.Expr) -> list[A.Expr]:
    out: list[A.Expr] = []

    def collect(value: Any) -> None:
        if isinstance(value, A.EXPR_TYPES):
            out.append(value)
        elif isinstance(value, tuple):
            for item in value:
                collect(item)

    for f in fields(e):
        if f.name != "span":  # where the text came from, not part of the value
            collect(getattr(e, f.name))
    return out


def _reference_walk(e: A.Expr) -> list[A.Expr]:
    return [e, *(x for c in _field_children(e) for x in _reference_walk(c))]


@given(asts())
def test_children_are_the_expression_fields_in_source_order(e: A.Expr) -> None:
    assert list(A.children(e)) == _field_children(e)


@given(asts())
def test_walk_is_preorder_over_every_node(e: A.Expr) -> None:
    got = list(A.walk(e))
    want = _reference_walk(e)
    assert len(got) == len(want)
    assert all(a is b for a, b in zip(got, want, strict=True))


def _reference_scope_walk(e: A.Expr) -> list[A.Expr]:
    if isinstance(e, A.RecordExpr) or (isinstance(e, A.Call) and e.key in A.SCOPE_CHANGING_CALLS):
        return [e]
    return [e, *(x for c in _field_children(e) for x in _reference_scope_walk(c))]


@given(asts())
def test_same_scope_leaves_out_nested_ads_and_scope_changing_calls(e: A.Expr) -> None:
    got = list(A.walk(e, same_scope=True))
    want = _reference_scope_walk(e)
    assert len(got) == len(want)
    assert all(a is b for a, b in zip(got, want, strict=True))


@given(asts())
def test_find_all_by_type_and_by_predicate(e: A.Expr) -> None:
    refs = A.find_all(e, A.AttrRef)
    assert refs == [x for x in _reference_walk(e) if isinstance(x, A.AttrRef)]
    assert A.find_all(e, lambda x: isinstance(x, A.AttrRef)) == refs
    pairs = A.find_all(e, (A.Binary, A.Unary))
    assert pairs == [x for x in _reference_walk(e) if type(x) in (A.Binary, A.Unary)]


@given(asts(), st.booleans())
def test_map_children_applies_to_exactly_the_children(e: A.Expr, same_scope: bool) -> None:
    assert A.map_children(e, lambda x: x, same_scope=same_scope) is e
    mapped = A.map_children(e, lambda x: A.Unary("-", x), same_scope=same_scope)
    expected = A.children(e, same_scope=same_scope)
    if not expected:
        assert mapped is e
        return
    assert type(mapped) is type(e)
    assert A.children(mapped) == tuple(A.Unary("-", x) for x in expected)


def test_map_children_keeps_nested_ads_and_unparse_unless_asked() -> None:
    e = parse("[a = x].a + unparse(x) + f(x)")
    renamed = A.map_children(e, _rename_x)
    assert renamed == parse("[a = x].a + unparse(x) + f(y)")
    assert _rename_x(e, same_scope=False) == parse("[a = y].a + unparse(y) + f(y)")


def _rename_x(e: A.Expr, *, same_scope: bool = True) -> A.Expr:
    if isinstance(e, A.AttrRef) and e.key == "x":
        return A.AttrRef("y")
    return A.map_children(e, lambda c: _rename_x(c, same_scope=same_scope), same_scope=same_scope)


def test_walk_and_hash_handle_very_deep_trees() -> None:
    depth = 10_000
    e: A.Expr = A.AttrRef("x")
    f: A.Expr = A.AttrRef("x")
    for i in range(depth):
        e = A.Unary("!", e) if i % 2 else A.Binary("+", e, A.Integer(i))
        f = A.Unary("!", f) if i % 2 else A.Binary("+", f, A.Integer(i))
    assert sum(1 for _ in A.walk(e)) == depth + depth // 2 + 1
    assert len(A.find_all(e, A.Integer)) == depth // 2
    assert hash(e) == hash(f)  # no recursion: each node hashed once, when built


@given(asts(), asts())
def test_equality_and_hash_are_structural(a: A.Expr, b: A.Expr) -> None:
    from compiler.classad import unparse

    rebuilt = pickle.loads(pickle.dumps(a))
    assert rebuilt == a and hash(rebuilt) == hash(a)
    assert copy.deepcopy(a) == a
    if a == b:
        assert hash(a) == hash(b)
    # Structural: the same text (names as written, literal kinds kept) means equal trees.
    assert (a == b) == (_shape(a) == _shape(b))
    assert unparse(a) == unparse(rebuilt)


def _shape(e: Any) -> Any:
    if isinstance(e, A.EXPR_TYPES):
        return (
            type(e).__name__,
            *(_shape(getattr(e, f.name)) for f in fields(e) if f.name != "span"),
        )
    if isinstance(e, tuple):
        return tuple(_shape(x) for x in e)
    return (type(e).__name__, e)


def test_spans_and_literal_kinds() -> None:
    span = Span(1, 1, 1, 2)
    assert A.Integer(1) == replace(A.Integer(1), span=span)
    assert hash(A.Integer(1)) == hash(A.Integer(1, span))
    assert len({A.Integer(1), A.Real(1.0), A.Boolean(True)}) == 3
    assert A.Binary("+", A.Integer(1), A.Integer(2)) != A.Binary("-", A.Integer(1), A.Integer(2))


def test_conjuncts_in_order_with_names_taken_apart() -> None:
    """`ast.conjuncts`: the operands of the top-level `&&` chain left to right; a leaf
    `expand` maps to an expression is taken apart in turn, a self-reference once."""
    from compiler.classad import unparse

    assert [unparse(c) for c in A.conjuncts(parse("a && (b && c || e) && d"))] == [
        "a", "b && c || e", "d"
    ]  # fmt: skip
    assert [unparse(c) for c in A.conjuncts(parse("a || b"))] == ["a || b"]
    defined = {"a": parse("x && a && y"), "y": parse("1 > 0")}

    def expand(node: A.Expr) -> A.Expr | None:
        return defined.get(node.key) if type(node) is A.AttrRef else None

    assert [unparse(c) for c in A.conjuncts(parse("a && d"), expand)] == ["x", "a", "1 > 0", "d"]
