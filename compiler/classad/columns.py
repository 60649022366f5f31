"""One expression over many ads at once, column-wise with numpy (stage: evaluation).

A pool holds thousands of slots that share one policy: the same START, PREEMPT and
SUSPEND in every slot ad, only the attribute values differ. `Columns.from_ads(ads)`
stores the ads once as columns (per attribute a kind tag per row and typed numpy arrays:
int64, float64, the strings and their case-folded bytes), and `compile_columns(expr)`
turns an expression into a callable that evaluates it for every row with a handful of
array operations per node instead of one tree walk per slot: MY is each row, TARGET is
one ad (the job) shared by every row.

Exactness comes first, coverage second. The value semantics are those of operators.py
(three-valued logic, integer division truncating toward zero, the 64-bit wrap, an int
compared with a real as a real, strings compared case-folded as bytes, `=?=` by type
and value), restated here as array operations and property-tested against the scalar
evaluator on generated expressions and ads. A builtin function call is not restated:
the scalar evaluator computes it once per distinct tuple of argument values (slots share
few). Whatever a node or a row cannot be computed exactly as arrays -- lists, nested
ads, times, `random()`, the special forms (`eval`, `unparse`...), attribute expressions
that vary between too many rows, PARENT and `.name` -- is tagged OTHER; an OTHER that
reaches the result (not one in the branch `&&`, `||` or `?:` left unevaluated) sends
that row, and only that row, to the scalar compiled evaluator (`compile_expr`), so
correctness never depends on what the array path covers.

Attribute expressions stored in the slot ads (a slot's PREEMPT refers to its SUSPEND)
are evaluated column-wise too when the rows share a few distinct expressions, with the
cycle rule of scope.py: an attribute already being evaluated in that ad is UNDEFINED.
An expression stored in the TARGET ad is evaluated by the scalar path (it sees each
slot as its TARGET).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from compiler.classad import ast
from compiler.classad import operators as ops
from compiler.classad.compile import compile_expr
from compiler.classad.evaluator import SPECIAL_FORMS, Now, evaluate
from compiler.classad.parser import parse
from compiler.classad.scope import ClassAd
from compiler.classad.values import ERROR, UNDEFINED
from compiler.identity import IdentityMemo

Value = Any
Array = npt.NDArray[Any]

# ---- kinds ----------------------------------------------------------------------------
# The order matters: for a strict operator the larger kind of two operands that are not
# both plain values is the result (OTHER over ERROR over UNDEFINED), and two numbers are
# both integral when their larger kind is at most INT.
BOOL: Final = 0
INT: Final = 1
REAL: Final = 2
STR: Final = 3
UNDEF: Final = 4
ERR: Final = 5
OTHER: Final = 6
#: Column-only tags: the ad has no such attribute; the ad stores an expression.
MISSING: Final = 7
EXPR: Final = 8

_KIND_DTYPE: Final = np.int8
_INT64_MIN: Final = ops.INT64_MIN
_INT64_MAX: Final = ops.INT64_MAX
#: Names a look-up resolves specially when no ad defines them (scope.special).
_SPECIAL: Final = frozenset({"my", "self", "parent", "target", "other", "currenttime"})
#: Builtins whose value is not a function of their arguments and the clock.
_IMPURE: Final = frozenset({"random"})
#: The type tests whose answer is one kind of the arrays (functions_scalar._TYPE_TESTS).
_TYPE_PREDICATES: Final = {
    "isundefined": UNDEF, "iserror": ERR, "isstring": STR, "isinteger": INT, "isreal": REAL,
    "isboolean": BOOL,
}  # fmt: skip
#: More distinct expressions than this in one attribute's column: those rows are OTHER.
_MAX_GROUPS: Final = 8
#: Constant columns a ColumnExpr keeps between calls (a clock reading is one).
_CONST_LIMIT: Final = 256


def _table(*kinds: int) -> Array:
    """A kind -> kind map for `np.take` (indexed by the larger operand kind, 0..OTHER)."""
    return np.array(kinds, dtype=_KIND_DTYPE)


#: Arithmetic result kind by the larger operand kind: integers give INT, a real gives
#: REAL, a string (with anything) ERROR, UNDEFINED/ERROR/OTHER propagate.
_ARITH: Final = _table(INT, INT, REAL, ERR, UNDEF, ERR, OTHER)
#: `%` takes integers only.
_MODULO: Final = _table(INT, INT, ERR, ERR, UNDEF, ERR, OTHER)
#: Comparisons give a boolean (strings: only against strings, fixed afterwards).
_COMPARE: Final = _table(BOOL, BOOL, BOOL, BOOL, UNDEF, ERR, OTHER)
#: operators.truth: booleans and numbers have a truth value, strings are ERROR.
_TRUTH: Final = _table(BOOL, BOOL, BOOL, ERR, UNDEF, ERR, OTHER)
#: Unary minus: integers and reals (booleans and strings are ERROR).
_NEGATE: Final = _table(ERR, INT, REAL, ERR, UNDEF, ERR, OTHER)


# ---- one value per row ------------------------------------------------------------------


class _Vec:
    """A value per row: `kind`, and the typed arrays valid where the kind says.

    `i` holds BOOL (0/1) and INT rows, `r` REAL rows (also the integer rows when `full`),
    `s` the strings as stored and `f` their case-folded bytes (operators.fold_case).
    A field is None when no row can need it. Arrays are never modified once built.
    """

    __slots__ = ("_num", "f", "full", "i", "kind", "r", "s")

    def __init__(
        self,
        kind: Array,
        i: Array | None = None,
        r: Array | None = None,
        s: Array | None = None,
        f: Array | None = None,
        *,
        full: bool = False,
    ) -> None:
        self.kind = kind
        self.i = i
        self.r = r
        self.s = s
        self.f = f
        self.full = full
        self._num: Array | None = None

    def ints(self) -> Array:
        return self.i if self.i is not None else _zeros(len(self.kind), np.int64)

    def reals(self) -> Array:
        return self.r if self.r is not None else _zeros(len(self.kind), np.float64)

    def num(self) -> Array:
        """The rows' numbers as C doubles (an int converted as operators._ordered does)."""
        if self._num is None:
            if self.full and self.r is not None:
                self._num = self.r
            elif self.r is None:
                self._num = self.ints().astype(np.float64)
            else:
                self._num = np.where(self.kind == REAL, self.r, self.ints().astype(np.float64))
        return self._num

    def strs(self) -> Array:
        return self.s if self.s is not None else _zeros(len(self.kind), object)

    def folded(self) -> Array:
        return self.f if self.f is not None else _zeros(len(self.kind), "S1")


