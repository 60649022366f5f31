"""Abstract values: which kinds of value an expression can have, given attribute domains.

Stage: simplifier support (static analysis). Every rewrite law that is only valid for
"defined booleans" or "never ERROR" operands asks this module; an answer is an
over-approximation (a kind missing from the set is impossible, a kind present may or may
not occur), which is the direction that keeps the laws sound.

Also here: `canon`, the normal form used to decide that two subexpressions are the same
atom (names lower-cased, `MY.x`/`x` merged only where the Env says that is sound,
`random()` never equal to anything).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Final

import msgspec
from msgspec.structs import replace

from compiler.classad import ast as A
from compiler.classad.values import ERROR, UNDEFINED, AbsTime, RelTime
from compiler.simplify.domains import TIME_DOMAIN, Domain, Env
from compiler.simplify.threevl import ALL_TV, AND_TABLE, NOT_TABLE, OR_TABLE

NUMERIC: Final = frozenset({"bool", "int", "real", "nan"})
ANY_TAGS: Final = frozenset({"bool", "int", "real", "nan", "str", "list", "ad", "time", "U", "E"})
CMP_OPS: Final = frozenset({"==", "!=", "<", "<=", ">", ">=", "=?=", "=!="})
ORDER_OPS: Final = frozenset({"==", "!=", "<", "<=", ">", ">="})
ARITH_OPS: Final = frozenset({"+", "-", "*", "/", "%"})
TYPE_TESTS: Final = frozenset(
    {"isundefined", "iserror", "isstring", "isinteger", "isreal", "isboolean", "islist"}
)
#: Functions whose value changes between evaluations (never folded, never merged).
NONDETERMINISTIC: Final = frozenset({"random"})
#: Functions that read the clock, the local time zone or attributes by name: never
#: folded (the zone where the policy runs need not be the compiler's).
IMPURE: Final = frozenset(
    {"time", "random", "eval", "evalineachcontext", "countmatches", "unparse"}
    | {"abstime", "currenttime", "timezoneoffset", "daytime", "splittime", "formattime"}
    | {"getyear", "getmonth", "getdayofyear", "getdayofmonth", "getdayofweek", "gethours"}
)
_BIG: Final = 1e300  # |x| below this: + and - of two such numbers cannot overflow


class Abs(msgspec.Struct, frozen=True):
    """Possible kinds (`bool int real nan str list ad time U E`; `real` = finite real,
    `nan` = NaN or an infinity, `time` = an absolute or relative time, opaque: it is
    never folded and only its ERROR truth value and ERROR-or-time arithmetic are
    used) and, for numbers, inclusive bounds (None = unbounded)."""

    tags: frozenset[str]
    low: float | None = None
    high: float | None = None


ANY: Final = Abs(ANY_TAGS)


def abs_of_domain(d: Domain) -> Abs:
    tags = {
        "number": {"int", "real"},
        "integer": {"int"},
        "boolean": {"bool"},
        "string": {"str"},
        "any": set(ANY_TAGS),
    }[d.kind]
    if not d.defined:
        tags |= {"U", "E"}
    return Abs(frozenset(tags), d.low, d.high)


def abs_of_value(v: object) -> Abs:
    if v is UNDEFINED:
        return Abs(frozenset({"U"}))
    if v is ERROR:
        return Abs(frozenset({"E"}))
    if isinstance(v, bool):
        return Abs(frozenset({"bool"}), float(v), float(v))
    if isinstance(v, int):
        return Abs(frozenset({"int"}), v, v)
    if isinstance(v, float):
        if math.isfinite(v):
            return Abs(frozenset({"real"}), v, v)
        return Abs(frozenset({"nan"}))
    if isinstance(v, str):
        return Abs(frozenset({"str"}))
    if isinstance(v, list | tuple):
        return Abs(frozenset({"list"}))
    if isinstance(v, dict):
        return Abs(frozenset({"ad"}))
    if isinstance(v, AbsTime | RelTime):
        return Abs(frozenset({"time"}))
    return ANY


def tvs(a: Abs) -> frozenset[str]:
    """The truth values a value of this abstract kind can have."""
    out: set[str] = set()
    t = a.tags
    if "bool" in t:
        lo, hi = a.low, a.high
        if not (lo is not None and lo > 0):
            out.add("F")
        if not (hi is not None and hi < 1):
            out.add("T")
    if t & {"int", "real"}:
        lo, hi = a.low, a.high
        if (lo is None or lo <= 0) and (hi is None or hi >= 0):
            out.add("F")
        if not (lo == 0 and hi == 0):
            out.add("T")
    if "nan" in t:
        out.add("T")
    if t & {"str", "list", "ad", "time", "E"}:
        out.add("E")
    if "U" in t:
        out.add("U")
    return frozenset(out)


def _from_tvs(ts: frozenset[str]) -> Abs:
    tags = {"bool"} if ts & {"T", "F"} else set()
    tags |= {"U"} if "U" in ts else set()
    tags |= {"E"} if "E" in ts else set()
    lo = 0.0 if "F" in ts else 1.0
    hi = 1.0 if "T" in ts else 0.0
    return Abs(frozenset(tags), lo, hi)


def lift(
    table: Mapping[tuple[str, str], str], left: frozenset[str], right: frozenset[str]
) -> frozenset[str]:
    out = set()
    for a in left:
        stops = "F" if table is AND_TABLE else "T"
        if a in (stops, "E"):
            out.add(table[(a, "T")])  # right operand not evaluated
            continue
        out.update(table[(a, b)] for b in right)
    return frozenset(out)


#: The literal node classes (no node class is subclassed: an exact type test is enough,
#: and cheaper than isinstance against Struct classes).
_LITERAL_CLASSES: Final = frozenset(A.LITERAL_TYPES)


def is_literal(e: A.Expr) -> bool:
    return type(e) in _LITERAL_CLASSES


def literal_value(e: A.Expr) -> object:
    match e:
        case A.Integer(value=v) | A.Real(value=v) | A.String(value=v) | A.Boolean(value=v):
            return v
        case A.UndefinedLit():
            return UNDEFINED
        case A.ErrorLit():
            return ERROR
        case _:
            raise TypeError(f"not a literal: {e!r}")


def literal_of(v: object) -> A.Expr | None:
    """The literal node for a scalar value, or None (lists, ads, NaN, +infinity)."""
    if v is UNDEFINED:
        return A.UndefinedLit()
    if v is ERROR:
        return A.ErrorLit()
    if isinstance(v, bool):
        return A.Boolean(v)
    if isinstance(v, int):
        return A.Integer(v) if -(2**63) <= v < 2**63 else None
    if isinstance(v, float):
        return A.Real(v) if math.isfinite(v) else None
    if isinstance(v, str):
        return A.String(v) if "\0" not in v else None
    return None


def _arith(op: str, a: Abs, b: Abs) -> Abs:
    tags: set[str] = set()
    if "U" in a.tags | b.tags:
        tags.add("U")
    if "time" in a.tags | b.tags:
        tags |= {"time", "E"}  # operators.py `_time_arithmetic`: a time or ERROR
    if (a.tags | b.tags) & {"E", "str", "list", "ad"}:
        tags.add("E")
    na, nb = a.tags & NUMERIC, b.tags & NUMERIC
    if not na or not nb:
        return Abs(frozenset(tags))
    ints = na <= {"bool", "int"} and nb <= {"bool", "int"}
    lo = hi = None
    if ints:
        tags.add("int")
        if op in ("/", "%"):
            tags.add("E")  # division by zero (the range is not tracked precisely)
        elif op in ("+", "-") and None not in (a.low, a.high, b.low, b.high):
            assert a.low is not None and a.high is not None
            assert b.low is not None and b.high is not None
            if op == "+":
                lo, hi = a.low + b.low, a.high + b.high
            else:
                lo, hi = a.low - b.high, a.high - b.low
            if max(abs(lo), abs(hi)) >= 2**62:
                lo = hi = None
        return Abs(frozenset(tags), lo, hi)
    if op == "%":
        # `%` with a real operand is ERROR; with two integers (or booleans) an integer.
        tags |= {"E", "int"}
        return Abs(frozenset(tags))
    tags.add("real")
    if na & {"bool", "int"} and nb & {"bool", "int"}:
        tags.add("int")  # both operands may be integers or booleans (true + 1 is 2)
    safe = False
    if op in ("+", "-") and "nan" not in na | nb:
        bounded = all(x is not None and abs(x) < _BIG for x in (a.low, a.high, b.low, b.high))
        # x - y with x, y >= 0 (or x + y with opposite signs) cannot overflow.
        nonneg = a.low is not None and a.low >= 0 and b.low is not None and b.low >= 0
        safe = bounded or (op == "-" and nonneg)
    if not safe:
        tags |= {"nan", "E"}
    return Abs(frozenset(tags))


def _compare(op: str, a: Abs, b: Abs) -> Abs:
    if op in ("=?=", "=!="):
        bad = a.tags & {"list", "ad"} and b.tags & {"list", "ad"}  # only two lists: ERROR
        return Abs(frozenset({"bool", "E"} if bad else {"bool"}))
    tags: set[str] = set()
    if "U" in a.tags | b.tags:
        tags.add("U")
    if (a.tags | b.tags) & {"E", "list", "ad"}:
        tags.add("E")
    if "time" in a.tags | b.tags:
        tags |= {"bool", "E"}  # two times of one kind compare; anything else is ERROR
    na, nb = a.tags & NUMERIC, b.tags & NUMERIC
    sa, sb = a.tags & {"str"}, b.tags & {"str"}
    if (na and nb) or (sa and sb):
        tags.add("bool")
    if (na and sb) or (sa and nb):
        tags.add("E")
    return Abs(frozenset(tags))


def _unary(op: str, x: Abs) -> Abs:
    if op == "!":
        return _from_tvs(frozenset(NOT_TABLE[t] for t in tvs(x)))
    keep = x.tags & {"U", "E"}
    bad = {"E"} if x.tags & {"str", "list", "ad", "bool", "time"} else set()
    if op in ("-", "+") and "time" in x.tags:
        keep = keep | {"time"}  # a relative time stays one (an absolute one is ERROR)
    if op == "~":
        nums = x.tags & {"int"}
        bad |= {"E"} if x.tags & {"real", "nan"} else set()
        return Abs(frozenset(keep | nums | bad))
    nums = x.tags & {"int", "real", "nan"}
    if op == "-" and nums:
        lo = None if x.high is None else -x.high
        hi = None if x.low is None else -x.low
        return Abs(frozenset(keep | nums | bad), lo, hi)
    return Abs(frozenset(keep | nums | bad), x.low, x.high)


def _join(a: Abs, b: Abs) -> Abs:
    lo = None if a.low is None or b.low is None else min(a.low, b.low)
    hi = None if a.high is None or b.high is None else max(a.high, b.high)
    if not (a.tags & NUMERIC):
        lo, hi = b.low, b.high
    elif not (b.tags & NUMERIC):
        lo, hi = a.low, a.high
    return Abs(a.tags | b.tags, lo, hi)


def _conditional(c: Abs, then: Abs, otherwise: Abs) -> Abs:
    ts = tvs(c)
    out = Abs(frozenset())
    if "T" in ts:
        out = _join(out, then)
    if "F" in ts:
        out = _join(out, otherwise)
    extra = {t for t in ("U", "E") if t in ts}
    return Abs(out.tags | extra, out.low, out.high)


#: Memo sizes: nodes hash in O(1) (cached) and Env by identity (interned), so a look-up
#: is cheap; the bound only keeps a long-running process from growing without limit.
_MEMO: Final = 1 << 16


@lru_cache(maxsize=_MEMO)
def abstract(e: A.Expr, env: Env) -> Abs:
    """An over-approximation of the values `e` can take (HTCondor mode, two ads)."""
    match e:
        case A.Integer() | A.Real() | A.String() | A.Boolean() | A.UndefinedLit() | A.ErrorLit():
            return abs_of_value(literal_value(e))
        case A.AttrRef():
            known, value = env.assumed(e)
            if known:
                return abs_of_value(value)
            dom = env.domain(e)
            if dom is not None:
                return abs_of_domain(dom)
            return ANY
        case A.Unary(op=op, operand=x):
            return _unary(op, abstract(x, env))
        case A.Binary(op="&&" | "||", left=l, right=r):
            table = AND_TABLE if e.op == "&&" else OR_TABLE
            return _from_tvs(lift(table, tvs(abstract(l, env)), tvs(abstract(r, env))))
        case A.Binary(op=op, left=l, right=r) if op in CMP_OPS:
            return _compare(op, abstract(l, env), abstract(r, env))
        case A.Binary(op=op, left=l, right=r) if op in ARITH_OPS:
            return _arith(op, abstract(l, env), abstract(r, env))
        case A.Binary():
            return Abs(frozenset({"int", "E", "U"}))  # bitwise and shifts
        case A.Conditional(cond=c, then=t, otherwise=o):
            return _conditional(abstract(c, env), abstract(t, env), abstract(o, env))
        case A.Call(args=args) if e.key == "ifthenelse" and len(args) == 3:
            return _conditional(*(abstract(x, env) for x in args))
        case A.Call(args=args) if e.key == "time":
            return abs_of_domain(TIME_DOMAIN) if not args else Abs(frozenset({"E"}))
        case A.Call(args=args) if e.key in TYPE_TESTS:
            return Abs(frozenset({"bool"} if len(args) == 1 else {"E"}))
        case A.Elvis(left=l, right=r):
            la = abstract(l, env)
            if "U" not in la.tags:
                return la
            return _join(Abs(la.tags - {"U"}, la.low, la.high), abstract(r, env))
        case A.ListExpr():
            return Abs(frozenset({"list"}))
        case A.RecordExpr():
            return Abs(frozenset({"ad"}))
        case _:
            return ANY


def truth_values(e: A.Expr, env: Env) -> frozenset[str]:
    return tvs(abstract(e, env)) or ALL_TV


def boolean_valued(e: A.Expr, env: Env) -> bool:
    """True when `e`'s value is always a boolean, UNDEFINED or ERROR (so it equals its
    own truth value and `TRUE && e`, `!!e` may be replaced by `e`)."""
    return abstract(e, env).tags <= {"bool", "U", "E"}


def may_error(e: A.Expr, env: Env) -> bool:
    return "E" in truth_values(e, env)


def two_valued(e: A.Expr, env: Env) -> bool:
    """Its truth value is always TRUE or FALSE (a defined boolean or number)."""
    return truth_values(e, env) <= {"T", "F"}


_fresh = itertools.count()


def canon(e: A.Expr, env: Env) -> A.Expr:
    """A normal form for atom identity: case-folded names, `x` -> `MY.x` when `x` is
    certainly in MY, a unique marker for every `random()` occurrence."""
    return _canon_memo(e, env) if deterministic(e) else _canon(e, env)


def _canon(e: A.Expr, env: Env) -> A.Expr:
    match e:
        case A.Binary(left=left, right=right):  # `map_children` without its frames: chains
            l2, r2 = canon(left, env), canon(right, env)  # of a few hundred operands nest
            return e if (l2 is left and r2 is right) else replace(e, left=l2, right=r2)
        case A.AttrRef(name=n, scope=s):
            key = env.resolve(e)
            scope = key.split(".", 1)[0] if key is not None else s
            return A.AttrRef(n.lower(), scope)
        case A.Call(name=n, args=args) if n.lower() in NONDETERMINISTIC:
            return A.Call(f"random#{next(_fresh)}", tuple(canon(a, env) for a in args))
    new = A.map_children(e, lambda x: canon(x, env), same_scope=False)
    match new:
        case A.Call(name=n) | A.Select(name=n) if n != n.lower():
            return replace(new, name=n.lower())
        case A.RecordExpr(attrs=attrs):
            return replace(new, attrs=tuple((k.lower(), v) for k, v in attrs))
    return new


_canon_memo = lru_cache(maxsize=_MEMO)(_canon)


@lru_cache(maxsize=_MEMO)
def deterministic(e: A.Expr) -> bool:
    """No `random()` inside (two occurrences of the same text may differ)."""
    if isinstance(e, A.Call) and e.key in NONDETERMINISTIC:
        return False
    for x in A.children(e):  # noqa: SIM110 (a loop: one frame per level of a chain)
        if not deterministic(x):
            return False
    return True


def _impure(e: A.Expr) -> bool:
    return isinstance(e, A.AttrRef | A.Select | A.RecordExpr) or (
        isinstance(e, A.Call) and e.key in IMPURE
    )


def pure(e: A.Expr) -> bool:
    """Only literals and operators on literals (no attributes, clock, randomness)."""
    return not any(_impure(x) for x in A.walk(e))
