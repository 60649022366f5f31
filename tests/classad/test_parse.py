"""Parser and unparser: round trip, HTCondor lexical rules, error positions, depth."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from compiler.classad import ClassAdSyntaxError, ast, parse, unparse
from compiler.classad.deep import call_deep
from tests.classad.strategies import asts


@given(asts())
@settings(max_examples=500)
def test_unparse_round_trips(expr: ast.Expr) -> None:
    assert parse(unparse(expr)) == expr


@given(asts())
def test_unparse_is_stable(expr: ast.Expr) -> None:
    text = unparse(expr)
    assert unparse(parse(text)) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("-5", ast.Integer(-5)),
        ("- 5", ast.Unary("-", ast.Integer(5))),
        ("a -5", ast.Binary("-", ast.AttrRef("a"), ast.Integer(5))),
        ("-9223372036854775808", ast.Integer(-(2**63))),
        ("9223372036854775808", ast.Integer(0)),
        ("- 9223372036854775808", ast.Unary("-", ast.Integer(0))),
        (".5", ast.Real(0.5)),
        ("00.5", ast.Real(0.5)),
        ("1E+3", ast.Real(1000.0)),
        ("1e309", ast.Real(float("inf"))),
        ('"a" "b"', ast.String("ab")),
        (r'"\101\q\x41\u00e9"', ast.String("Aqx41u00e9")),
        (r'"\777\400"', ast.String("?7 0")),
        ("TRUE", ast.Boolean(True)),
        ("Undefined", ast.UndefinedLit()),
        ("a is b", ast.Binary("=?=", ast.AttrRef("a"), ast.AttrRef("b"))),
        ("a ISNT b", ast.Binary("=!=", ast.AttrRef("a"), ast.AttrRef("b"))),
        ("MY.x", ast.AttrRef("x", "MY")),
        ("target.x", ast.AttrRef("x", "TARGET")),
        ("(MY).x", ast.Select(ast.AttrRef("MY"), "x")),
        ("TARGET.TARGET.x", ast.Select(ast.AttrRef("TARGET", "TARGET"), "x")),
        ("a..b", ast.Select(ast.AttrRef("a"), "b")),
        ("'a b'", ast.AttrRef("a b")),
        ("f(1; 2)", ast.Call("f", (ast.Integer(1), ast.Integer(2)))),
        ("a ? : b", ast.Elvis(ast.AttrRef("a"), ast.AttrRef("b"))),
        ("-a ?: 3", ast.Unary("-", ast.Elvis(ast.AttrRef("a"), ast.Integer(3)))),
        (
            "x ?: 2 + 3",
            ast.Binary("+", ast.Elvis(ast.AttrRef("x"), ast.Integer(2)), ast.Integer(3)),
        ),
        ("[a=1;;b=2;]", ast.RecordExpr((("a", ast.Integer(1)), ("b", ast.Integer(2))))),
        ("/* c */ {} // end\n", ast.ListExpr(())),
        ("1 // c\n + 2", ast.Binary("+", ast.Integer(1), ast.Integer(2))),
    ],
)
def test_lexical_and_precedence_rules(text: str, expected: ast.Expr) -> None:
    assert parse(text) == expected


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("5.", 1, 1),
        ("1.e3", 1, 1),
        ("08", 1, 1),
        ("0x1F", 1, 2),
        ('"\\0"', 1, 1),
        ("{1,2,}", 1, 6),
        ("u ?: -a", 1, 6),
        ("a &&\n  b +", 2, 5),
        ("x.true", 1, 3),
        ("is(1)", 1, 1),
        ("/* open", 1, 1),
        ("1 // no newline", 1, 3),
        ('"a" /*c*/ "b"', 1, 11),
        ("a b", 1, 3),
        ("", 1, 1),
    ],
)
def test_syntax_error_positions(text: str, line: int, column: int) -> None:
    with pytest.raises(ClassAdSyntaxError) as info:
        parse(text)
    assert (info.value.line, info.value.column) == (line, column)
    assert info.value.source_line == text.split("\n")[line - 1]


def test_thousand_deep_nesting_parses_and_round_trips() -> None:
    text = "- " * 1000 + "1"
    expr = parse(text)
    again = parse(unparse(expr))
    assert call_deep(lambda: again == expr)
    assert parse("(" * 1000 + "x" + ")" * 1000) == ast.AttrRef("x")


def test_too_deep_chain_is_a_clean_syntax_error() -> None:
    with pytest.raises(ClassAdSyntaxError, match="nested"):
        parse("a||" * 21_000 + "a")


@pytest.mark.slow
def test_megabyte_expression_is_clean() -> None:
    chain = " || ".join(f"a{i} == {i}" for i in range(60_000))
    assert len(chain) > 1_000_000
    with pytest.raises(ClassAdSyntaxError, match="nested"):
        parse(chain)
    flat = "{" + ", ".join(str(i) for i in range(150_000)) + "}"
    expr = parse(flat)
    assert isinstance(expr, ast.ListExpr) and len(expr.items) == 150_000
