"""Shared machinery for the builtin-function differential tests (plus its own checks).

`literal(v)` writes a Python ClassAd value as ClassAd source text, independently of the
code under test; `oracle_call(name, args)` evaluates `name(args...)` with the HTCondor
wheel and converts the result back to Python values; `mine(name, args)` calls our
builtin; `same(a, b)` compares type and value exactly (reals to 1e-9, NaN equals NaN).
"""

from __future__ import annotations

import datetime
import math
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compiler.classad.functions import BUILTINS, FunctionContext
from compiler.classad.values import ERROR, UNDEFINED, AbsTime, RelTime
from tests.oracle import classad2

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t"}


def string_literal(s: str) -> str:
    """A double-quoted ClassAd string: control and non-ASCII bytes as octal escapes."""
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.extend(f"\\{b:03o}" for b in ch.encode("utf-8", "surrogateescape"))
    return '"' + "".join(out) + '"'


def real_literal(x: float) -> str:
    if math.isnan(x):
        return 'real("NaN")'
    if math.isinf(x):
        return 'real("INF")' if x > 0 else 'real("-INF")'
    return repr(x)


_KEYWORDS = {"true", "false", "undefined", "error", "is", "isnt"}


def name_literal(name: str) -> str:
    """An attribute name, single-quoted unless it is a plain identifier."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and name.lower() not in _KEYWORDS:
        return name
    return "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'"


def literal(v: Any) -> str:
    """ClassAd source text that evaluates to the Python value `v`."""
    if v is UNDEFINED:
        return "undefined"
    if v is ERROR:
        return "error"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        # -2**63 cannot be written as a literal (the positive part overflows).
        return "(-9223372036854775807 - 1)" if v == -(2**63) else str(v)
    if isinstance(v, float):
        return real_literal(v)
    if isinstance(v, str):
        return string_literal(v)
    if isinstance(v, list):
        return "{" + ", ".join(literal(e) for e in v) + "}"
    if isinstance(v, dict):
        return "[" + "; ".join(f"{name_literal(k)} = {literal(e)}" for k, e in v.items()) + "]"
    raise TypeError(v)


class OracleFailed(Exception):
    """The oracle raised (evaluation failure or undecodable string result)."""


def from_oracle(v: Any) -> Any:
    if isinstance(v, classad2.Value):
        return UNDEFINED if v == classad2.Value.Undefined else ERROR
    if isinstance(v, list):
        return [from_oracle(e) for e in v]
    if isinstance(v, classad2.ClassAd):
        return {k: from_oracle(v.eval(k)) for k in v}
    if isinstance(v, classad2.ExprTree):  # a list element kept as written (real("INF"))
        return from_oracle(v.eval())
    return v


class OracleUnreadable(Exception):
    """The oracle's string result is not UTF-8 (a byte-level cut of a multi-byte
    character); the Python binding cannot hand it over, so the case is not comparable."""


def oracle_text(text: str) -> Any:
    try:
        return from_oracle(classad2.ExprTree(text).eval())
    except UnicodeDecodeError as exc:
        raise OracleUnreadable(text) from exc
    except classad2.ClassAdException as exc:
        raise OracleFailed(text) from exc


def call_text(name: str, args: list[Any]) -> str:
    return f"{name}({', '.join(literal(a) for a in args)})"


def oracle_call(name: str, args: list[Any]) -> Any:
    return oracle_text(call_text(name, args))


CTX = FunctionContext(now=lambda: 1_700_000_000)


def mine(name: str, args: list[Any]) -> Any:
    return BUILTINS[name.lower()](list(args), CTX)


def same(a: Any, b: Any) -> bool:
    """Same ClassAd type and value (reals within 1e-9 relative, NaN == NaN).

    The binding hands an absolute time over as a `datetime` (the instant only) and a
    relative time as a float, like a real; tests/classad/test_time_values.py tells
    the kinds apart with `isAbsTime`/`isRelTime` and `string()`."""
    if a is UNDEFINED or a is ERROR or b is UNDEFINED or b is ERROR:
        return a is b
    if isinstance(a, AbsTime):
        return isinstance(b, datetime.datetime) and b.timestamp() == a.seconds
    if isinstance(a, RelTime):
        return same(a.seconds, b)
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if math.isinf(a) or math.isinf(b) or a == b:
            return a == b and math.copysign(1, a) == math.copysign(1, b)
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return {k.lower() for k in a} == {k.lower() for k in b} and all(
            same(a[k], next(b[j] for j in b if j.lower() == k.lower())) for k in a
        )
    return bool(a == b)


def check(name: str, args: list[Any]) -> bool:
    """Assert that our builtin agrees with the oracle on `name(args)`.

    Returns False (without asserting) only when the oracle's answer cannot be read
    back into Python (`OracleUnreadable`); hypothesis tests `assume()` on it.
    """
    try:
        expected = oracle_call(name, args)
    except OracleFailed:
        # HTCondor fails the whole evaluation (e.g. random(0)); we must say ERROR.
        expected = ERROR
    except OracleUnreadable:
        return False
    actual = mine(name, args)
    assert same(actual, expected), f"{call_text(name, args)}: ours {actual!r}, oracle {expected!r}"
    return True


# --- the helper's own tests -----------------------------------------------------------

_SCALARS = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(st.characters(min_codepoint=1, max_codepoint=0x2FF), max_size=8),
    st.sampled_from([UNDEFINED, ERROR]),
)


@pytest.mark.oracle
@given(_SCALARS)
def test_literal_round_trips_through_the_oracle(v: Any) -> None:
    assert same(oracle_text(literal(v)), v)


@pytest.mark.oracle
def test_same_distinguishes_classad_types() -> None:
    assert not same(1, 1.0)
    assert not same(1, True)
    assert same(math.nan, math.nan)
    assert not same(0.0, -0.0)
    assert same([1, UNDEFINED], oracle_text("{1, undefined}"))
