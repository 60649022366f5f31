"""`truth`: dead (never TRUE), always (always TRUE), live — checked by hand-derived
expectations and, for the random guards, against the oracle on sampled assignments."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.classad import ast as A
from compiler.classad import parse
from compiler.simplify import STARTD_DOMAINS, truth
from tests.simplify.helpers import ads, guards, oracle_eval

CASES = [
    ("none", "false", "dead"),
    ("none", "true", "always"),
    ("none", "undefined", "dead"),
    ("none", "5", "always"),
    ("none", "a > 5", "live"),
    ("none", "a < 60 && a > 300", "dead"),  # not simplified to FALSE, yet never TRUE
    ("none", "a == 5 && a == 6", "dead"),
    ("none", "a =?= 1 && a =!= 1", "dead"),
    ("none", "a || !a", "live"),  # UNDEFINED when a is
    ("none", "a =?= undefined || a =!= undefined", "always"),
    ("none", "isUndefined(a) && a > 5", "dead"),
    ("none", "a > 5 && b", "live"),
    ("startd", "KeyboardIdle < 60 || KeyboardIdle >= 60", "always"),
    ("startd", "ClockMin < 1440", "always"),
    ("startd", "ClockDay > 6 || ClockMin > 1439", "dead"),
    ("startd", "KeyboardIdle > 15 * 60 && KeyboardIdle < 60", "dead"),
    ("startd", 'State == "Owner" && State == "Unclaimed"', "dead"),
    ("startd", 'State == "Owner" || State != "owner"', "always"),
    ("startd", "KeyboardIdle > 900 && JobStart > 5", "live"),
    ("startd", "KILL", "live"),
]


@pytest.mark.parametrize(("dom", "text", "want"), CASES)
def test_truth(dom: str, text: str, want: str) -> None:
    domains = STARTD_DOMAINS if dom == "startd" else {}
    assert truth(parse(text), domains=domains) == want


def test_assume_makes_a_dedicated_node_always_start() -> None:
    start = parse("KeyboardIdle > 15 * 60 && LoadAvg - CondorLoadAvg <= 0.3")
    assert truth(start, domains=STARTD_DOMAINS) == "live"
    fixed = {"KeyboardIdle": 10**9, "LoadAvg": 0.0, "CondorLoadAvg": 0.0}
    assert truth(start, domains=STARTD_DOMAINS, assume=fixed) == "always"


@settings(max_examples=100)
@given(
    guards(), st.lists(ads(), min_size=20, max_size=20), st.lists(ads(), min_size=20, max_size=20)
)
def test_truth_claims_hold_on_samples(
    e: A.Expr, machines: list[dict[str, Any]], jobs: list[dict[str, Any]]
) -> None:
    verdict = truth(e)
    for my, target in zip(machines, jobs, strict=True):
        value = oracle_eval(A.Unary("!", A.Unary("!", e)), my, target)
        if verdict == "dead":
            assert value != ("bool", True), (e, my, target)
        elif verdict == "always":
            assert value == ("bool", True), (e, my, target)
