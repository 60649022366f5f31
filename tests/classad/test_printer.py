"""The one value printer, `format_value`, against HTCondor (classad2).

HTCondor prints a value the same way wherever it converts one to text: `string()` of a
list or ad, `strcat`, and `classad_eval` results. `string({v})` makes the oracle print
any value `v` inside a list, so comparing its text with `format_value([v])` pins how
reals (`%.15E`, `-0.0`, `real("INF")`), strings (C escapes `\\a`..`\\r`, octal for other
control bytes and every byte of a non-ASCII character), lists and ads (attributes in
storage order: shorter names first, then case-insensitively) are written.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler.classad import ERROR, UNDEFINED, ast, evaluate, format_value, parse, unparse
from compiler.classad.values import from_bytes
from tests.classad.oracle_support import NoOracleAnswer, oracle_eval

_strings = st.one_of(
    st.text(alphabet="aZ_\"\\'\a\b\t\n\v\f\r\x01\x1b\x7fé€\U0001f600", max_size=6),
    st.binary(max_size=4).filter(lambda b: 0 not in b).map(from_bytes),
)
_scalars = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.floats(),
    st.sampled_from([0.0, -0.0, 1e300, 5e-324, math.inf, -math.inf]),
    st.booleans(),
    _strings,
    st.just(UNDEFINED),
    st.just(ERROR),
)
_names = st.sampled_from(["a", "B", "zeta", "Alpha", "a1", "ab", "AA", "b_2", "é", "a b", "true"])
values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(_names, inner, max_size=3)
    ),
    max_leaves=6,
)


@pytest.mark.oracle
@settings(max_examples=80)
@given(values)
@example("\a\v\x01\x7f\"\\'")
@example("é\udcff")
@example({"zeta": 1, "Alpha": 2, "a1": 3})
@example([-0.0, 1.5, 1e300, math.inf, -math.inf, math.nan])
def test_format_value_is_how_htcondor_prints_a_value(v: Any) -> None:
    text = f"string({{{format_value(v)}}})"
    try:
        theirs = oracle_eval(text)
    except NoOracleAnswer:
        return
    # The text may not read back as `v` exactly (`%.15E` rounds 1.7976931348623155e308
    # up to infinity): print what HTCondor read, which is what our parser reads too.
    read = evaluate(format_value(v))
    assert format_value([read]) == theirs
    assert evaluate(text) == theirs


def test_string_escapes_read_back() -> None:
    # `\a` and `\v` are C escapes in HTCondor's lexer too (not the letters a and v).
    assert evaluate('"\\a\\v" == "\\007\\013"') is True
    for s in ("\a\v\x01\x7f\"\\'é€", "\udcff\udc80x"):
        assert parse(unparse(ast.String(s))) == ast.String(s)
        assert evaluate(format_value(s)) == s
