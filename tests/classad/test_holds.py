"""The startd's boolean test (`compiler.holds`) against HTCondor.

The startd tests START, PREEMPT, ... with `EvalBool` -> `ClassAd::EvaluateAttrBoolEquiv`
-> `Value::IsBooleanValueEquiv` (src/condor_utils/compat_classad.cpp,
src/classad/classad.cpp, src/classad/value.cpp). The oracle cannot call that function
directly (classad2's `matches` converts in Python), but the `?:` operator tests its
selector with the same `Value::IsBooleanValueEquiv` (src/classad/operators.cpp, TERNARY_OP),
so a value holds exactly when the oracle's `(value) ? true : false` is TRUE.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from compiler import holds
from compiler.classad import evaluate
from compiler.classad.operators import truth
from tests.classad.oracle_support import oracle_eval

#: Value expressions covering every type and the numeric corners (NaN, infinities, -0.0,
#: the smallest subnormal, the 64-bit extremes).
VALUES = [
    "true",
    "false",
    "0",
    "1",
    "-1",
    "9223372036854775807",
    "-9223372036854775807 - 1",
    "0.0",
    "-0.0",
    "0.5",
    "5e-324",
    'real("NaN")',
    '-real("NaN")',
    'real("INF")',
    '-real("INF")',
    "undefined",
    "error",
    '""',
    '"true"',
    '"1"',
    "{}",
    "{1}",
    "[]",
    "[a = 1]",
]


def _oracle_holds(text: str) -> bool:
    return oracle_eval(f"({text}) ? true : false") is True


@pytest.mark.parametrize("text", VALUES)
def test_holds_is_the_startd_boolean_test(text: str) -> None:
    assert holds(evaluate(text)) is _oracle_holds(text)


def test_nan_holds() -> None:
    """A NaN policy value counts as TRUE in the startd (a C++ NaN converts to `true`)."""
    nan = evaluate('real("NaN")')
    assert isinstance(nan, float) and math.isnan(nan)
    assert holds(nan) is True
    assert _oracle_holds('real("NaN")') is True


@pytest.mark.parametrize("text", VALUES)
def test_holds_agrees_with_the_operators_truth(text: str) -> None:
    """One source of truth: `holds` is the `?:` selector test of our own evaluator."""
    value = evaluate(text)
    assert holds(value) is (evaluate(f"({text}) ? true : false") is True)
    assert holds(value) is (truth(value) is True)


@given(st.floats(allow_nan=True, allow_infinity=True) | st.integers(-(2**63), 2**63 - 1))
@example(float("nan"))
@example(-0.0)
def test_holds_numbers_differential(number: float) -> None:
    text = repr(number) if isinstance(number, int) else f'real("{number!r}")'
    assert holds(evaluate(text)) is _oracle_holds(text)