@lru_cache(maxsize=64)
def _zeros(n: int, dtype: Any) -> Array:
    out = np.zeros(n, dtype=dtype)
    out.flags.writeable = False
    return out


def _scalar_kind(value: Value) -> int:
    """The kind of an evaluated value; OTHER for what the arrays do not hold."""
    t = type(value)
    if t is bool:
        return BOOL
    if t is int:
        return INT if _INT64_MIN <= value <= _INT64_MAX else OTHER
    if t is float:
        return REAL
    if t is str:
        # Fixed-width byte arrays cannot hold a NUL at the end of a string.
        return STR if "\0" not in value else OTHER
    if value is UNDEFINED:
        return UNDEF
    if value is ERROR:
        return ERR
    return OTHER


def _const(value: Value, n: int) -> _Vec:
    """`value` in every row."""
    kind = _scalar_kind(value)
    kinds = np.full(n, kind, dtype=_KIND_DTYPE)
    if kind in (BOOL, INT):
        return _Vec(kinds, np.full(n, int(value), np.int64), np.full(n, float(value)), full=True)
    if kind == REAL:
        return _Vec(kinds, None, np.full(n, value, np.float64), full=True)
    if kind == STR:
        strs = np.full(n, value, dtype=object)
        folded = ops.fold_case(value)
        return _Vec(kinds, s=strs, f=np.full(n, folded, dtype=f"S{max(1, len(folded))}"))
    return _Vec(kinds)


def _merge(mask: Array, a: _Vec, b: _Vec) -> _Vec:
    """`a` where `mask`, else `b`."""
    kind = np.where(mask, a.kind, b.kind)
    i = None if a.i is None and b.i is None else np.where(mask, a.ints(), b.ints())
    r: Array | None
    if a.full and b.full:
        r = np.where(mask, a.reals(), b.reals())
        full = True
    else:
        r = None if a.r is None and b.r is None else np.where(mask, a.reals(), b.reals())
        full = False
    if a.s is None and b.s is None:
        return _Vec(kind, i, r, full=full)
    s = np.where(mask, a.strs(), b.strs())
    return _Vec(kind, i, r, s, np.where(mask, a.folded(), b.folded()), full=full)


# ---- stored values -------------------------------------------------------------------

_CLOSED: Final = (*ast.LITERAL_TYPES, ast.Unary, ast.Binary, ast.Conditional, ast.Elvis)


_closed: IdentityMemo[ast.Expr, tuple[bool, Value]] = IdentityMemo(4096)


def _closed_value(node: ast.Expr) -> tuple[bool, Value]:
    """(True, value) for an expression that reads nothing (no attribute, no call), else
    (False, None): its value is the same in every ad and at every time.

    Remembered per node object, not per equal node: AST equality takes 0.0 for -0.0.
    """
    hit = _closed.get(node)
    if hit is not None:
        return hit
    closed = all(isinstance(n, _CLOSED) for n in ast.walk(node))
    return _closed.put(node, (closed, evaluate(node) if closed else None))


def _exact_key(node: ast.Expr) -> tuple[ast.Expr, tuple[bool, ...]]:
    """A key under which equal expressions are the same expression: AST equality, and
    the sign of every real zero (`x / -0.0` is -inf where `x / 0.0` is ERROR)."""
    zeros = tuple(
        math.copysign(1.0, n.value) < 0
        for n in ast.walk(node)
        if isinstance(n, ast.Real) and n.value == 0
    )
    return node, zeros


