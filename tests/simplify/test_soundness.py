"""The simplifier's central property: the simplified guard has exactly the same ClassAd
value as the original for every assignment, checked against the HTCondor oracle.

Random guards over a few attributes (comparisons in both orders, MY./TARGET./unscoped and
differently-cased names, `isUndefined`, `=?=`, `?:`, `ifThenElse`, elvis, `== TRUE`) are
evaluated with random machine and job ads holding UNDEFINED, ERROR, booleans, integers,
reals (NaN, infinities), strings of different case and lists.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.classad import ast as A
from compiler.simplify import STARTD_DOMAINS, Domain, simplify
from tests.budget import examples
from tests.simplify.helpers import (
    ads,
    guards,
    logic_over,
    normalise,
    oracle_eval,
    project_evaluator,
)

CASES_PER_GUARD = 12
EXAMPLES = examples(120)


def _check(
    e: A.Expr, out: A.Expr, machines: list[dict[str, Any]], jobs: list[dict[str, Any]]
) -> None:
    evaluate = project_evaluator()
    for my, target in zip(machines, jobs, strict=True):
        want = oracle_eval(e, my, target)
        got = oracle_eval(out, my, target)
        assert got == want, (e, out, my, target)
        if evaluate is not None:
            ours = normalise(evaluate(out, my=my, target=target))
            assert ours == want, ("project evaluator", out, my, target)


@settings(max_examples=EXAMPLES)
@given(
    guards(),
    st.lists(ads(), min_size=CASES_PER_GUARD, max_size=CASES_PER_GUARD),
    st.lists(ads(), min_size=CASES_PER_GUARD, max_size=CASES_PER_GUARD),
)
def test_simplified_equals_original_without_domains(
    e: A.Expr, machines: list[dict[str, Any]], jobs: list[dict[str, Any]]
) -> None:
    _check(e, simplify(e).expr, machines, jobs)


DOMAINS = {
    "a": Domain("integer", True, 0, 1439),  # like ClockMin
    "b": Domain("number", True, 0.0),  # like LoadAvg
    "c": Domain("number", False, 0.0),  # may be UNDEFINED/ERROR
}
DOMAIN_VALUES = {
    "a": [0, 1, 59, 60, 61, 299, 300, 301, 899, 900, 901, 1439],
    "b": [0, 0.0, 0.5, 2.5, 59.5, 60, 300.0, 899.5, 900, 901.25, 1e6],
    "c": [0, 0.5, 60, 300.5, 900, 901],
}


def _domain_machine() -> st.SearchStrategy[dict[str, Any]]:
    from compiler.classad.values import ERROR, UNDEFINED

    c_values = [*DOMAIN_VALUES["c"], UNDEFINED, ERROR]
    absent = object()
    return st.fixed_dictionaries(
        {
            "a": st.sampled_from(DOMAIN_VALUES["a"]),
            "b": st.sampled_from(DOMAIN_VALUES["b"]),
            "c": st.sampled_from([absent, *c_values]),
        }
    ).map(lambda d: {k: v for k, v in d.items() if v is not absent})


@settings(max_examples=EXAMPLES)
@given(
    guards(),
    st.lists(_domain_machine(), min_size=CASES_PER_GUARD, max_size=CASES_PER_GUARD),
    st.lists(ads(), min_size=CASES_PER_GUARD, max_size=CASES_PER_GUARD),
)
def test_simplified_equals_original_within_domains(
    e: A.Expr, machines: list[dict[str, Any]], jobs: list[dict[str, Any]]
) -> None:
    _check(e, simplify(e, domains=DOMAINS).expr, machines, jobs)


@settings(max_examples=EXAMPLES // 2)
@given(
    guards(),
    st.sampled_from([0, 5, 900, 2.5, "Owner", True, False]),
    st.lists(ads(), min_size=6, max_size=6),
)
def test_assumed_value_is_partial_evaluation(
    e: A.Expr, value: Any, jobs: list[dict[str, Any]]
) -> None:
    out = simplify(e, assume={"a": value}).expr
    for target in jobs:
        my = {"a": value}
        assert oracle_eval(out, my, target) == oracle_eval(e, my, target), (e, out, target)


@pytest.mark.explore
@settings(max_examples=3000)
@given(
    guards(),
    st.lists(ads(), min_size=CASES_PER_GUARD, max_size=CASES_PER_GUARD),
    st.lists(ads(), min_size=CASES_PER_GUARD, max_size=CASES_PER_GUARD),
)
def test_simplified_equals_original_many(
    e: A.Expr, machines: list[dict[str, Any]], jobs: list[dict[str, Any]]
) -> None:
    _check(e, simplify(e).expr, machines, jobs)
    _check(e, simplify(e, domains=STARTD_DOMAINS).expr, machines, jobs)


def _two_valued_guards() -> st.SearchStrategy[A.Expr]:
    """Guards whose atoms are comparisons of defined numbers: exercises sympy."""
    atom = st.builds(
        A.Binary,
        st.sampled_from(["<", "<=", ">", ">=", "==", "!="]),
        st.sampled_from([A.AttrRef("a"), A.AttrRef("b"), A.AttrRef(["MY", "a"][1], "MY")]),
        st.sampled_from([A.Integer(60), A.Integer(300), A.Real(899.5), A.Integer(900)]),
    )
    return logic_over(atom, max_leaves=9)


@settings(max_examples=EXAMPLES)
@given(
    _two_valued_guards(),
    st.lists(_domain_machine(), min_size=CASES_PER_GUARD, max_size=CASES_PER_GUARD),
)
def test_two_valued_minimisation_is_sound(e: A.Expr, machines: list[dict[str, Any]]) -> None:
    got = simplify(e, domains=DOMAINS)
    assert got.minimised or got.notes
    _check(e, got.expr, machines, [{}] * len(machines))
