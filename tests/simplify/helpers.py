"""Shared test helpers: evaluate an AST with the HTCondor oracle (and with our own
evaluator once it exists), generate random guards and random ads.

The oracle is the official `htcondor` wheel in HTCondor mode (tests/oracle.py); a guard is
unparsed with the project's unparser and evaluated with MY = machine ad, TARGET = job ad.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from compiler.classad import ast as A
from compiler.classad import unparse
from compiler.classad.values import ERROR, UNDEFINED
from tests.oracle import classad2


def _to_oracle_ad(attrs: dict[str, Any]) -> Any:
    ad = classad2.ClassAd()
    for name, value in attrs.items():
        if value is UNDEFINED:
            ad[name] = classad2.ExprTree("undefined")
        elif value is ERROR:
            ad[name] = classad2.ExprTree("error")
        else:
            ad[name] = value
    return ad


def normalise(v: Any) -> Any:
    """A comparable form of an oracle or project value (type-tagged, NaN equal)."""
    if v is UNDEFINED or v is classad2.Value.Undefined:
        return ("undefined",)
    if v is ERROR or v is classad2.Value.Error:
        return ("error",)
    if isinstance(v, float) and math.isnan(v):
        return ("real", "nan")
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, int):
        return ("int", v)
    if isinstance(v, float):
        return ("real", v)
    if isinstance(v, str):
        return ("str", v)
    if isinstance(v, list):
        return ("list", tuple(normalise(x) for x in v))
    if isinstance(v, dict | classad2.ClassAd):
        return ("ad", tuple(sorted((str(k).lower(), normalise(x)) for k, x in v.items())))
    return ("other", repr(v))


def oracle_eval(e: A.Expr, my: dict[str, Any], target: dict[str, Any]) -> Any:
    text = unparse(e)
    return normalise(classad2.ExprTree(text).eval(_to_oracle_ad(my), _to_oracle_ad(target)))


def project_evaluator() -> Any | None:
    """`compiler.classad.evaluate` when it exists (it lands after the simplifier)."""
    try:
        from compiler.classad import evaluate
    except ImportError:
        return None
    return evaluate


# ---- random guards --------------------------------------------------------------------

NAMES = ("a", "b", "c")
ANY_VALUES: list[Any] = [
    UNDEFINED, ERROR, True, False, 0, 1, 5, -3, 60, 300, 900, 901, 2.5, 0.0, 899.5,
    math.nan, math.inf, -math.inf, "abc", "ABC", "Owner", "owner", "", [1, 2], {"x": 1},
]  # fmt: skip
CONSTS = [
    A.Integer(0), A.Integer(1), A.Integer(5), A.Integer(60), A.Integer(300),
    A.Integer(900), A.Real(2.5), A.Real(899.5), A.String("abc"), A.String("Owner"),
    A.Boolean(True), A.Boolean(False), A.UndefinedLit(),
]  # fmt: skip
LITERALS = [
    A.Boolean(True), A.Boolean(False), A.UndefinedLit(), A.ErrorLit(), A.Integer(0),
    A.Integer(2), A.String("s"),
]  # fmt: skip


def refs(names: tuple[str, ...] = NAMES) -> st.SearchStrategy[A.Expr]:
    return st.one_of(
        st.sampled_from([A.AttrRef(n) for n in names]),
        st.sampled_from([A.AttrRef(n.upper()) for n in names]),
        st.sampled_from([A.AttrRef(n, "MY") for n in names]),
        st.sampled_from([A.AttrRef(n, "TARGET") for n in names]),
    )


def atoms(
    names: tuple[str, ...] = NAMES, consts: list[A.Expr] = CONSTS
) -> st.SearchStrategy[A.Expr]:
    cmp_ops = st.sampled_from(["<", "<=", ">", ">=", "==", "!=", "=?=", "=!="])
    ref = refs(names)
    const = st.sampled_from(consts)
    comparison = st.builds(lambda op, r, k, flip: A.Binary(op, k, r) if flip else A.Binary(op, r, k),
                           cmp_ops, ref, const, st.booleans())  # fmt: skip
    arith = st.builds(lambda r, k: A.Binary(">", A.Binary("-", r, A.Integer(1)), k), ref, const)
    operand = st.one_of(
        ref, st.sampled_from([A.Integer(2), A.Real(0.5), A.Integer(0), A.Boolean(True)])
    )
    arith2 = st.builds(
        lambda op, x, y, cmp, k: A.Binary(cmp, A.Binary(op, x, y), k),
        st.sampled_from(["+", "-", "*", "/", "%"]),
        ref,
        operand,
        cmp_ops,
        const,
    )
    negated = st.builds(lambda r, k: A.Binary("<", A.Unary("-", r), k), ref, const)
    return st.one_of(
        comparison,
        comparison,
        comparison,
        ref,
        st.sampled_from(LITERALS),
        st.builds(lambda r: A.Call("isUndefined", (r,)), ref),
        st.builds(lambda r: A.Call("isError", (r,)), ref),
        arith,
        arith2,
        negated,
        st.builds(lambda r: A.Binary(">", A.Elvis(r, A.Integer(0)), A.Integer(5)), ref),
    )


def guards(
    names: tuple[str, ...] = NAMES, consts: list[A.Expr] = CONSTS
) -> st.SearchStrategy[A.Expr]:
    def extend(children: st.SearchStrategy[A.Expr]) -> st.SearchStrategy[A.Expr]:
        return st.one_of(
            st.builds(lambda lhs, rhs: A.Binary("&&", lhs, rhs), children, children),
            st.builds(lambda lhs, rhs: A.Binary("||", lhs, rhs), children, children),
            st.builds(lambda x: A.Unary("!", x), children),
            st.builds(A.Conditional, children, children, children),
            st.builds(
                lambda c, t, o: A.Call("ifThenElse", (c, t, o)), children, children, children
            ),
            st.builds(A.Elvis, children, children),
            st.builds(lambda x, k: A.Binary("==", x, k), children, st.sampled_from(LITERALS[:2])),
        )

    return st.recursive(atoms(names, consts), extend, max_leaves=10)


def logic_over(atom: st.SearchStrategy[A.Expr], max_leaves: int) -> st.SearchStrategy[A.Expr]:
    """Trees of `&&`, `||` and `!` over `atom`."""
    return st.recursive(
        atom,
        lambda kids: st.one_of(
            st.builds(lambda lhs, rhs: A.Binary("&&", lhs, rhs), kids, kids),
            st.builds(lambda lhs, rhs: A.Binary("||", lhs, rhs), kids, kids),
            st.builds(lambda x: A.Unary("!", x), kids),
        ),
        max_leaves=max_leaves,
    )


def ads(
    names: tuple[str, ...] = NAMES, values: list[Any] = ANY_VALUES
) -> st.SearchStrategy[dict[str, Any]]:
    """An ad: each name absent or one of `values`."""
    absent = object()
    pairs = st.tuples(*(st.sampled_from([absent, *values]) for _ in names))
    return pairs.map(lambda vs: {n: v for n, v in zip(names, vs, strict=True) if v is not absent})