def _stored(raw: Value) -> tuple[int, Value]:
    """An attribute's stored value as (kind, value); EXPR with the node to evaluate."""
    t = type(raw)
    if t is int or t is float or t is str or t is bool:
        return _scalar_kind(raw), raw
    if isinstance(raw, ast.EXPR_TYPES):
        if isinstance(raw, ast.Integer | ast.Real | ast.String | ast.Boolean):
            return _scalar_kind(raw.value), raw.value
        closed, value = _closed_value(raw)
        if closed:
            return _scalar_kind(value), value
        return EXPR, raw
    return _scalar_kind(raw), raw  # UNDEFINED, ERROR; lists, ads, times are OTHER


class Column:
    """One attribute over all rows: a `_Vec` whose kind may also be MISSING or EXPR, the
    rows holding each distinct stored expression, and whether any row lacks it."""

    __slots__ = ("groups", "missing", "vec")

    def __init__(self, vec: _Vec, groups: tuple[tuple[ast.Expr, Array], ...]) -> None:
        self.vec = vec
        self.groups = groups
        self.missing: Array | None = vec.kind == MISSING
        if not self.missing.any():
            self.missing = None

    @classmethod
    def dense(cls, values: Sequence[Value]) -> Column | None:
        """`build` of `values` (one per row; `ABSENT` where a row lacks the attribute) by
        whole-array operations, for the columns a pool of slot ads mostly has: one type
        of plain value (integers in 64 bits, reals, booleans, strings without a NUL) in
        every row that has one, or the very same object in every row (a policy
        expression the slots share); None for anything else (`build` then)."""
        n = len(values)
        if not n:
            return None
        types = set(map(type, values))
        missing = _Absent in types
        if missing:
            types.discard(_Absent)
        if len(types) != 1:
            return None
        t = types.pop()
        found = cls._plain(values, t, missing) if t in _PLAIN_TYPES else None
        if found is None and not missing and len(set(map(id, values))) == 1:
            return cls._repeated(cls.build(1, {0: values[0]}), n)
        return found

    @classmethod
    def _plain(cls, values: Sequence[Value], t: type, missing: bool) -> Column | None:
        """`dense` of values of the one plain type `t` (ABSENT in the missing rows)."""
        n = len(values)
        absent = None
        kind, zero = _PLAIN_TYPES[t]
        if missing:
            absent = np.fromiter((v is ABSENT for v in values), dtype=bool, count=n)
            values = [zero if v is ABSENT else v for v in values]
        kinds = np.full(n, kind, _KIND_DTYPE)
        strs: Array | None = None
        folded: Array | None = None
        if t is str:
            texts: list[str | None] = list(values)
            if any("\0" in x for x in set(texts)):  # type: ignore[operator]
                return None  # not held by a byte array (`_scalar_kind`)
            if absent is not None:
                texts = [None if gone else x for gone, x in zip(absent, texts, strict=True)]
            ints, reals = np.zeros(n, np.int64), np.zeros(n, np.float64)
            strs, folded = _string_arrays(texts)
        elif t is float:
            ints, reals = np.zeros(n, np.int64), np.array(values, dtype=np.float64)
        else:
            numbers: list[int] = list(values)
            if min(numbers) < _INT64_MIN or max(numbers) > _INT64_MAX:
                return None
            ints = np.array(numbers, dtype=np.int64)
            reals = ints.astype(np.float64)
        if absent is not None:
            kinds[absent] = MISSING
        return cls(_Vec(kinds, ints, reals, strs, folded, full=True), ())

    @classmethod
    def _repeated(cls, one: Column, n: int) -> Column:
        """The one-row column `one` in each of `n` rows."""
        vec = one.vec
        i, r, s, f = (None if a is None else np.repeat(a, n) for a in (vec.i, vec.r, vec.s, vec.f))
        return cls(
            _Vec(np.repeat(vec.kind, n), i, r, s, f, full=vec.full),
            tuple((node, np.repeat(mask, n)) for node, mask in one.groups),
        )

    @classmethod
    def build(cls, n: int, cells: Mapping[int, Value]) -> Column:
        kinds = [MISSING] * n
        ints = [0] * n
        reals = [0.0] * n
        strs: list[str | None] | None = None
        # Rows holding the same expression object, then equal expressions merged.
        by_object: dict[int, tuple[ast.Expr, list[int]]] = {}
        for row, raw in cells.items():
            t = type(raw)
            if t is int and _INT64_MIN <= raw <= _INT64_MAX:  # the common cases first
                kinds[row] = INT
                ints[row] = raw
                reals[row] = float(raw)
                continue
            if t is float:
                kinds[row] = REAL
                reals[row] = raw
                continue
            kind, value = _stored(raw)
            kinds[row] = kind
            if kind in (INT, BOOL):
                ints[row] = int(value)
                reals[row] = float(value)
            elif kind == REAL:
                reals[row] = value
            elif kind == STR:
                if strs is None:
                    strs = [None] * n
                strs[row] = value
            elif kind == EXPR:
                entry = by_object.get(id(value))
                if entry is None:
                    entry = by_object[id(value)] = (value, [])
                entry[1].append(row)
        exprs: dict[tuple[ast.Expr, tuple[bool, ...]], tuple[ast.Expr, list[int]]] = {}
        for node, rows in by_object.values():
            exprs.setdefault(_exact_key(node), (node, []))[1].extend(rows)
        groups: list[tuple[ast.Expr, Array]] = []
        for node, rows in exprs.values():
            if len(groups) == _MAX_GROUPS:
                for row in rows:
                    kinds[row] = OTHER
                continue
            mask = np.zeros(n, dtype=bool)
            mask[rows] = True
            groups.append((node, mask))
        s = f = None
        if strs is not None:
            s, f = _string_arrays(strs)
        vec = _Vec(
            np.array(kinds, dtype=_KIND_DTYPE),
            np.array(ints, dtype=np.int64),
            np.array(reals, dtype=np.float64),
            s,
            f,
            full=True,
        )
        return cls(vec, tuple(groups))


