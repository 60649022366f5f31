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
    st.builds(ast.AttrRef, _names, st.sampled_from([None, "MY", "TARGET", "PARENT", ast.ROOT])),
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
    return st.builds(ast.AttrRef, name, st.sampled_from([None, None, "MY", "TARGET", ast.ROOT]))


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


#: Builtins that policies use (time() and random() are left out: they vary per call).
FUNCTIONS = [
    "ifThenElse", "isUndefined", "isError", "isString", "isInteger", "isReal", "isBoolean",
    "isList", "isClassAd", "strcat", "member", "identicalMember", "size", "int", "real",
    "string", "bool", "floor", "ceiling", "round", "toLower", "toUpper", "substr", "strcmp",
    "stricmp", "stringListMember", "stringListIMember", "stringListSize", "regexp", "sum",
    "min", "max", "avg", "join", "split", "quantize", "NoSuchFunction",
]  # fmt: skip

_EVAL_TEXT = st.sampled_from(
    ["KeyboardIdle + 1", "Owner", "MY.Flag", "TARGET.Rank", "1 +", "U", 'eval("E")', ""]
)


def _calls(children: st.SearchStrategy[ast.Expr]) -> st.SearchStrategy[ast.Expr]:
    return st.one_of(
        st.builds(ast.Call, st.sampled_from(FUNCTIONS), st.lists(children, max_size=3).map(tuple)),
        st.builds(ast.Call, st.just("eval"), st.tuples(st.builds(ast.String, _EVAL_TEXT))),
        st.builds(ast.Call, st.just("eval"), st.tuples(children)),
    )


def _policy_compound(children: st.SearchStrategy[ast.Expr]) -> st.SearchStrategy[ast.Expr]:
    return st.one_of(
        _calls(children),
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


# ---------------------------------------------------------------- well-typed trees
# Mostly sensible policy expressions (numbers compared with numbers, strings with
# strings), so that results are TRUE/FALSE/numbers far more often than ERROR.

NUMERIC_NAMES = ["KeyboardIdle", "LoadAvg", "Memory", "Rank"]
_scopes = st.sampled_from([None, None, None, "MY", "TARGET"])


def _numeric_leaves() -> st.SearchStrategy[ast.Expr]:
    return st.one_of(
        st.builds(ast.Integer, st.integers(-3, 2000)),
        st.builds(ast.Real, st.sampled_from([0.0, 0.25, 0.3, 1.5, -2.5, 899.9999999999])),
        st.builds(ast.AttrRef, st.sampled_from(NUMERIC_NAMES), _scopes),
        st.builds(ast.AttrRef, st.sampled_from(NUMERIC_NAMES), _scopes),
        st.just(ast.UndefinedLit()),
    )


def numeric_exprs(max_leaves: int = 8) -> st.SearchStrategy[ast.Expr]:
    return st.recursive(
        _numeric_leaves(),
        lambda c: st.one_of(
            st.builds(ast.Binary, st.sampled_from(["+", "-", "*", "/", "%"]), c, c),
            st.builds(ast.Unary, st.just("-"), c),
            st.builds(ast.Elvis, c, c),
            st.builds(ast.Call, st.sampled_from(["int", "real", "floor", "round"]), st.tuples(c)),
            st.builds(
                ast.Call,
                st.sampled_from(["min", "max", "sum"]),
                st.tuples(st.builds(ast.ListExpr, st.lists(c, min_size=1, max_size=3).map(tuple))),
            ),
        ),
        max_leaves=max_leaves,
    )


_owner = st.one_of(
    st.builds(ast.AttrRef, st.just("Owner"), _scopes),
    st.builds(ast.String, _strings),
)


def _boolean_leaves() -> st.SearchStrategy[ast.Expr]:
    num = numeric_exprs(4)
    return st.one_of(
        st.builds(ast.Binary, st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), num, num),
        st.builds(ast.Binary, st.sampled_from(["==", "!=", "=?=", "=!=", "<"]), _owner, _owner),
        st.builds(ast.Binary, st.sampled_from(["=?=", "=!="]), num, st.just(ast.UndefinedLit())),
        st.builds(ast.Boolean, st.booleans()),
        st.builds(ast.AttrRef, st.just("Flag"), _scopes),
        st.builds(ast.Call, st.sampled_from(["isUndefined", "isError"]), st.tuples(num)),
        st.builds(
            ast.Call,
            st.sampled_from(["stringListMember", "regexp", "member"]),
            st.tuples(_owner, st.builds(ast.String, st.sampled_from(["coltrane,tyner", "^c", ""]))),
        ),
    )


def boolean_exprs(max_leaves: int = 8) -> st.SearchStrategy[ast.Expr]:
    return st.recursive(
        _boolean_leaves(),
        lambda c: st.one_of(
            st.builds(ast.Binary, st.sampled_from(["&&", "||", "&&", "||", "=?="]), c, c),
            st.builds(ast.Unary, st.just("!"), c),
            st.builds(ast.Conditional, c, c, c),
            st.builds(ast.Call, st.just("ifThenElse"), st.tuples(c, c, c)),
        ),
        max_leaves=max_leaves,
    )


def typed_exprs() -> st.SearchStrategy[ast.Expr]:
    return st.one_of(boolean_exprs(), numeric_exprs(), boolean_exprs())


def typed_ads() -> st.SearchStrategy[dict[str, ast.Expr]]:
    """An ad whose numeric names hold numbers, Owner a string and Flag a boolean."""
    return st.fixed_dictionaries(
        {},
        optional={
            **{
                n: st.one_of(st.builds(ast.Integer, st.integers(0, 3000)), numeric_exprs(4))
                for n in NUMERIC_NAMES
            },
            "Owner": st.builds(ast.String, _strings),
            "Flag": boolean_exprs(4),
        },
    )
