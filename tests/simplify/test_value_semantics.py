"""The simplifier folds comparisons exactly as the evaluator evaluates them, and the
evaluator compares exactly as HTCondor does.

Values of every kind: integers (64-bit extremes), reals (NaN, infinities, -0.0),
booleans, strings (ASCII letters in both cases, non-ASCII UTF-8, and bytes that are not
UTF-8, which the parser keeps as lone surrogates: `"\\377"`), UNDEFINED, ERROR, lists
and nested ads. Each value is written as ClassAd text (`format_value`) and parsed, so
the simplifier, the evaluator and the oracle all read the same expression.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler.classad import ERROR, UNDEFINED, ast, evaluate, format_value, parse
from compiler.classad.values import from_bytes
from compiler.simplify import simplify
from compiler.simplify.abstract import literal_of
from compiler.simplify.threevl import compare
from tests.classad.oracle_support import NoOracleAnswer, oracle_eval, same

OPS = ("<", "<=", ">", ">=", "==", "!=", "=?=", "=!=")

_ints = st.one_of(
    st.integers(-3, 3), st.sampled_from([-(2**63), 2**63 - 1]), st.integers(-(2**63), 2**63 - 1)
)
_reals = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, -1.5, math.inf, -math.inf, math.nan, 1e308]),
    st.floats(allow_nan=False, allow_infinity=False),
)
_strings = st.one_of(
    st.sampled_from(["", "a", "A", "b", "_", "é", "É", "￿", "\U0001f600", "ab", "AB"]),
    st.binary(max_size=4).filter(lambda b: 0 not in b).map(from_bytes),  # UTF-8 or not
    st.text(alphabet="aAbBzZ_é\x7f", max_size=3),
)
_scalars = st.one_of(_ints, _reals, st.booleans(), _strings, st.just(UNDEFINED), st.just(ERROR))
values = st.one_of(
    _scalars,
    st.lists(st.one_of(_ints, _strings), max_size=2),
    st.dictionaries(st.sampled_from(["a", "B"]), _ints, max_size=2),
)


def _expr(v: Any) -> ast.Expr:
    return parse(format_value(v))


def _evaluated(op: str, a: Any, b: Any) -> Any:
    return evaluate(ast.Binary(op, _expr(a), _expr(b)))


_STRING_EXAMPLES = [("\udcff", "a"), ("\udcff", "￿"), ("\udcff", "é"), ("Z", "a"), ("_", "A")]


@given(st.sampled_from(OPS), values, values)
@example("<", "\udcff", "a")
@example("<", "\udcff", "￿")  # bytes FF > EF BF BF, code points the other way round
@example("==", "\udcff", "\udcff")
@example("=?=", math.nan, math.nan)
@example("=?=", -0.0, 0.0)
@example("=?=", [1], {"a": 1})
@example("=?=", [1], [1])
@example("==", True, 1)
@example("<", 2**63 - 1, 9.223372036854775807e18)
def test_simplifier_comparison_is_the_evaluators(op: str, a: Any, b: Any) -> None:
    ours = compare(op, a, b)
    assert same(ours, _evaluated(op, a, b)), (op, a, b, ours)
    left, right = literal_of(a), literal_of(b)
    if left is not None and right is not None:
        folded = simplify(ast.Binary(op, left, right)).expr
        assert isinstance(folded, ast.LITERAL_TYPES)
        assert same(evaluate(folded), ours)


@pytest.mark.oracle
@settings(max_examples=60)
@given(values, values)
@example("\udcff", "a")
@example("\udcff", "￿")
@example("\udcff", "é")
@example("Z", "a")
@example("_", "A")
@example(math.nan, math.nan)
@example(-0.0, 0.0)
@example([1], {"a": 1})
@example(True, 1)
@example(2**63 - 1, 9.223372036854775807e18)
def test_evaluator_comparison_is_htcondors(a: Any, b: Any) -> None:
    # All eight operators in one oracle round trip.
    text = "{" + ", ".join(f"{format_value(a)} {op} {format_value(b)}" for op in OPS) + "}"
    try:
        theirs = oracle_eval(text)
    except NoOracleAnswer:
        return
    ours = evaluate(text)
    assert same(ours, theirs), (text, ours, theirs)


def test_compile_with_a_non_utf8_string_comparison(tmp_path: Any) -> None:
    """Regression: the simplifier's comparison encoded strings the evaluator never
    encodes, and `"\\377" < "a"` raised UnicodeEncodeError from `compile`."""
    from runtime.cli import main

    config = tmp_path / "condor_config"
    config.write_text('START = ("\\377" < "a") || KeyboardIdle > 600\n', encoding="utf-8")
    assert main(["compile", str(config)]) == 0
    assert compare("<", "\udcff", "a") is False  # the byte 0xFF sorts after "a"