class Columns:
    """Many ads stored column-wise (`from_ads`) and read by compiled column expressions.
    The ads themselves are kept for the rows evaluated one by one; they must not change
    while the columns are read (a column is built from them when first read)."""

    __slots__ = ("_columns", "_lowered", "ads", "n")

    def __init__(
        self, ads: tuple[Mapping[str, Value], ...], lowered: tuple[Mapping[str, Value], ...]
    ) -> None:
        self.ads = ads
        self.n = len(ads)
        #: each row's stored values by lower-case name; a Column is built when first read
        #: (a match reads a few of the dozens of attributes a slot ad has)
        self._lowered = lowered
        self._columns: dict[str, Column | None] = {}

    @classmethod
    def from_ads(cls, ads: Sequence[Mapping[str, Value]]) -> Columns:
        """Columns of `ads` (dicts or ClassAds; names case-insensitive, the last spelling
        of a name in a dict wins, as scope.lowered reads it)."""
        kept = tuple(ads)
        return cls(
            kept,
            tuple(
                ad.lowered() if type(ad) is ClassAd else {k.lower(): v for k, v in ad.items()}
                for ad in kept
            ),
        )

    def __len__(self) -> int:
        return self.n

    def column(self, key: str) -> Column | None:
        """The column of lower-case attribute `key`, None if no ad has it."""
        try:
            return self._columns[key]
        except KeyError:
            values = [mapping.get(key, ABSENT) for mapping in self._lowered]
            built = Column.dense(values)
            if built is None:
                rows = {row: raw for row, raw in enumerate(values) if raw is not ABSENT}
                built = Column.build(self.n, rows) if rows else None
            self._columns[key] = built
            return built

    def names(self) -> frozenset[str]:
        return frozenset().union(*self._lowered)


class _Absent:
    """The type of `ABSENT` alone (so a column's types tell whether a row lacks it)."""


#: What `Columns.column` reads for a row that lacks the attribute.
ABSENT: Final = _Absent()
#: The plain value types a dense column holds: their kind, and the value a missing row's
#: arrays hold.
_PLAIN_TYPES: Final[dict[type, tuple[int, Value]]] = {
    int: (INT, 0), float: (REAL, 0.0), bool: (BOOL, False), str: (STR, ""),
}  # fmt: skip


def _string_arrays(strs: Sequence[str | None]) -> tuple[Array, Array]:
    """A string column's arrays: the strings as stored (None where a row has none) and
    their case-folded bytes (b"" there), each distinct string folded once (slot ads
    repeat their strings)."""
    folds: dict[str | None, bytes] = {None: b""}
    for x in strs:
        if x not in folds:
            folds[x] = ops.fold_case(x)  # type: ignore[arg-type]
    return np.array(strs, dtype=object), np.array([folds[x] for x in strs], dtype="S")


# ---- results ---------------------------------------------------------------------------


class ColumnValues:
    """The value of an expression in every row, exactly as the scalar evaluator gives it:
    typed arrays for the rows computed column-wise, the values of the others."""

    __slots__ = ("_vec", "scalar")

    def __init__(self, vec: _Vec, scalar: dict[int, Value]) -> None:
        self._vec = vec
        #: Rows evaluated one by one by the scalar evaluator, and their values.
        self.scalar = scalar

    def __len__(self) -> int:
        return len(self._vec.kind)

    def __getitem__(self, row: int) -> Value:
        if row < 0:
            row += len(self)
        if row in self.scalar:
            return self.scalar[row]
        v = self._vec
        kind = int(v.kind[row])
        if kind == BOOL:
            return bool(v.ints()[row])
        if kind == INT:
            return int(v.ints()[row])
        if kind == REAL:
            return float(v.reals()[row])
        if kind == STR:
            return str(v.strs()[row])
        return UNDEFINED if kind == UNDEF else ERROR

    def tolist(self) -> list[Value]:
        return [self[row] for row in range(len(self))]

    def numbers(self, default: float) -> Array:
        """Per row: the value as a C double (booleans 1/0), `default` where it is not a
        number or is NaN (how the negotiator reads a rank)."""
        v = self._vec
        num = v.num()
        ok = (v.kind <= REAL) & ~np.isnan(num)
        out = np.where(ok, num, default)
        for row, value in self.scalar.items():
            t = type(value)
            good = t is bool or t is int or (t is float and not math.isnan(value))
            out[row] = float(value) if good else default
        return out

    def is_true(self) -> Array:
        """Per row: is the value the boolean TRUE."""
        v = self._vec
        out = (v.kind == BOOL) & (v.ints() != 0)
        for row, value in self.scalar.items():
            out[row] = value is True
        return out

    def holds(self) -> Array:
        """Per row: does the value count as TRUE for the startd (compiler.table.holds:
        `operators.truth` is TRUE, so a non-zero number holds too)."""
        kind, value = _truth(self._vec)
        out = (kind == BOOL) & value
        for row, scalar in self.scalar.items():
            out[row] = ops.truth(scalar) is True
        return out


