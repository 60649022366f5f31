"""Fuzzing ClassAd expressions: parse, evaluate (both evaluators), unparse, print, `eval`.

Contract (tests/fuzz/support.py): a value or a `PolicyError`, never another exception.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler.classad import compile_expr, evaluate, format_value, parse, unparse
from runtime.cli import main
from tests.fuzz.support import EXPLORE, FAST, expressions, holds, texts

#: Defects found by hand (issue 10) and by this campaign: each one an explicit example.
FOUND = (
    "!" * 2000 + "x",
    "!" * 20000 + "x",
    "-" * 2000 + "1",
    "- " * 20000 + "1",
    "(" * 20000 + "1" + ")" * 20000,
    "1" * 5000,
    "-" + "0" * 5000 + "1",
    "{" * 5000 + "1" + "}" * 5000,
    "[a=" * 5000 + "1" + "]" * 5000,
)

MY = {"Memory": 2048, "LoadAvg": 0.1, "KeyboardIdle": 1000, "Owner": "coltrane"}
TARGET = {"ImageSize": 1000, "Owner": "coltrane"}


def _whole_pipeline(text: str) -> None:
    expr = holds(parse, text)
    if expr is None:
        return
    ours = evaluate(expr, MY, TARGET, now=1_000_000_000)
    format_value(ours)
    compile_expr(expr)(MY, TARGET)
    again = unparse(expr)
    assert holds(parse, again) is not None, f"unparse gave text that does not parse: {again!r}"


def _examples(test):  # type: ignore[no-untyped-def]
    for text in FOUND:
        test = example(text)(test)
    return test


@FAST
@_examples
@given(texts(expressions()))
def test_expression_pipeline_never_raises_anything_else(text: str) -> None:
    _whole_pipeline(text)


@pytest.mark.explore
@EXPLORE
@_examples
@given(texts(expressions()))
def test_expression_pipeline_explore(text: str) -> None:
    _whole_pipeline(text)


@settings(FAST, max_examples=30)
@given(st.one_of(texts(expressions()), st.sampled_from(FOUND)))
def test_eval_command_exits_0_or_2(text: str) -> None:
    assert main(["eval", "--", text]) in (0, 2)
    assert main(["eval", "--json", "--", text]) in (0, 2)
