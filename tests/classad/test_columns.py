"""Column-wise evaluation (compiler.classad.columns) gives, row for row, the scalar value.

The reference is the interpreter (`evaluate`) on each ad alone, and for the Desktop
policy and a sample of generated expressions the htcondor wheel (classad2). Generated
columns mix every kind a slot ad can hold: integers (64-bit edges), reals (-0.0, inf,
NaN), booleans, strings differing only in case, UNDEFINED and ERROR values, missing
attributes, literal and computed expressions stored in the ads (shared by several rows,
referring to each other, cycles included), and values the arrays do not hold (lists,
nested ads, times, strings with a NUL) that send their rows to the scalar evaluator.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, reject, settings
from hypothesis import strategies as st

from compiler.classad import ERROR, UNDEFINED, AbsTime, ClassAd, ast, parse, unparse
from compiler.classad import operators as ops
from compiler.classad.ads import load_ad
from compiler.classad.columns import Columns, compile_columns
from compiler.classad.evaluator import evaluate
from compiler.classad.values import RelTime, type_name
from tests.bench_classad import FALLBACK_POLICY, JOB
from tests.bench_columns import slot_ads
from tests.budget import examples
from tests.classad.oracle_support import NoOracleAnswer, ad_text, oracle_eval, same
from tests.classad.strategies import INT64_MAX, INT64_MIN, VOCAB, policy_exprs

EXAMPLES = examples(150)
NOW = 1_763_790_000


def _same(a: Any, b: Any) -> bool:
    """Identical ClassAd values: same type, same value (NaN is NaN, -0.0 is not 0.0)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if type_name(a) != type_name(b):
        return False
    if isinstance(a, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return a is b if a is UNDEFINED or a is ERROR else bool(a == b)


def _check_rows(expr: ast.Expr, rows: list[dict[str, Any]], target: dict[str, Any] | None) -> Any:
    got = compile_columns(expr)(Columns.from_ads(rows), target, now=NOW)
    assert len(got) == len(rows)
    values = got.tolist()
    true, holds = got.is_true(), got.holds()
    for n, ad in enumerate(rows):
        expected = evaluate(expr, ad, target, now=NOW)
        assert _same(values[n], expected), (
            f"{unparse(expr)} row {n} {ad!r}: columns {values[n]!r}, scalar {expected!r}"
        )
        assert true[n] == (expected is True)
        assert holds[n] == (ops.truth(expected) is True)
    # the same rows, every other one a ClassAd (its columns read from its lower-case map
    # when first used, the dicts' stored at once): the same values
    mixed = [ClassAd(ad) if n % 2 else ad for n, ad in enumerate(rows)]
    again = compile_columns(expr)(Columns.from_ads(mixed), target, now=NOW).tolist()
    assert all(_same(a, b) for a, b in zip(again, values, strict=True)), unparse(expr)
    return got


# ---- generated expressions and columns -------------------------------------------------

_ints = st.one_of(
    st.integers(-9, 20),
    st.sampled_from([0, 1, -1, 2**31, 2**53 + 1, INT64_MAX, INT64_MIN, INT64_MIN + 1, 2**64]),
)
_reals = st.sampled_from(
    [0.0, -0.0, 0.3, 0.5, 1.0, 2.5, -3.5, 1e300, -1e300, 9007199254740992.0, math.inf, -math.inf]
)
_strings = st.sampled_from(["", "Owner", "owner", "OWNER", "Unclaimed", "coltrane", "é", "É", "z"])
_names = st.sampled_from([*VOCAB, "keyboardidle", "OWNER", "State"])


def _refs() -> st.SearchStrategy[ast.Expr]:
    return st.builds(
        ast.AttrRef, _names, st.sampled_from([None, None, "MY", "TARGET", "PARENT", ast.ROOT])
    )


_leaves = st.one_of(
    st.builds(ast.Integer, _ints.filter(lambda i: INT64_MIN <= i <= INT64_MAX)),
    st.builds(ast.Real, _reals),
    st.builds(ast.String, _strings),
    st.builds(ast.Boolean, st.booleans()),
    st.just(ast.UndefinedLit()),
    st.just(ast.ErrorLit()),
    st.just(ast.Call("time", ())),
    st.just(ast.AttrRef("CurrentTime")),
    _refs(),
    _refs(),
    _refs(),
)

#: The type tests the arrays answer themselves (isUndefined is in every draw's mix too).
_PREDICATES = ["isError", "isString", "isInteger", "isReal", "isBoolean", "ISUNDEFINED", "isList"]
_OPS = ["+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "=?=", "=!=", "&&", "||"]


def _compound(children: st.SearchStrategy[ast.Expr]) -> st.SearchStrategy[ast.Expr]:
    return st.one_of(
        st.builds(ast.Binary, st.sampled_from(_OPS), children, children),
        st.builds(ast.Binary, st.sampled_from(["&&", "||", "==", "/"]), children, children),
        st.builds(ast.Binary, st.sampled_from(sorted(ast.BINARY_OPS)), children, children),
        st.builds(ast.Unary, st.sampled_from(["-", "+", "!", "~"]), children),
        st.builds(ast.Conditional, children, children, children),
        st.builds(ast.Call, st.just("ifThenElse"), st.tuples(children, children, children)),
        st.builds(ast.Call, st.just("IFTHENELSE"), st.tuples(children, children)),
        st.builds(ast.Elvis, children, children),
        st.builds(ast.Call, st.sampled_from(["isUndefined", "strcat"]), st.tuples(children)),
        st.builds(ast.Call, st.sampled_from(_PREDICATES), st.tuples(children)),
    )


def column_exprs(max_leaves: int = 12) -> st.SearchStrategy[ast.Expr]:
    """Mostly what the array path covers, with some of what it leaves to the scalar path."""
    return st.recursive(_leaves, _compound, max_leaves=max_leaves)


_values = st.one_of(
    _ints,
    _reals,
    st.just(math.nan),
    st.booleans(),
    _strings,
    st.sampled_from([UNDEFINED, ERROR, "nul\0", [1, "a"], {"a": 1}, AbsTime(5, 0), RelTime(2.0)]),
    st.builds(ast.Integer, st.integers(-3, 3)),
    st.builds(ast.String, _strings),
    st.just(ast.ErrorLit()),
    st.builds(
        ast.Binary,
        st.just("*"),
        st.builds(ast.Integer, st.integers(-3, 3)),
        st.just(ast.Integer(60)),
    ),
)


_stored_exprs = st.lists(st.one_of(column_exprs(5), policy_exprs(4)), min_size=1, max_size=3)
_row_names = st.one_of(_names, _names, _names, st.sampled_from(["MY", "target", "CurrentTime"]))


class _Pick(int):
    """The n-th expression of the pool the rows share (replaced before use)."""


#: A row's attribute: a value, or an expression of the pool the rows share.
_row_values = st.one_of(_values, _values, st.integers(0, 2).map(_Pick))
_rows = st.lists(st.dictionaries(_row_names, _row_values, max_size=7), min_size=1, max_size=7)


@st.composite
def slot_rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A few slot ads; stored expressions come from a small pool shared by the rows."""
    shared = draw(_stored_exprs)
    return [
        {k: shared[v % len(shared)] if type(v) is _Pick else v for k, v in row.items()}
        for row in draw(_rows)
    ]


_targets = st.one_of(
    st.none(),
    st.dictionaries(st.one_of(_names, st.sampled_from(["MY", "Parent"])), _values, max_size=6),
)

# Well-typed policies (numbers with numbers, strings with strings) over slots whose
# attributes mostly hold what the policy expects, so that rows end in every kind, not
# mostly ERROR: the integer/real arithmetic and comparisons are really exercised.
_NUMERIC = ["KeyboardIdle", "LoadAvg", "Memory", "Rank"]
_typed_scope = st.sampled_from([None, None, "MY", "TARGET"])
_numeric_leaves = st.one_of(
    st.builds(
        ast.Integer, st.sampled_from([-7, -2, -1, 0, 1, 2, 3, 60, 900, INT64_MAX, INT64_MIN])
    ),
    st.builds(ast.Real, st.sampled_from([-2.5, -0.0, 0.0, 0.3, 0.5, 3.0, 1e308])),
    st.builds(ast.AttrRef, st.sampled_from(_NUMERIC), _typed_scope),
    st.builds(ast.AttrRef, st.sampled_from(_NUMERIC), _typed_scope),
    st.just(ast.Call("time", ())),
)


def _numeric_compound(c: st.SearchStrategy[ast.Expr]) -> st.SearchStrategy[ast.Expr]:
    return st.one_of(
        st.builds(ast.Binary, st.sampled_from(["+", "-", "*", "/", "%"]), c, c),
        st.builds(ast.Unary, st.sampled_from(["-", "+"]), c),
        st.builds(ast.Elvis, c, c),
    )


_numbers = st.recursive(_numeric_leaves, _numeric_compound, max_leaves=5)
_owner = st.one_of(
    st.builds(ast.AttrRef, st.just("Owner"), _typed_scope), st.builds(ast.String, _strings)
)
_boolean_leaves = st.one_of(
    st.builds(ast.Binary, st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), _numbers, _numbers),
    st.builds(ast.Binary, st.sampled_from(["==", "!=", "=?=", "=!=", "<", ">="]), _owner, _owner),
    st.builds(ast.Binary, st.sampled_from(["=?=", "=!="]), _numbers, _numeric_leaves),
    st.builds(ast.Binary, st.sampled_from(["=?=", "=!="]), _numbers, st.just(ast.UndefinedLit())),
    st.builds(ast.AttrRef, st.just("Flag"), _typed_scope),
)


def _boolean_compound(c: st.SearchStrategy[ast.Expr]) -> st.SearchStrategy[ast.Expr]:
    return st.one_of(
        st.builds(ast.Binary, st.sampled_from(["&&", "||"]), c, c),
        st.builds(ast.Unary, st.just("!"), c),
        st.builds(ast.Conditional, c, c, c),
        st.builds(ast.Call, st.just("ifThenElse"), st.tuples(c, _numbers, _numbers)),
    )


typed_exprs = st.one_of(
    st.recursive(_boolean_leaves, _boolean_compound, max_leaves=6),
    _numbers,
)
_typed_values = {
    **{
        name: st.one_of(
            st.integers(-9, 3000),
            st.integers(-9, 3000),
            st.sampled_from([INT64_MAX, INT64_MIN, -0.0, 0.3, 1.3, 899.5, 1e308, UNDEFINED]),
            st.builds(ast.Binary, st.just("-"), st.just(ast.AttrRef("Memory")), _numeric_leaves),
        )
        for name in _NUMERIC
    },
    "Owner": st.one_of(_strings, st.just(3)),
    "Flag": st.one_of(st.booleans(), st.sampled_from([0, 2.5, "yes", ERROR])),
}
_required = ["KeyboardIdle", "LoadAvg", "Owner", "Flag"]
typed_rows = st.lists(
    st.fixed_dictionaries(
        {k: v for k, v in _typed_values.items() if k in _required},
        optional={k: v for k, v in _typed_values.items() if k not in _required},
    )
    | st.fixed_dictionaries({}, optional=_typed_values),
    min_size=2,
    max_size=10,
)
typed_targets = st.one_of(st.none(), st.fixed_dictionaries({}, optional=_typed_values))


@given(typed_exprs, typed_rows, typed_targets)
@settings(max_examples=EXAMPLES)
@example(parse("KeyboardIdle / 2"), [{"KeyboardIdle": -7}, {"KeyboardIdle": 7}], None)
@example(parse("-KeyboardIdle / -1"), [{"KeyboardIdle": INT64_MAX}, {"KeyboardIdle": 7}], None)
def test_well_typed_rows_are_the_scalar_value(
    expr: ast.Expr, rows: list[dict[str, Any]], target: dict[str, Any] | None
) -> None:
    _check_rows(expr, rows, target)


@given(st.one_of(column_exprs(), column_exprs(), policy_exprs()), slot_rows(), _targets)
@settings(max_examples=EXAMPLES)
@example(parse("LoadAvg - CondorLoadAvg <= 0.3"), [{"LoadAvg": 1.3, "CondorLoadAvg": 1.0}], None)
def test_every_row_is_the_scalar_value(
    expr: ast.Expr, rows: list[dict[str, Any]], target: dict[str, Any] | None
) -> None:
    _check_rows(expr, rows, target)


# ---- the semantics the array path restates -----------------------------------------------

_EXACT_ROWS = [
    {"a": 7, "b": 2, "s": "Coltrane", "f": False, "e": ERROR, "u": UNDEFINED},
    {"a": -7, "b": 2, "s": "coltrane", "f": True, "e": 1, "u": 0.0},
    {"a": INT64_MIN, "b": -1, "s": "COLTRANÉ", "f": 0, "e": "x", "u": -0.0},
    {"a": INT64_MAX, "b": 0, "s": "é", "f": 2.5, "e": parse("1/0"), "u": 1e308},
    {"a": 2**53 + 1, "b": 9007199254740992.0, "s": "", "f": "no", "e": True, "u": math.nan},
    {"b": True},
]

_EXACT_TEXTS = [
    "a / b", "a % b", "a + 1", "a * b", "a - b", "-a", "+f", "-f", "a == b", "a < b", "a >= b",
    "b / u", "u / b", "a * 1.0 / b", "s == \"coltrane\"", "s != \"COLTRANE\"", "s < \"d\"",
    "s =?= \"coltrane\"", "s isnt \"Coltrane\"", "f && e", "f || e", "!f", "u && e", "e || f",
    "f ? a : e", "ifThenElse(f, e, a)", "u ?: a", "x ?: s", "a is b", "f =?= 0", "u =?= -0.0",
    "e =?= error", "missing =?= undefined", "TARGET.a", "MY.a + TARGET.a", "a + TARGET.t",
    "time() - a", "CurrentTime", "MY.CurrentTime", "TARGET.CurrentTime", "MY.Target",
]  # fmt: skip


@pytest.mark.parametrize("text", _EXACT_TEXTS)
def test_exact_semantics(text: str) -> None:
    """Integer division and modulo toward zero, the 64-bit wrap, int/real promotion,
    +inf as ERROR, case-insensitive `==` and case-sensitive `=?=`, short-circuit of
    `&&` `||` `?:` past an ERROR, the clock and the scope words, row by row."""
    got = _check_rows(parse(text), _EXACT_ROWS, {"a": 5, "t": "job"})
    # Plain values and covered operators: no row is left to the scalar evaluator (the
    # array path is really what is tested), except MY.Target (a scope, not a value).
    assert bool(got.scalar) == (text == "MY.Target")


def test_short_circuit_skips_the_right_operand_per_row() -> None:
    rows = [{"f": False, "e": parse("{1}")}, {"f": True, "e": parse("{1}")}]
    got = compile_columns("f && e")(Columns.from_ads(rows), None, now=NOW)
    assert got[0] is False
    assert got.scalar.keys() == {1}  # only the row that reads the list goes scalar
    assert got[1] is ERROR


def test_stored_expressions_shared_by_rows_and_cycles() -> None:
    shared = parse("KeyboardIdle < 60 || Cycle")
    rows = [
        {"KeyboardIdle": idle, "Suspend": shared, "Cycle": parse("Suspend && true")}
        for idle in (0, 59, 60, 4000)
    ]
    rows.append({"KeyboardIdle": 1, "Suspend": parse("Suspend")})
    rows.append({"Suspend": 5})
    got = _check_rows(parse("Suspend && KeyboardIdle >= 0"), rows, None)
    assert not got.scalar


def test_many_distinct_stored_expressions_fall_back_exactly() -> None:
    rows = [{"x": parse(f"y + {n}"), "y": n} for n in range(20)]
    got = _check_rows(parse("x * 2"), rows, None)
    assert got.scalar  # more distinct expressions than the array path groups


def test_expression_in_target_is_evaluated_against_each_slot() -> None:
    rows = [{"Memory": m} for m in (1024, 4096, 8192)]
    job = {"RequestMemory": 2048, "Fits": parse("TARGET.Memory >= RequestMemory")}
    _check_rows(parse("TARGET.Fits && Memory > 0"), rows, job)


def test_clock_is_read_once_per_call() -> None:
    ticks = iter(range(1000, 2000))
    rows = [{"t": 0}, {"t": parse("{1, 2}[1]")}]  # the second row goes scalar
    got = compile_columns("time() - t")(Columns.from_ads(rows), None, now=lambda: next(ticks))
    assert got.scalar.keys() == {1}
    assert (got[0], got[1]) == (1000, 998)


# ---- the Desktop policy over realistic slots, against the wheel ---------------------------


def _slots(count: int, now: int, seed: int = 7) -> list[dict[str, Any]]:
    return slot_ads(count, now, FALLBACK_POLICY, seed)


def test_desktop_policy_over_slots_without_the_scalar_path() -> None:
    slots = _slots(200, NOW)
    job = load_ad(JOB)
    for name, text in FALLBACK_POLICY.items():
        got = _check_rows(parse(text), slots, job)
        assert not got.scalar, name


@pytest.mark.oracle
def test_desktop_policy_matches_the_wheel() -> None:
    from tests.oracle import classad2

    now = int(time.time())
    slots = _slots(150, now, seed=11)
    job_text = "[" + ";".join(JOB.splitlines()) + "]"
    theirs_job = classad2.ClassAd(job_text)
    columns = Columns.from_ads(slots)
    for name, text in FALLBACK_POLICY.items():
        got = compile_columns(text)(columns, load_ad(JOB), now=now)
        tree = classad2.ExprTree(text)
        for n, ad in enumerate(slots):
            value = tree.eval(classad2.ClassAd(ad_text(ad)), theirs_job)
            if isinstance(value, classad2.Value):
                value = ERROR if value == classad2.Value.Error else UNDEFINED
            assert same(got[n], value), f"{name} row {n}: columns {got[n]!r}, classad2 {value!r}"


def _timeless(expr: ast.Expr) -> bool:
    """No clock (the wheel reads its own) and no `.name` (it refuses it in a match)."""
    return not ast.find_all(
        expr,
        lambda e: (
            (isinstance(e, ast.Call) and e.key == "time")
            or (isinstance(e, ast.AttrRef) and (e.key == "currenttime" or e.scope == ast.ROOT))
        ),
    )


_plain_values = st.one_of(
    _ints.filter(lambda i: INT64_MIN <= i <= INT64_MAX), _strings, st.booleans(), _reals
)


@pytest.mark.oracle
@given(
    column_exprs(8).filter(_timeless),
    st.lists(st.dictionaries(_names, _plain_values, max_size=5), min_size=1, max_size=3),
)
@settings(max_examples=examples(30))
def test_generated_expressions_match_the_wheel(expr: ast.Expr, rows: list[dict[str, Any]]) -> None:
    target = {"Owner": "coltrane", "KeyboardIdle": 7, "State": "unclaimed"}
    got = compile_columns(expr)(Columns.from_ads(rows), target, now=NOW)
    for n, ad in enumerate(rows):
        try:
            theirs = oracle_eval(expr, ad, target)
        except NoOracleAnswer:
            reject()
        assert same(got[n], theirs), f"{unparse(expr)} row {n} {ad!r}: {got[n]!r} vs {theirs!r}"


def test_negative_zero_is_not_zero() -> None:
    """AST equality takes -0.0 for 0.0; grouping and caching must not (x / -0.0 is -inf,
    x / 0.0 is +inf, which is ERROR)."""
    by_zero = {sign: ast.Binary("/", ast.AttrRef("y"), ast.Real(sign * 0.0)) for sign in (1, -1)}
    rows = [{"x": by_zero[1], "y": 1}, {"x": by_zero[-1], "y": 1}]
    got = _check_rows(parse("x"), rows, None)
    assert (got[0], got[1]) == (ERROR, -math.inf)
    for sign in (1, -1, 1):
        _check_rows(ast.Binary("+", ast.AttrRef("y"), by_zero[sign].right), rows, None)


def test_builtin_calls_run_once_per_distinct_arguments() -> None:
    """Builtins (allow-lists, regexp, isUndefined) over slot columns: exact per row, no
    row left to the scalar path, and -0.0 / 0.0, 1 / 1.0 / true kept apart as arguments."""
    rows = [
        {"Owner": owner, "x": x}
        for owner in ("coltrane", "Tyner", "jones", "")
        for x in (1, 1.0, True, 0.0, -0.0, "1", UNDEFINED, ERROR)
    ]
    rows.append({})
    for text in [
        'stringListIMember(Owner, "Coltrane,tyner") && isUndefined(x) =!= true',
        'regexp("^[ct]", Owner, "i") || member(x, {1, "1"})',
        "string(x) + 1",
        "isInteger(x) ? 1 / x : real(x)",
        "strcat(Owner, x, 1 / x)",
    ]:
        got = _check_rows(parse(text), rows, {"Owner": "x"})
        assert not got.scalar, text


def _arrays(column: Any) -> list[Any]:
    vec = column.vec
    return [vec.kind, vec.i, vec.r, vec.s, vec.f, vec.full, column.missing,
            [node for node, _ in column.groups], [mask for _, mask in column.groups]]  # fmt: skip


_SHARED = parse("KeyboardIdle > 15 * 60 && LoadAvg < 0.3")


def _dense_values() -> Any:
    """A column's values as `Columns.column` reads them: one kind of plain value (or
    several), some rows lacking it, or one stored expression object shared by the rows."""
    from compiler.classad.columns import ABSENT

    plain = st.one_of(
        _ints, st.one_of(_reals, st.floats()), st.booleans(), st.text(max_size=3),
        st.sampled_from(["Claimed", "claimed", "Owner", "a\0b", ""]),
    )  # fmt: skip
    same_type = plain.flatmap(
        lambda v: st.lists(st.one_of(st.just(v), st.from_type(type(v)) if type(v) is not float
                                     else st.floats()), min_size=1, max_size=8)
    )  # fmt: skip
    with_missing = same_type.flatmap(
        lambda vs: st.lists(st.booleans(), min_size=len(vs), max_size=len(vs)).map(
            lambda gone: [ABSENT if g else v for g, v in zip(gone, vs, strict=True)]
        )
    )
    shared = st.integers(1, 6).flatmap(
        lambda n: st.sampled_from([_SHARED, parse("7"), UNDEFINED, [1, 2]]).map(lambda v: [v] * n)
    )
    return st.one_of(same_type, with_missing, shared, st.lists(plain, max_size=8))


@given(_dense_values())
@settings(max_examples=EXAMPLES)
@example([True, 1])  # equal, but a boolean and an integer
@example([2**63])  # one past INT64_MAX: not an array integer
@example([-0.0, math.nan])
@example(["Claimed", "a\0b"])  # a NUL: not in a byte array
@example([_SHARED, _SHARED, parse("KeyboardIdle > 15 * 60 && LoadAvg < 0.3")])  # equal, two objects
def test_a_dense_column_is_the_column_built_row_by_row(values: list[Any]) -> None:
    """`Column.dense` (whole arrays) against `Column.build` (row by row): the same kinds,
    arrays and expression groups whenever it answers, and it answers for one plain type
    (with or without missing rows) and for one object in every row."""
    from compiler.classad.columns import ABSENT, Column

    dense = Column.dense(values)
    present = [v for v in values if v is not ABSENT]
    types = {type(v) for v in present}
    plain = (
        len(types) == 1
        and types <= {int, float, bool, str}
        and all(INT64_MIN <= v <= INT64_MAX for v in present if type(v) is int)
        and not any("\0" in v for v in present if type(v) is str)
    )
    one_object = (
        bool(values) and len(present) == len(values) and all(v is values[0] for v in values)
    )
    if plain or one_object:
        assert dense is not None
    if dense is None:
        return
    built = Column.build(len(values), {row: v for row, v in enumerate(values) if v is not ABSENT})
    for got, want in zip(_arrays(dense), _arrays(built), strict=True):
        if isinstance(want, list):  # the groups' nodes (by identity) and masks
            assert len(got) == len(want)
            for a, b in zip(got, want, strict=True):
                assert a is b if isinstance(b, ast.EXPR_TYPES) else np.array_equal(a, b)
        elif isinstance(want, np.ndarray):
            assert got.dtype == want.dtype
            assert np.array_equal(got, want, equal_nan=want.dtype.kind == "f")
            if want.dtype.kind == "f":  # -0.0 kept
                assert np.array_equal(np.signbit(got), np.signbit(want))
        else:
            assert got == want