# ---- compiled expressions -------------------------------------------------------------

Fn = Callable[["_Env"], _Vec]


class _Env:
    """One call: the columns, the TARGET ad, the clock reading, constants made so far."""

    __slots__ = ("columns", "consts", "n", "now", "target", "target_values", "unit")

    def __init__(
        self, unit: ColumnExpr, columns: Columns, target: Mapping[str, Value] | None, now: int
    ) -> None:
        self.unit = unit
        self.columns = columns
        self.n = columns.n
        self.now = now
        self.target = None if target is None else {k.lower(): v for k, v in target.items()}
        self.target_values: dict[str, _Vec] = {}
        self.consts = unit.consts

    def const(self, value: Value) -> _Vec:
        """`value` in every row (kept by the ColumnExpr between calls: immutable)."""
        # repr tells 0.0 from -0.0 (equal, and equal hashes, as dictionary keys).
        key = (self.n, type(value), repr(value) if type(value) is float else value)
        found = self.consts.get(key)
        if found is None:
            if len(self.consts) >= _CONST_LIMIT:
                self.consts.clear()
            found = self.consts[key] = _const(value, self.n)
        return found

    def other(self) -> _Vec:
        return self.const(_OTHER_VALUE)

    def target_value(self, key: str) -> _Vec | None:
        """TARGET's attribute `key` in every row, None if TARGET has no such attribute."""
        if self.target is None or key not in self.target:
            return None
        found = self.target_values.get(key)
        if found is None:
            kind, value = _stored(self.target[key])
            # An expression in the job ad sees each slot as its TARGET: scalar path.
            found = self.other() if kind == EXPR else self.const(value)
            self.target_values[key] = found
        return found


class _OtherValue:
    """A value the arrays do not hold (its kind is OTHER)."""


_OTHER_VALUE: Final = _OtherValue()


def _clock(now: Now) -> int:
    if now is None:
        return int(time.time())
    if callable(now):
        return int(now())
    return int(now)


class ColumnExpr:
    """A compiled column expression: `fn(columns, target, now=...)` -> ColumnValues."""

    __slots__ = ("_fns", "_scalar", "consts", "expr", "fn")

    def __init__(self, expr: ast.Expr) -> None:
        self.expr = expr
        self.consts: dict[Any, _Vec] = {}
        #: By node object (kept alive here) and busy set; see _closed_value for why.
        self._fns: dict[tuple[int, frozenset[str]], tuple[ast.Expr, Fn]] = {}
        self._scalar = compile_expr(expr)
        try:
            self.fn = self.compiled(expr, frozenset())
        except RecursionError:  # too deep for the array path: every row one by one
            self.fn = _all_other

    def compiled(self, node: ast.Expr, busy: frozenset[str]) -> Fn:
        """The array function of `node` evaluated in MY's scope with `busy` attributes
        of MY being evaluated (they read as UNDEFINED)."""
        key = (id(node), busy)
        hit = self._fns.get(key)
        if hit is not None and hit[0] is node:
            return hit[1]
        fn = _Builder(self, busy).build(node)
        self._fns[key] = (node, fn)
        return fn

    def __call__(
        self,
        columns: Columns,
        target: Mapping[str, Value] | None = None,
        *,
        now: Now = None,
    ) -> ColumnValues:
        clock = _clock(now)
        env = _Env(self, columns, target, clock)
        with np.errstate(all="ignore"):
            try:
                vec = self.fn(env)
            except RecursionError:
                vec = env.other()
        scalar: dict[int, Value] = {}
        rows = np.flatnonzero(vec.kind == OTHER)
        if len(rows):
            ads = columns.ads
            evaluate_row = self._scalar
            for row in rows.tolist():
                scalar[row] = evaluate_row(ads[row], target, now=clock)
        return ColumnValues(vec, scalar)

    def __repr__(self) -> str:
        from compiler.classad.unparse import unparse

        return f"ColumnExpr({unparse(self.expr)!r})"


def compile_columns(expr: ast.Expr | str) -> ColumnExpr:
    """Compile an expression (or ClassAd text) for evaluation over `Columns`."""
    return ColumnExpr(parse(expr) if isinstance(expr, str) else expr)


def _all_other(env: _Env) -> _Vec:
    return env.other()


# ---- the array operations -------------------------------------------------------------


def _compare_values(op: str, a: Array, b: Array) -> Array:
    match op:
        case "<":
            return a < b
        case "<=":
            return a <= b
        case ">":
            return a > b
        case ">=":
            return a >= b
        case "==":
            return a == b
        case _:
            return a != b


def _bool_vec(kind: Array, value: Array) -> _Vec:
    return _Vec(kind, value.astype(np.int64))


