"""Hypothesis strategies for ClassAd ASTs, values and ads.

`asts()` builds arbitrary trees (every node type, awkward names and literals) for the
parse/unparse round trip. `policy_exprs()` builds well- and ill-typed expressions over
a small shared vocabulary of attribute names, so that evaluating them against the
generated ads (`ads()`) exercises attribute lookup, scoping and three-valued logic.
Depth stays far below HTCondor's own nesting limits (about 160 parenthesis levels)
so the oracle never refuses a case for size.
"""

from __future__ import annotations

from hypothesis import strategies as st

from compiler.classad import ast

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

# ---------------------------------------------------------------- round-trip trees

_names = st.one_of(
    st.sampled_from(["a", "B", "Memory", "my", "Target", "parent", "x_1", "true", "is", "_"]),
    st.text(min_size=1, max_size=6).filter(lambda s: "\0" not in s),
)
_ident = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True).filter(
    lambda s: s.lower() not in {"true", "false", "undefined", "error", "is", "isnt"}
)
_text = st.text(max_size=8).filter(lambda s: "\0" not in s)

_literals = st.one_of(
    st.builds(ast.Integer, st.integers(INT64_MIN, INT64_MAX)),
    st.builds(ast.Real, st.floats(allow_nan=False)),
    st.builds(ast.String, _text),
    st.builds(ast.Boolean, st.booleans()),
    st.just(ast.UndefinedLit()),
    st.just(ast.ErrorLit()),
    st.builds(ast.AttrRef, _names, st.sampled_from([None, "MY", "TARGET", "PARENT"])),
)


def _compound(children: st.SearchStrategy[ast.Expr]) -> st.SearchStrategy[ast.Expr]:
    return st.one_of(
        st.builds(ast.Unary, st.sampled_from(sorted(ast.UNARY_OPS)), children),
        st.builds(ast.Binary, st.sampled_from(sorted(ast.BINARY_OPS)), children, children),
        st.builds(ast.Conditional, children, children, children),
        st.builds(ast.Elvis, children, children),
        st.builds(ast.Select, children, _names),
        st.builds(ast.Subscript, children, children),
        st.builds(ast.ListExpr, st.lists(children, max_size=3).map(tuple)),
        st.builds(ast.RecordExpr, st.lists(st.tuples(_names, children), max_size=3).map(tuple)),
        st.builds(ast.Call, _ident, st.lists(children, max_size=3).map(tuple)),
    )


def asts(max_leaves: int = 30) -> st.SearchStrategy[ast.Expr]:
    """Any expression tree whose literals can be written in ClassAd text."""
    return st.recursive(_literals, _compound, max_leaves=max_leaves)


# ---------------------------------------------------------------- policy-like trees

#: Attribute names shared by generated expressions and ads (case varies on purpose).
VOCAB = ["KeyboardIdle", "LoadAvg", "Owner", "Memory", "Rank", "Flag", "Lst", "Sub", "U", "E"]

_small_ints = st.one_of(
    st.integers(-5, 20),
    st.sampled_from([0, 1, -1, 2**31, 2**53 + 1, INT64_MAX, INT64_MIN, INT64_MIN + 1]),
)
_reals = st.one_of(
    st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.5, -3.5, 1e300, 1e-300, 3.0000000000000004]),
    st.floats(-1e6, 1e6, allow_nan=False),
)
_strings = st.sampled_from(["", "coltrane", "Coltrane", "COLTRANE", "tyner", "a,b", "é", "É", "1"])


def _attr_refs() -> st.SearchStrategy[ast.Expr]:
    name = st.sampled_from(VOCAB).map(
        lambda n: n if len(n) < 3 else n.lower() if n[0] == "K" else n
    )
    return st.builds(ast.AttrRef, name, st.sampled_from([None, None, "MY", "TARGET"]))


_policy_leaves = st.one_of(
    st.builds(ast.Integer, _small_ints),
    st.builds(ast.Real, _reals),
    st.builds(ast.String, _strings),
    st.builds(ast.Boolean, st.booleans()),
    st.just(ast.UndefinedLit()),
    st.just(ast.ErrorLit()),
    _attr_refs(),
    _attr_refs(),
)


def _policy_compound(children: st.SearchStrategy[ast.Expr]) -> st.SearchStrategy[ast.Expr]:
    return st.one_of(
        st.builds(ast.Unary, st.sampled_from(sorted(ast.UNARY_OPS)), children),
        st.builds(ast.Binary, st.sampled_from(sorted(ast.BINARY_OPS)), children, children),
        st.builds(
            ast.Binary, st.sampled_from(["&&", "||", "==", "=?=", "<", "+"]), children, children
        ),
        st.builds(ast.Conditional, children, children, children),
        st.builds(ast.Elvis, children, children),
        st.builds(ast.ListExpr, st.lists(children, max_size=3).map(tuple)),
        st.builds(ast.Subscript, children, children),
        st.builds(ast.Select, children, st.sampled_from(["a", "B", "Owner", "x"])),
        st.builds(
            ast.RecordExpr,
            st.lists(st.tuples(st.sampled_from(["a", "B", "Owner"]), children), max_size=2).map(
                tuple
            ),
        ),
    )


def policy_exprs(max_leaves: int = 12) -> st.SearchStrategy[ast.Expr]:
    """Expressions over VOCAB: well-typed, ill-typed, UNDEFINED and ERROR all mixed."""
    return st.recursive(_policy_leaves, _policy_compound, max_leaves=max_leaves)


def ads(max_leaves: int = 6) -> st.SearchStrategy[dict[str, ast.Expr]]:
    """An ad: some VOCAB names bound to expressions (which may refer to each other)."""
    return st.dictionaries(
        st.sampled_from(VOCAB), policy_exprs(max_leaves=max_leaves), max_size=len(VOCAB)
    )
