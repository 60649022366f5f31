"""Behaviours of HTCondor 25.14.1 that the manual does not tell (or contradicts), each
checked against the oracle and pinned to its value so a regression names the rule."""

from __future__ import annotations

import pytest

from compiler.classad import ERROR, UNDEFINED, compile_expr, evaluate, parse
from tests.classad.oracle_support import oracle_eval, same

U, E = UNDEFINED, ERROR

CASES = [
    # cycles are UNDEFINED (manual: ERROR); nothing is cached between look-ups
    ("a", {"a": "a + 1"}, None, U),
    (
        "a * 1000 + b",
        {"b": "ifThenElse(isUndefined(a), 10, 20)", "a": "1 + isUndefined(b)"},
        None,
        1020,
    ),
    # =?= is FALSE across types, ERROR only for two lists or two ads
    ("{} =?= 0", {}, None, False),
    ("[] =?= {}", {}, None, False),
    ("{1} =?= {1}", {}, None, E),
    ("x =?= {}", {}, {"x": "[]"}, False),
    # selection maps over lists, nested lists included
    ("{{}}.a", {}, None, [[]]),
    ("{[a = 1], 3, undefined}.a", {}, None, [1, E, U]),
    # list elements selected from are evaluated where the selection is, not where the
    # list lives (nested ads and lists keep their lexical parent)
    ("Owner.a", {"KeyboardIdle": "0"}, {"Owner": "{MY.KeyboardIdle}"}, [E]),
    (
        "TARGET.M.a",
        {"w": "1"},
        {"w": "2", "x": "[a = 5]", "M": "{[a = w], x, {[a = w]}}"},
        [2, 5, [2]],
    ),
    # list indexes are truncated to 32 bits
    ("{7, 8, 9}[4294967297]", {}, None, 8),
    ("{7, 8, 9}[2147483648]", {}, None, E),
    # string conversions print a list or ad unevaluated
    ("string({1 + 1})", {}, None, "{ 1 + 1 }"),
    ('strcat("x", [a = 1])', {}, None, "x[ a = 1 ]"),
    # MY inside a nested ad is that ad, but `MY.x` still walks out to the enclosing ad
    ("[a = MY.w].a", {"w": "3"}, None, 3),
    ("r.v", {"w": "3", "r": "[w = 5; v = MY.w]"}, None, 5),
    # unscoped names fall back to the other ad only from a top-level ad
    ("[b = z].b", {"w": "3"}, {"z": "9"}, U),
    ("TARGET.q", {"w": "3"}, {"q": "w + 1"}, 4),
    ("TARGET.TARGET.w", {"w": "3"}, {"z": "1"}, 3),
    # `.name` reads the outermost ad, which in a match is HTCondor's internal match ad
    (".w", {"w": "3"}, None, 3),
    (".w", {"w": "3"}, {"w": "4"}, U),
    # lexical corners
    ("'a' 'b'", {"ab": "1"}, None, 1),
    ("-017", {}, None, -17),
    ("-0x1F", {}, None, 0),
    ("1is 1", {}, None, True),
    ('"\\303\\251" == "é"', {}, None, True),
    ('"_" < "A"', {}, None, True),
    # arithmetic corners
    ("-9223372036854775808 / -1", {}, None, 9223372036854775807),
    ("9223372036854775807 + 1", {}, None, -9223372036854775808),
    ("1 << 64", {}, None, 1),
    ("-8 >>> 1", {}, None, 9223372036854775804),
    ("1e308 * 10", {}, None, E),
    ("-1.0 / 0", {}, None, float("-inf")),
    ("9007199254740993 == 9007199254740992.0", {}, None, True),
]


@pytest.mark.parametrize(("expr", "my", "target", "expected"), CASES)
def test_surprise(expr: str, my: dict, target: dict | None, expected: object) -> None:
    mine = {k: parse(v) for k, v in my.items()}
    theirs = {k: parse(v) for k, v in target.items()} if target is not None else None
    ours = evaluate(expr, mine, theirs)
    assert same(ours, expected), f"ours {ours!r}"
    assert same(compile_expr(expr)(mine, theirs), expected)
    assert same(oracle_eval(expr, mine, theirs), expected)


SHIFT_OPERANDS = [-(2**63), -8, -1, 0, 1, 8, 2**63 - 1]
SHIFT_COUNTS = [-(2**63), -65, -64, -63, -2, -1, 0, 1, 2, 62, 63, 64, 65, 127, 128, 2**63 - 1]


@pytest.mark.parametrize("op", ["<<", ">>", ">>>"])
def test_shift_counts_outside_0_to_63(op: str) -> None:
    """Undefined behaviour in C; we reproduce what the oracle's build does."""
    for x in SHIFT_OPERANDS:
        for n in SHIFT_COUNTS:
            text = f"{x} {op} {n}"
            assert evaluate(text) == oracle_eval(text), text