def _compare(op: str, a: _Vec, b: _Vec) -> _Vec:
    """operators._comparison: numbers as C compares them, strings case-folded bytes."""
    ka, kb = a.kind, b.kind
    top = np.maximum(ka, kb)
    kind = np.take(_COMPARE, top)
    value = _compare_values(op, a.ints(), b.ints())
    if a.r is not None or b.r is not None:
        value = np.where(top == REAL, _compare_values(op, a.num(), b.num()), value)
    if a.f is not None or b.f is not None:
        strings = top == STR
        mixed = strings & (np.minimum(ka, kb) != STR)  # a string against a non-string
        kind = np.where(mixed, ERR, kind)
        if a.f is not None and b.f is not None:
            value = np.where(strings, _compare_values(op, a.f, b.f), value)
    return _bool_vec(kind, value)


def _int_divide(x: Array, y: Array) -> Array:
    """operators.divide on two int64 columns (rows dividing by zero give anything)."""
    overflow = (x == _INT64_MIN) & (y == -1)
    safe = np.where((y == 0) | overflow, 1, y)
    q = np.floor_divide(x, safe)
    q = q + ((q * safe != x) & ((x < 0) != (safe < 0)))  # floor -> toward zero
    return np.where(overflow, _INT64_MAX, q)


#: The arithmetic operators that are one numpy ufunc for ints and reals alike (`/` is
#: not: integer division truncates, and divides by zero into ERROR).
_ARITH_UFUNCS: Final = {"+": np.add, "-": np.subtract, "*": np.multiply}


def _arith(op: str, a: _Vec, b: _Vec) -> _Vec:
    """operators.add/subtract/multiply/divide/modulo (times are OTHER, never here)."""
    top = np.maximum(a.kind, b.kind)
    x, y = a.ints(), b.ints()
    if op == "%":
        kind = np.take(_MODULO, top)
        kind = np.where((kind == INT) & (y == 0), ERR, kind)
        safe = np.where((y == 0) | (y == -1), 1, y)
        return _Vec(kind, np.where(y == -1, 0, np.fmod(x, safe)))
    kind = np.take(_ARITH, top)
    real: Array | None = None
    ufunc = _ARITH_UFUNCS.get(op)  # None for `/`
    if ufunc is None:
        kind = np.where((kind == INT) & (y == 0), ERR, kind)
        i = _int_divide(x, y)
    else:
        i = ufunc(x, y)
    if a.r is not None or b.r is not None:
        u, v = a.num(), b.num()
        real = u / v if ufunc is None else ufunc(u, v)
        # operators._real_result: +inf from an operation is ERROR.
        kind = np.where((kind == REAL) & (real == np.inf), ERR, kind)
    return _Vec(kind, i, real)


def _truth(v: _Vec) -> tuple[Array, Array]:
    """operators.truth per row: (kind BOOL/UNDEF/ERR/OTHER, the boolean where BOOL)."""
    kind = np.take(_TRUTH, v.kind)
    value = v.ints() != 0
    if v.r is not None:
        value = np.where(v.kind == REAL, v.reals() != 0, value)
    return kind, value


def _not(v: _Vec) -> _Vec:
    kind, value = _truth(v)
    return _bool_vec(kind, ~value)


def _negate(v: _Vec) -> _Vec:
    kind = np.take(_NEGATE, v.kind)
    return _Vec(kind, -v.ints(), None if v.r is None else -v.reals())


def _plus(v: _Vec) -> _Vec:
    return _Vec(np.where(v.kind == BOOL, ERR, np.where(v.kind == STR, ERR, v.kind)), v.i, v.r)


def _identical(a: _Vec, b: _Vec, same: bool) -> _Vec:
    """operators.identical: same kind and same value (strings exactly, case and all);
    UNDEFINED is UNDEFINED, ERROR is ERROR; never UNDEFINED itself."""
    ka, kb = a.kind, b.kind
    value = (ka == kb) & np.where(ka <= INT, a.ints() == b.ints(), True)
    if a.r is not None and b.r is not None:
        value &= np.where(ka == REAL, a.reals() == b.reals(), True)
    if a.s is not None and b.s is not None:
        value &= np.where(ka == STR, a.strs() == b.strs(), True)
    other = (ka == OTHER) | (kb == OTHER)
    kind = np.where(other, OTHER, BOOL).astype(_KIND_DTYPE)
    return _bool_vec(kind, value if same else ~value)


def _reads_nothing(node: ast.Expr) -> bool:
    """No attribute, call or nested ad anywhere in `node` (a list of constants is fine)."""
    return all(isinstance(n, (*_CLOSED, ast.ListExpr)) for n in ast.walk(node))


def _row_values(v: _Vec) -> tuple[list[Any], list[Value]]:
    """Per row: a key that tells values apart exactly (kind, and a real by its bits, so
    -0.0 is not 0.0 and 1 is not 1.0 nor TRUE) and the value as the evaluator has it."""
    kinds = v.kind.tolist()
    ints = v.ints().tolist()
    reals = v.reals().tolist()
    bits = v.reals().view(np.int64).tolist()
    strs = v.strs().tolist()
    keys: list[Any] = []
    values: list[Value] = []
    for kind, i, r, b, s in zip(kinds, ints, reals, bits, strs, strict=True):
        if kind == INT:
            keys.append((INT, i))
            values.append(i)
        elif kind == BOOL:
            keys.append((BOOL, i))
            values.append(bool(i))
        elif kind == REAL:
            keys.append((REAL, b))
            values.append(r)
        elif kind == STR:
            keys.append((STR, s))
            values.append(s)
        else:
            keys.append((kind,))
            values.append(UNDEFINED if kind == UNDEF else ERROR if kind == ERR else _OTHER_VALUE)
    return keys, values


class _Builder:
    """Turns an AST into array functions for one ColumnExpr and one busy set."""

    __slots__ = ("busy", "unit")

    def __init__(self, unit: ColumnExpr, busy: frozenset[str]) -> None:
        self.unit = unit
        self.busy = busy

    def build(self, node: ast.Expr) -> Fn:
        closed, value = _closed_value(node)
        if closed:
            return lambda env: env.const(value)
        match node:
            case ast.AttrRef(scope=None):
                return self._unscoped(node.key)
            case ast.AttrRef(scope="MY"):
                return self._my(node.key)
            case ast.AttrRef(scope="TARGET"):
                return self._target(node.key)
            case ast.Unary(op="-" | "+" | "!" as op, operand=operand):
                return self._unary(op, self.build(operand))
            case ast.Binary(op="&&", left=left, right=right):
                return self._and(self.build(left), self.build(right))
            case ast.Binary(op="||", left=left, right=right):
                return self._or(self.build(left), self.build(right))
            case ast.Binary(op="+" | "-" | "*" | "/" | "%" as op, left=left, right=right):
                return self._strict(op, _arith, self.build(left), self.build(right))
            case ast.Binary(op="<" | "<=" | ">" | ">=" | "==" | "!=" as op, left=left, right=right):
                return self._strict(op, _compare, self.build(left), self.build(right))
            case ast.Binary(op="=?=" | "=!=" as op, left=left, right=right):
                return self._identity(op == "=?=", self.build(left), self.build(right))
            case ast.Conditional(cond=cond, then=then, otherwise=otherwise):
                return self._conditional(self.build(cond), self.build(then), self.build(otherwise))
            case ast.Call(args=args) if node.key == "ifthenelse" and len(args) == 3:
                return self._conditional(*(self.build(a) for a in args))
            case ast.Call(args=()) if node.key == "time":
                return lambda env: env.const(env.now)
            case ast.Elvis(left=left, right=right):
                return self._elvis(self.build(left), self.build(right))
            case ast.Call(args=(arg,)) if node.key in _TYPE_PREDICATES:
                return self._type_predicate(_TYPE_PREDICATES[node.key], self.build(arg))
            case ast.Call() if node.key not in SPECIAL_FORMS and node.key not in _IMPURE:
                return self._builtin(node)
            case _:
                return _all_other

    # -- builtin functions: the scalar evaluator, once per distinct argument tuple --

    @staticmethod
    def _type_predicate(kind: int, arg: Fn) -> Fn:
        """`isUndefined(x)`, `isInteger(x)` ... (functions_scalar's type tests): a kind
        test per row; a row whose argument the arrays do not hold stays OTHER."""

        def predicate(env: _Env) -> _Vec:
            v = arg(env)
            other = v.kind == OTHER
            result = np.where(other, OTHER, BOOL).astype(_KIND_DTYPE)
            return _Vec(result, (v.kind == kind).astype(np.int64))

        return predicate

    def _builtin(self, node: ast.Call) -> Fn:
        """A builtin call (its arguments all evaluated, then the function applied: no
        scope, no laziness). Slots share few distinct argument values, so the scalar
        evaluator runs once per distinct tuple of them, on a probe `f(arg0, arg1...)`
        whose arguments are attributes holding those values; rows with an OTHER
        argument stay OTHER."""
        # Arguments that read nothing (`{"a", "b"}` too) are written into the probe.
        varying = [k for k, a in enumerate(node.args) if not _reads_nothing(a)]
        args = tuple(self.build(node.args[k]) for k in varying)
        names = [f"arg{k}" for k in varying]
        written = list(node.args)
        for k, name in zip(varying, names, strict=True):
            written[k] = ast.AttrRef(name)
        probe = compile_expr(ast.Call(node.name, tuple(written)))

        def builtin(env: _Env) -> _Vec:
            rows = [_row_values(fn(env)) for fn in args]
            known: dict[tuple[Any, ...], Value] = {}
            cells: dict[int, Value] = {}
            for row in range(env.n):
                key = tuple(keys[row] for keys, _ in rows)
                if key in known:
                    cells[row] = known[key]
                    continue
                values = [values[row] for _, values in rows]
                if any(v is _OTHER_VALUE for v in values):
                    value: Value = _OTHER_VALUE
                else:
                    value = probe(dict(zip(names, values, strict=True)), None, now=env.now)
                cells[row] = known[key] = value
            return Column.build(env.n, cells).vec

        return builtin

    # -- attribute references (scope.resolve, compile._attr) --

    def _my_attribute(self, env: _Env, key: str, absent: Callable[[], _Vec]) -> _Vec:
        """MY's attribute `key` per row; rows without it take `absent()`."""
        column = env.columns.column(key)
        if column is None:
            return absent()
        vec = column.vec
        if key in self.busy:  # being evaluated in these rows: a cycle
            vec = env.const(UNDEFINED)
        else:
            inner = self.busy | {key}
            for node, rows in column.groups:
                vec = _merge(rows, self.unit.compiled(node, inner)(env), vec)
        if column.missing is not None:
            vec = _merge(column.missing, absent(), vec)
        return vec

    @staticmethod
    def _special(env: _Env, key: str) -> _Vec | None:
        """scope.special for MY or TARGET: the clock, or a scope (OTHER)."""
        if key == "currenttime":
            return env.const(env.now)
        return env.other() if key in _SPECIAL else None

    def _unscoped(self, key: str) -> Fn:
        def absent(env: _Env) -> _Vec:
            found = self._special(env, key)
            if found is None:
                found = env.target_value(key)
            return found if found is not None else env.const(UNDEFINED)

        def unscoped(env: _Env) -> _Vec:
            return self._my_attribute(env, key, lambda: absent(env))

        return unscoped

    def _scope_word(self, env: _Env, word: str, vec: _Vec) -> _Vec:
        """Rows whose ad has an attribute named `word` (`MY`, `TARGET`) mean that one."""
        column = env.columns.column(word)
        if column is None:
            return vec
        present = column.vec.kind != MISSING
        return _merge(present, env.other(), vec)

    def _my(self, key: str) -> Fn:
        def absent(env: _Env) -> _Vec:
            found = self._special(env, key)
            return found if found is not None else env.const(UNDEFINED)

        def my(env: _Env) -> _Vec:
            return self._scope_word(env, "my", self._my_attribute(env, key, lambda: absent(env)))

        return my

    def _target(self, key: str) -> Fn:
        def target(env: _Env) -> _Vec:
            if env.target is None:
                vec = env.const(UNDEFINED)
            else:
                found = env.target_value(key)
                if found is None:
                    found = self._special(env, key)
                vec = found if found is not None else env.const(UNDEFINED)
            return self._scope_word(env, "target", vec)

        return target

    # -- operators --

    @staticmethod
    def _unary(op: str, operand: Fn) -> Fn:
        action = {"-": _negate, "+": _plus, "!": _not}[op]
        return lambda env: action(operand(env))

    @staticmethod
    def _strict(op: str, action: Callable[[str, _Vec, _Vec], _Vec], left: Fn, right: Fn) -> Fn:
        return lambda env: action(op, left(env), right(env))

    @staticmethod
    def _identity(same: bool, left: Fn, right: Fn) -> Fn:
        return lambda env: _identical(left(env), right(env), same)

    @staticmethod
    def _and(left: Fn, right: Fn) -> Fn:
        def and_(env: _Env) -> _Vec:
            ta, va = _truth(left(env))
            a_true = (ta == BOOL) & va
            if not (a_true | (ta == UNDEF)).any():  # no row reads the right operand
                return _bool_vec(ta, va)
            tb, vb = _truth(right(env))
            b_false = (tb == BOOL) & ~vb
            when_undefined = np.where(b_false, BOOL, np.where(tb >= ERR, tb, UNDEF))
            kind = np.where(ta == UNDEF, when_undefined, np.where(a_true, tb, ta))
            return _bool_vec(kind.astype(_KIND_DTYPE), a_true & vb)

        return and_

    @staticmethod
    def _or(left: Fn, right: Fn) -> Fn:
        def or_(env: _Env) -> _Vec:
            ta, va = _truth(left(env))
            a_false = (ta == BOOL) & ~va
            if not (a_false | (ta == UNDEF)).any():
                return _bool_vec(ta, va)
            tb, vb = _truth(right(env))
            b_true = (tb == BOOL) & vb
            when_undefined = np.where(b_true, BOOL, np.where(tb >= ERR, tb, UNDEF))
            kind = np.where(ta == UNDEF, when_undefined, np.where(a_false, tb, ta))
            return _bool_vec(kind.astype(_KIND_DTYPE), ((ta == BOOL) & va) | b_true)

        return or_

    @staticmethod
    def _conditional(cond: Fn, then: Fn, otherwise: Fn) -> Fn:
        def conditional(env: _Env) -> _Vec:
            tc, vc = _truth(cond(env))
            chosen = tc == BOOL
            take_then = chosen & vc
            take_else = chosen & ~vc
            a = then(env) if take_then.any() else env.other()
            b = otherwise(env) if take_else.any() else env.other()
            picked = _merge(take_then, a, b)
            kind = np.where(chosen, picked.kind, tc).astype(_KIND_DTYPE)
            return _Vec(kind, picked.i, picked.r, picked.s, picked.f, full=picked.full)

        return conditional

    @staticmethod
    def _elvis(left: Fn, right: Fn) -> Fn:
        def elvis(env: _Env) -> _Vec:
            a = left(env)
            undefined = a.kind == UNDEF
            if not undefined.any():
                return a
            return _merge(undefined, right(env), a)

        return elvis
